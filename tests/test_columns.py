"""Tables the commands print: lined up in any script, and saying what the totals mean."""

from __future__ import annotations

from nerts.columns import first_few, left, right, shown_width
from nerts.count_report import count_table, points_table
from nerts.sheets import format_sheet
from referee.scoresheet import Scoresheet


def test_wide_characters_fill_two_columns_and_combining_marks_none() -> None:
    assert shown_width("Anna") == 4
    assert shown_width("美咲") == 4
    assert shown_width("Zoe\u0301") == 3  # "Zoé" spelt with a combining accent
    assert left("美咲", 6) == "美咲  " and right("美咲", 6) == "  美咲"
    assert left("a name too long", 3) == "a name too long"


def test_count_tables_line_up_with_names_in_any_script() -> None:
    counts = {"美咲さん": 12, "Zoe\u0301": 3, "ben": 10}
    table = count_table(counts)
    assert table.splitlines() == [
        "美咲さん   12",
        "Zoe\u0301" + " " * 9 + "3",
        "ben        10",
        "total      25",
    ]
    assert len({shown_width(row) for row in table.splitlines()}) == 1
    points = points_table(counts, {}, {}, {"美咲さん": 12, "Zoe\u0301": 3, "ben": 10})
    assert points.splitlines()[1] == "美咲さん     12     0     +12"
    assert len({shown_width(row) for row in points.splitlines()[:-1]}) == 1


def test_the_sheet_lines_up_with_names_in_any_script() -> None:
    sheet = Scoresheet.from_journal(
        [
            {"type": "game", "players": {"0": "美咲さん", "1": "Ben"}, "target": 30},
            {"type": "round", "scores": {"0": 12, "1": -4}},
        ]
    )
    rows = format_sheet(sheet).splitlines()
    assert rows[1:3] == ["round 美咲さん      Ben", "    1   +12=12    -4=-4"]


def test_a_tie_past_the_target_is_said_to_play_on() -> None:
    journal: list[object] = [
        {"type": "game", "players": {"0": "Anna", "1": "Ben", "2": "Cleo"}, "target": 20},
        {"type": "round", "scores": {"0": 25, "1": 25, "2": 3}},
    ]
    rows = format_sheet(Scoresheet.from_journal(journal)).splitlines()
    assert (
        rows[-1]
        == "Anna and Ben are level at 25, past the target of 20: the game goes on until one leads"
    )
    journal.append({"type": "fix", "round": 1, "scores": {"2": 25}})
    rows = format_sheet(Scoresheet.from_journal(journal)).splitlines()
    assert rows[-1].startswith("Anna, Ben and Cleo are level at 25")


def test_the_sheet_lines_up_past_a_hundred_and_below_minus_ten() -> None:
    sheet = Scoresheet.from_journal(
        [
            {"type": "game", "players": {"0": "Ann", "1": "Ben", "2": "Cy"}, "target": 100},
            {"type": "round", "scores": {"0": 75, "1": -12, "2": 8}},
            {"type": "round", "scores": {"0": 28, "1": 3, "2": 11}},
        ]
    )
    assert format_sheet(sheet).splitlines()[1:4] == [
        "round     Ann     Ben      Cy",
        "    1  +75=75 -12=-12    +8=8",
        "    2 +28=103   +3=-9  +11=19",
    ]


def test_the_first_few_are_named_and_the_rest_counted() -> None:
    assert first_few(["a", "b"], 3) == "a, b"
    assert first_few(["a", "b", "c"], 3) == "a, b, c"
    assert first_few(["a", "b", "c", "d", "e"], 3, "; ") == "a; b; c and 2 more"
    assert first_few([], 3) == ""
