"""The score sheet rebuilt from its journal: rounds, undo, fix, and the files rounds came from."""

from __future__ import annotations

import re

import pytest

from referee.scoresheet import RoundOrigin, Scoresheet, ScoresheetError

GAME = {"type": "game", "players": {"0": "Anna", "1": "Ben"}, "target": 30}


def test_rounds_undo_and_fix_rebuild_the_totals() -> None:
    sheet = Scoresheet.from_journal(
        [
            GAME,
            {"type": "round", "scores": {"Anna": 12, "ben": -4}},
            {"type": "round", "scores": {"0": 5, "1": 9}},
            {"type": "undo"},
            {"type": "round", "scores": {"Anna": 20, "Ben": 1}},
            {"type": "fix", "round": 1, "scores": {"Ben": 2}},
        ]
    )
    assert sheet.rounds == [{0: 12, 1: 2}, {0: 20, 1: 1}]
    assert sheet.totals == {0: 32, 1: 3} and sheet.winner == 0


def test_a_file_scored_once_is_known_until_its_rounds_are_taken_back() -> None:
    photo, log = RoundOrigin("f1", "centre.jpg"), RoundOrigin("f2", "game.jsonl")
    sheet = Scoresheet.from_journal(
        [
            GAME,
            {"type": "round", "scores": {"Anna": 1, "Ben": 2}},
            {
                "type": "round",
                "scores": {"Anna": 3, "Ben": 4},
                "fingerprint": "f1",
                "source": "centre.jpg",
            },
            {
                "type": "round",
                "scores": {"Anna": 5, "Ben": 6},
                "fingerprint": "f2",
                "source": "game.jsonl",
            },
            {
                "type": "round",
                "scores": {"Anna": 7, "Ben": 8},
                "fingerprint": "f2",
                "source": "game.jsonl",
            },
            {"type": "fix", "round": 2, "scores": {"Ben": 0}},
        ]
    )
    assert sheet.origins == [None, photo, log, log]
    assert sheet.rounds_scored_from("f1") == [(2, photo)]
    assert sheet.rounds_scored_from("f2") == [(3, log), (4, log)]
    assert sheet.rounds_scored_from("f3") == []
    sheet.undo()
    assert sheet.rounds_scored_from("f2") == [(3, log)]
    sheet.undo()
    assert sheet.rounds_scored_from("f2") == [] and sheet.rounds_scored_from("f1") == [(2, photo)]


def test_rounds_given_without_origins_have_none_and_undo() -> None:
    sheet = Scoresheet({0: "Anna", 1: "Ben"}, rounds=[{0: 1, 1: 2}])
    assert sheet.origins == [None]
    sheet.undo()
    assert sheet.rounds == [] and sheet.origins == []


def test_a_malformed_fingerprint_names_its_entry() -> None:
    entry = {"type": "round", "scores": {"Anna": 1, "Ben": 2}, "fingerprint": 7}
    with pytest.raises(
        ScoresheetError, match="line 2: 'fingerprint' and 'source' must be strings, got 7 and \"\""
    ):
        Scoresheet.from_journal([GAME, entry], ["line 1", "line 2"])


def test_undo_takes_back_the_rounds_of_one_change_together() -> None:
    """Rounds added by one change (a log's) go back together; rounds of two changes side by
    side, or added alone, one change at a time."""
    sheet = Scoresheet({0: "Anna", 1: "Ben"})
    for change in (None, "a", "a", "b", "b", None):
        sheet.add_round({0: 1, 1: 1}, change=change)
    taken = []
    while sheet.rounds:
        taken.append(list(sheet.last_change()))
        sheet.undo()
    assert taken == [[6], [4, 5], [2, 3], [1]]
    sheet.add_round({0: 1, 1: 1}, change="c")  # a log's rounds on an empty sheet
    sheet.add_round({0: 2, 1: 2}, change="c")
    assert list(sheet.last_change()) == [1, 2]


def test_a_malformed_change_names_its_entry() -> None:
    entry = {"type": "round", "scores": {"Anna": 1, "Ben": 2}, "change": 7}
    with pytest.raises(ScoresheetError, match=r"^line 2: a round's change is a name, got 7$"):
        Scoresheet.from_journal([GAME, entry], ["line 1", "line 2"])


@pytest.mark.parametrize(
    ("rounds", "has"), [(0, "no rounds yet"), (1, "round 1 only"), (3, "rounds 1..3")]
)
def test_fixing_a_round_not_played_says_which_rounds_there_are(rounds: int, has: str) -> None:
    played = [{"type": "round", "scores": {"Anna": 1, "Ben": 2}}] * rounds
    fix = {"type": "fix", "round": rounds + 1, "scores": {"Ben": 2}}
    with pytest.raises(
        ScoresheetError, match=rf"^line 9: no round {rounds + 1} \(the sheet has {has}\)$"
    ):
        Scoresheet.from_journal([GAME, *played, fix], [f"line {n}" for n in range(8 - rounds, 10)])


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"type": "round"}, "a round entry needs 'scores'"),
        ({"type": "fix", "scores": {"Ben": 2}}, "a fix entry needs 'round'"),
        ({"type": "fix"}, "a fix entry needs 'round' and 'scores'"),
        (
            {"type": "undo", "round": 1},
            "an undo takes back the last round and names none; to change round 1, write a fix",
        ),
        ({"type": "round", "scores": None}, "scores must be an object of seat -> points, got null"),
        (
            {"type": "round", "scores": {"Anna": 10**26, "Ben": 2}},
            f"points of Anna lie within -1000 to 1000 in a round, got {10**26} (a typo?)",
        ),
    ],
)
def test_an_entry_written_by_hand_is_refused_with_what_it_lacks(
    entry: dict[str, object], message: str
) -> None:
    journal = [GAME, {"type": "round", "scores": {"Anna": 1, "Ben": 2}}, entry]
    with pytest.raises(ScoresheetError) as refused:
        Scoresheet.from_journal(journal)
    assert str(refused.value).endswith(message)


def test_a_name_is_found_however_its_accents_are_encoded_or_spaced() -> None:
    composed, decomposed = "Zo\u00eb", "Zoe\u0308"  # one letter, or e and a combining mark
    game = {"type": "game", "players": {"0": composed, "1": "Ben"}, "target": 30}
    sheet = Scoresheet.from_journal([game, {"type": "round", "scores": {decomposed: 3, " ben": 1}}])
    assert sheet.rounds == [{0: 3, 1: 1}]
    # A name in another script's digits is no seat number (seats are ASCII), so it may be one.
    arabic = {**GAME, "players": {"0": "\u0663", "1": "Ben"}}
    assert Scoresheet.from_journal([arabic]).players[0] == "\u0663"
    with pytest.raises(ScoresheetError, match="a name that is not blank or a number: '12'"):
        Scoresheet.from_journal([{**GAME, "players": {"0": "12", "1": "Ben"}}])
    # Casefolded between decompositions: a Greek iota with dialytika and tonos, as one letter
    # or as a capital and two marks, is one name (composed first, the two would differ).
    greek = {**GAME, "players": {"0": "\u0390", "1": "Ben"}}
    assert Scoresheet.from_journal([greek]).seat_of("\u03aa\u0301") == 0
    for twin in (decomposed, "ZOË ", "Ben ", "zoe\u0308"):
        doubled = {"type": "game", "players": {"0": composed, "1": "Ben", "2": twin}}
        with pytest.raises(ScoresheetError, match="two players are called"):
            Scoresheet.from_journal([doubled])


def test_one_seat_written_two_ways_is_refused_not_given_to_the_later_name() -> None:
    game = {"type": "game", "players": {"0": "Anna", "00": "Ben", "1": "Cy"}, "target": 30}
    with pytest.raises(ScoresheetError) as refused:
        Scoresheet.from_journal([game])
    assert str(refused.value).startswith("'players' names seat 0 twice ('Anna' and 'Ben'), got {")


def test_a_sheet_holding_a_name_with_a_control_character_opens_with_it_escaped() -> None:
    """`nerts scores new` refuses such names; a sheet started before it did still opens."""
    game = {"type": "game", "players": {"0": "An\tna", "1": "Ben\u2028"}, "target": 30}
    sheet = Scoresheet.from_journal([game, {"type": "round", "scores": {"An\tna": 3, "1": 1}}])
    assert sheet.players == {0: "An\\tna", 1: "Ben\\u2028"} and sheet.rounds == [{0: 3, 1: 1}]
    assert sheet.seat_of("an\\tna") == 0
    edges = {"type": "game", "players": {"0": "Ben\t", "1": "\u2028Cy"}, "target": 30}
    sheet = Scoresheet.from_journal(
        [edges, {"type": "round", "scores": {"Ben\t": 3, "\u2028Cy": 1}}]
    )
    assert sheet.players == {0: "Ben\\t", 1: "\\u2028Cy"} and sheet.rounds == [{0: 3, 1: 1}]


def test_a_malformed_round_end_names_its_entry() -> None:
    entry = {"type": "round", "scores": {"Anna": 1, "Ben": 2}, "fingerprint": "f", "ended": 3}
    with pytest.raises(ScoresheetError, match=r"^line 2: 'ended' must be a string, got 3$"):
        Scoresheet.from_journal([GAME, entry], ["line 1", "line 2"])


def test_a_target_changed_during_the_game_decides_who_won_and_when() -> None:
    rounds = [
        {"type": "round", "scores": {"Anna": 20, "Ben": 12}},
        {"type": "round", "scores": {"Anna": 12, "Ben": 25}},
    ]
    won_at_30 = Scoresheet.from_journal([GAME, *rounds])
    assert (won_at_30.game_over_after, won_at_30.winner) == (2, 1)
    # Agreed after round 1 to play on to 50: no one has won yet.
    raised = Scoresheet.from_journal([GAME, rounds[0], {"type": "target", "target": 50}, rounds[1]])
    assert (raised.target, raised.game_over_after, raised.winner) == (50, None, None)
    # Lowered to 20: Anna's 20 in round 1 had won it. Undo takes back the last change: the
    # target's, then the rounds', then a target changed before them.
    lowered = Scoresheet.from_journal([GAME, *rounds, {"type": "target", "target": 20}])
    assert (lowered.game_over_after, lowered.winner, lowered.target_undone()) == (1, 0, 30)
    lowered.apply({"type": "undo"})
    assert (lowered.target, len(lowered.rounds), lowered.target_undone()) == (30, 2, None)
    raised.apply({"type": "undo"})
    assert (raised.target, len(raised.rounds), raised.target_undone()) == (50, 1, 30)
    raised.apply({"type": "undo"})
    assert (raised.target, len(raised.rounds)) == (30, 1)
    raised.apply({"type": "undo"})
    assert raised.rounds == [] and raised.target_undone() is None
    with pytest.raises(ScoresheetError, match="there is no round to undo"):
        raised.apply({"type": "undo"})


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"type": "target"}, "a target entry needs 'target'"),
        ({"type": "target", "target": 0}, "target must be at least 1, got 0"),
        ({"type": "target", "target": "150"}, 'target must be an integer, got "150"'),
        ({"type": "target", "target": 10_001}, "target must be at most 10000 (a typo?)"),
    ],
)
def test_a_target_entry_is_checked(entry: dict[str, object], said: str) -> None:
    with pytest.raises(ScoresheetError, match=re.escape(f"entry 2: {said}")):
        Scoresheet.from_journal([GAME, entry])
    with pytest.raises(ScoresheetError, match="at most 10000"):
        Scoresheet.from_journal([{**GAME, "target": 20_000}])


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        (GAME, "a sheet keeps one game, started by its first line"),
        ({"scores": {"Anna": 1}}, "an entry needs a 'type' (round, undo, fix or target), got {"),
        ({"type": "rnd"}, 'unknown entry type "rnd" (round, undo, fix or target)'),
        ({"type": 7}, "unknown entry type 7 (round, undo, fix or target)"),
    ],
)
def test_an_entry_of_no_known_type_is_named(entry: dict[str, object], said: str) -> None:
    with pytest.raises(ScoresheetError, match=re.escape(f"entry 2: {said}")):
        Scoresheet.from_journal([GAME, entry])


def test_points_for_a_seat_number_no_player_has_are_refused() -> None:
    """`fix 1 7=10` on a two-player sheet: seat 7 is no one, so the points would go nowhere."""
    fix = {"type": "fix", "round": 1, "scores": {"7": 10}}
    round_1 = {"type": "round", "scores": {"Anna": 1, "Ben": 2}}
    with pytest.raises(ScoresheetError) as refused:
        Scoresheet.from_journal([GAME, round_1, fix])
    assert str(refused.value) == "entry 3: no player '7' (players: 0=Anna, 1=Ben)"


def test_fixing_round_zero_is_refused_not_taken_as_the_last_round() -> None:
    """Rounds are numbered from 1: round 0 would index the list from its end."""
    sheet = Scoresheet.from_journal([GAME, {"type": "round", "scores": {"Anna": 1, "Ben": 2}}])
    with pytest.raises(ScoresheetError, match=r"^no round 0 \(the sheet has round 1 only\)$"):
        sheet.fix(0, {1: 9})
    assert sheet.rounds == [{0: 1, 1: 2}]


def test_a_game_of_one_player_is_refused() -> None:
    with pytest.raises(ScoresheetError) as refused:
        Scoresheet.from_journal([{**GAME, "players": {"0": "Anna"}}])
    assert str(refused.value) == '\'players\' must name at least two seats, got {"0": "Anna"}'
