"""`nerts scores` end to end, in process: the score sheet's journal, and the errors that leave
it unwritten."""

from __future__ import annotations

import codecs
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nerts.cli import main
from nerts.sheets import NOT_A_JOURNAL, load_sheet
from tests.command_line import GOLDEN, run


def test_scores_journal_add_undo_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = str(tmp_path / "club.jsonl")
    assert run(capsys, "scores", game, "new", "--players", "Anna", "Ben", "--target", "20")[0] == 0
    assert run(capsys, "scores", game, "add", "Anna=12", "1=2")[2] == ""
    status, _, err = run(capsys, "scores", game, "add", "0=1000", "Ben=-27")
    assert status == 0 and err.splitlines() == [
        f"warning: {given}: beyond what one round usually scores (-26 to 64: a Nerts pile of 13 "
        "left, a deck with jokers in the centre and a +10 bonus): a typo? Kept; 'undo' or "
        "'fix' changes it"
        for given in ("0=1000", "Ben=-27")
    ]
    run(capsys, "scores", game, "undo")
    run(capsys, "scores", game, "add", "0=5", "Ben=9")
    # It says which round it took back: the last, not the last change.
    assert run(capsys, "scores", game, "undo")[1].startswith("took back round 2 (Anna 5, Ben 9)\n")
    status, stdout, _ = run(capsys, "scores", game, "fix", "1", "Ben=4")
    assert status == 0
    assert stdout.splitlines()[-2:] == ["    1 +12=12   +4=4", "leader: Anna (12 of 20)"]
    status, stdout, _ = run(capsys, "scores", game, "add", "Anna=0", "Ben=8")
    assert stdout.splitlines()[-1] == "leaders: Anna and Ben, level at 12 (of 20)"
    status, stdout, _ = run(capsys, "scores", game, "add", "Anna=8", "Ben=0")
    assert "GAME OVER: Anna wins with 20." in stdout
    entries = [json.loads(line)["type"] for line in Path(game).read_text().splitlines()]
    assert entries == ["game", "round", "round", "undo", "round", "undo", "fix", "round", "round"]


def test_an_empty_sheet_is_told_how_to_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club.jsonl"
    game.write_text("\n")
    status, _, err = run(capsys, "scores", str(game), "add", "Anna=1", "Ben=2")
    assert status == 2 and err == (
        f"nerts scores: error: {game} is empty: start the sheet with: nerts scores {game} new "
        "--players NAME NAME ...\n"
    )


def test_an_empty_file_may_become_a_sheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club.jsonl"
    game.write_bytes(codecs.BOM_UTF8 + b"\n")  # a blank line, as an editor saves an empty file
    assert run(capsys, "scores", str(game), "new", "--players", "Anna", "Ben")[0] == 0
    assert load_sheet(game).players == {0: "Anna", 1: "Ben"}
    status, _, err = run(capsys, "scores", str(game), "new", "--players", "Cleo", "Dan")
    assert status == 2 and "already exists; choose another name or delete it first" in err
    assert load_sheet(game).players == {0: "Anna", 1: "Ben"}


def test_a_sheet_saved_without_a_last_line_end_takes_rounds_on_lines_of_their_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club.jsonl"
    run(capsys, "scores", str(game), "new", "--players", "Anna", "Ben")
    game.write_text(game.read_text().rstrip("\n"))  # as some editors save it
    assert run(capsys, "scores", str(game), "add", "Anna=3", "Ben=1")[0] == 0
    assert run(capsys, "scores", str(game), "add", "Anna=2", "Ben=5")[0] == 0
    assert load_sheet(game).rounds == [{0: 3, 1: 1}, {0: 2, 1: 5}]
    assert game.read_text().count("\n") == 3


def test_a_sheet_may_start_in_a_new_folder_and_warns_of_rounds_after_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club" / "2026.jsonl"
    run(capsys, "scores", str(game), "new", "--players", "Anna", "Ben", "--target", "10")
    status, stdout, err = run(capsys, "scores", str(game), "add", "Anna=12", "Ben=3")
    assert status == 0 and "GAME OVER: Anna wins with 12." in stdout and "warning:" not in err
    status, _, err = run(capsys, "scores", str(game), "add", "Anna=1", "Ben=40")
    assert status == 0 and len(load_sheet(game).rounds) == 2
    assert "the game was over before this round (Anna had won with 12 in round 1)" in err
    # The round after the end leaves Ben ahead, yet Anna had won.
    assert run(capsys, "scores", str(game), "show")[1].splitlines()[-2:] == [
        "GAME OVER: Anna wins with 12.",
        "(won in round 1: the round after it counts for no one; 'undo' takes the last back)",
    ]


def test_scores_errors_do_not_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "club.jsonl"
    run(capsys, "scores", str(game), "new", "--players", "Anna", "Ben")
    before = game.read_text()
    status, _, err = run(capsys, "scores", str(game), "add", "Anna=3")
    assert status == 2 and "missing: Ben" in err
    status, _, err = run(capsys, "scores", str(game), "add", "Zed=3", "Ben=1")
    assert status == 2 and "no player 'Zed'" in err
    # "\u00b2" passes str.isdigit() but not int(): a typo, not a crash.
    status, _, err = run(capsys, "scores", str(game), "add", "\u00b2=3", "Ben=1")
    assert status == 2 and "no player '\u00b2'" in err
    status, _, err = run(capsys, "scores", str(game), "fix", "\u00b2", "Ben=1")
    assert status == 2 and "fix needs the round number first" in err
    # A number int() takes but no one writes, or one past its 4,300 digits: an error, no trace.
    huge = "1" * 5000
    for mistyped in (f"{huge}=1", f"0={huge}", "0=1_0", "0=\u0661\u0662", "0= 5"):
        status, _, err = run(capsys, "scores", str(game), "add", mistyped, "Ben=1")
        said = {
            f"{huge}=1": f"no player '{huge}'",
            f"0={huge}": "a round's points lie within -1000 to 1000 (a typo?)",
        }.get(mistyped, "expected SEAT=POINTS")
        assert status == 2 and said in err and "Traceback" not in err
    status, _, err = run(capsys, "scores", str(game), "fix", huge, "Ben=1")
    assert status == 2 and err.endswith(f"no round {huge} (the sheet has no rounds yet)\n")
    for beyond in ("Ben=-10000000000", "Ben=+10000000000"):
        status, _, err = run(capsys, "scores", str(game), "add", beyond, "Anna=1")
        assert status == 2 and "a round's points lie within -1000 to 1000 (a typo?)" in err
    status, _, err = run(capsys, "scores", str(game), "add", "Ben=+-10000000000", "Anna=1")
    assert status == 2 and "expected SEAT=POINTS" in err
    status, _, err = run(capsys, "scores", str(game), "add", "Anna=1001", "Ben=1")
    assert status == 2 and "'Anna=1001': a round's points lie within -1000 to 1000" in err
    status, _, err = run(capsys, "scores", str(game), "undo")
    assert status == 2 and "no round to undo" in err
    status, _, err = run(capsys, "scores", str(game), "add", "Anna=3", "Ben=1", "--target", "5")
    assert status == 2 and "--players and --target are for new" in err
    status, _, err = run(capsys, "scores", str(game), "undo", "--from", str(game))
    assert status == 2 and "--from is for add, not undo" in err
    status, _, err = run(capsys, "scores", str(game), "add", "--from", "-")
    assert status == 2 and "--from takes the refereed log's file, not a stream (-)" in err
    pipe = game.parent / "pipe.jsonl"  # /dev/stdin, <(...): its bytes are gone once read
    os.mkfifo(pipe)
    status, _, err = run(capsys, "scores", str(game), "add", "--from", str(pipe))
    assert status == 2 and f"--from takes the refereed log's file, not a stream ({pipe})" in err
    assert game.read_text() == before
    status, _, err = run(capsys, "scores", str(tmp_path / "none.jsonl"))
    assert (
        status == 2 and f"(start one: nerts scores {tmp_path / 'none.jsonl'} new --players" in err
    )
    status, _, err = run(capsys, "scores", "new", str(game), "--players", "Anna", "Ben")
    assert status == 2 and f"the sheet comes first, then the action: nerts scores {game} new" in err
    fresh = tmp_path / "fresh.jsonl"
    status, _, err = run(capsys, "scores", str(fresh), "--players", "Anna", "Ben", "new")
    assert status == 2 and err.splitlines()[-1] == (
        "nerts scores: error: --players took 'new' for a player: put the action before it: "
        f"nerts scores {fresh} new --players Anna Ben"
    )
    status, _, err = run(capsys, "scores", str(fresh), "--players", "new")
    assert status == 2 and err.endswith(f"nerts scores {fresh} new --players NAME NAME ...\n")
    status, _, err = run(capsys, "scores", str(game), "nwe")
    assert status == 2 and "unknown action 'nwe': choose from show, new, add, undo, fix" in err
    assert "points go in" not in err
    status, _, err = run(capsys, "scores", str(game), "Anna=3", "Ben=1")
    assert status == 2 and err.endswith(
        f"(points go in with add: nerts scores {game} add Anna=3 ...)\n"
    )
    for forgot in (["add", "Anna=3", "Ben=1"], ["undo"], ["new", "--players", "A", "B"]):
        status, _, err = run(capsys, "scores", *forgot)
        assert status == 2 and f"give the sheet first: nerts scores GAME.jsonl {forgot[0]}" in err
    game.write_bytes(before.encode() + b'{"type": "round", "points": {"0": 3\xff}}\n')
    status, _, err = run(capsys, "scores", str(game), "add", "Anna=3", "Ben=1")
    assert status == 2 and f"{game}:2: not UTF-8 text" in err and "Traceback" not in err


def test_scores_without_a_sheet_asks_for_the_sheet_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["scores"])
    assert capsys.readouterr().err.splitlines()[-1].endswith("required: GAME")


def test_scores_name_a_bad_journal_entry_by_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club.jsonl"
    run(capsys, "scores", str(game), "new", "--players", "Anna", "Ben")
    with game.open("a") as journal:
        journal.write('\n\n{"type": "round", "scores": {"0": 1}}\n')
    status, _, err = run(capsys, "scores", str(game))
    assert status == 2 and f"{game}:4: " in err and "missing: Ben" in err


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("[1, 2]", "must be a JSON object, got an array"),
        ("5", "must be a JSON object, got a number"),
        ("null", "must be a JSON object, got null"),
        ('"round"', "must be a JSON object, got a string"),
        ("[" * 100_000, f"JSON nested too deeply ({NOT_A_JOURNAL})"),
        ("Round,Anna,Ben", f"not valid JSON (Expecting value) ({NOT_A_JOURNAL})"),
    ],
)
def test_scores_names_journal_lines_it_cannot_use(
    line: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club.jsonl"
    game.write_text(line + "\n")
    status, _, err = run(capsys, "scores", str(game))
    assert status == 2 and err == f"nerts scores: error: {game}:1: {said}\n"


def test_scores_refuse_names_and_points_that_could_mean_two_seats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = str(tmp_path / "club.jsonl")
    for players, message in [
        (["Anna", "anna"], "two players are called 'anna'"),
        (["  ", "Ben"], "a player needs a name that is not blank or a number: '  '"),
        (["1", "0"], "a player needs a name that is not blank or a number: '1'"),
        (["Anna=1", "Ben"], "a player's name cannot hold '=': 'Anna=1'"),
        (["An\nna", "Ben"], "a player's name 'An\\nna' holds the control character \\n"),
        (["Anna", "\x1b[2JBen"], "a player's name '\\x1b[2JBen' holds the control character \\x1b"),
        (["Anna", "Ben\u2029"], "a player's name 'Ben\\u2029' holds the control character \\u2029"),
    ]:
        status, _, err = run(capsys, "scores", game, "new", "--players", *players)
        assert status == 2 and message in err and not Path(game).exists()
    run(capsys, "scores", game, "new", "--players", "Anna", "Ben")
    status, _, err = run(capsys, "scores", game, "add", "Anna=1", "Anna=2", "Ben=0")
    assert status == 2 and "Anna is given twice" in err
    status, _, err = run(capsys, "scores", game, "add", "Anna=1", "0=2", "Ben=0")
    assert status == 2 and "seat 0 (Anna) is given twice" in err
    assert len(Path(game).read_text().splitlines()) == 1


def test_scores_refuse_values_an_action_does_not_take(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = str(tmp_path / "club.jsonl")
    run(capsys, "scores", game, "new", "--players", "Anna", "Ben")
    status, _, err = run(capsys, "scores", game, "undo", "extra")
    assert status == 2 and "undo takes no values, got extra" in err


FULL_DISK_APPEND = """
import resource, signal, sys
from pathlib import Path
from nerts.sheets import append_entries
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
sheet = Path(sys.argv[1])
room = sheet.stat().st_size + 20
resource.setrlimit(resource.RLIMIT_FSIZE, (room, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    append_entries(sheet, [{"type": "round", "points": {"0": 1, "1": 2}, "note": "x" * 100}])
except Exception as error:
    print(type(error).__name__)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs POSIX file size limits")
def test_a_round_that_cannot_be_written_whole_leaves_the_sheet_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Half a line would make the sheet unreadable for good: the write is cut off again."""
    sheet = tmp_path / "club.jsonl"
    assert run(capsys, "scores", str(sheet), "new", "--players", "Anna", "Ben")[0] == 0
    before = sheet.read_bytes()
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK_APPEND, str(sheet)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    )
    assert done.stdout == "UserError\n" and sheet.read_bytes() == before
    assert run(capsys, "scores", str(sheet), "add", "Anna=3", "Ben=4")[0] == 0


def test_a_photo_is_kept_only_with_a_round_added_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet, photo = tmp_path / "club.jsonl", tmp_path / "centre.jpg"
    photo.write_bytes(b"a photo's bytes")
    run(capsys, "scores", str(sheet), "new", "--players", "Anna", "Ben")
    said = "nerts scores: error: --photo is for add SEAT=POINTS: the photo a round was counted from"
    for wrong in (["show"], ["add", "--from", str(GOLDEN / "races.expected.jsonl")]):
        status, _, err = run(capsys, "scores", str(sheet), *wrong, "--photo", str(photo))
        assert (status, err.splitlines()[-1]) == (2, said)
    assert (
        run(capsys, "scores", str(sheet), "add", "Anna=3", "Ben=1", "--photo", str(photo))[0] == 0
    )
    status, _, err = run(
        capsys, "scores", str(sheet), "add", "Anna=3", "Ben=1", "--photo", str(photo)
    )
    assert status == 2 and f"round 1 was scored from {photo} already" in err
    assert load_sheet(sheet).rounds == [{0: 3, 1: 1}]


def test_points_may_follow_an_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """'add --photo IMG Anna=3 Ben=1', as the help lists them: argparse alone read the
    points as unknown arguments; the action too may follow an option."""
    game, first, second = str(tmp_path / "club.jsonl"), tmp_path / "1.png", tmp_path / "2.png"
    first.write_bytes(b"a photo")
    second.write_bytes(b"another photo")
    run(capsys, "scores", game, "new", "--players", "Anna", "Ben")
    assert run(capsys, "scores", game, "add", "--photo", str(first), "Anna=3", "Ben=1")[0] == 0
    assert run(capsys, "scores", game, "--photo", str(second), "add", "Anna=0", "Ben=2")[0] == 0
    sheet = load_sheet(Path(game))
    assert sheet.rounds == [{0: 3, 1: 1}, {0: 0, 1: 2}]
    assert [origin.source for origin in sheet.origins if origin] == [str(first), str(second)]
    with pytest.raises(SystemExit):
        main(["scores", game, "add", "--bogus", "Anna=1", "Ben=1"])
    assert capsys.readouterr().err.endswith("unrecognized arguments: --bogus Anna=1 Ben=1\n")


def test_the_target_changes_mid_game_and_the_sheet_follows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club.jsonl"
    run(capsys, "scores", str(game), "new", "--players", "Anna", "Ben", "--target", "20")
    run(capsys, "scores", str(game), "add", "Anna=22", "Ben=3")
    status, stdout, _ = run(capsys, "scores", str(game), "target", "30")
    assert status == 0 and stdout.splitlines()[:2] == [
        "target changed from 20 to 30",
        "Score sheet (target 30)",
    ]
    assert stdout.splitlines()[-1] == "leader: Anna (22 of 30)"
    assert game.read_text().splitlines()[-1] == '{"type": "target", "target": 30}'
    status, stdout, _ = run(capsys, "scores", str(game), "undo")
    assert stdout.splitlines()[:2] == [
        "took back the target change: the target is 20 again",
        "Score sheet (target 20)",
    ]
    assert run(capsys, "scores", str(game), "target", "30")[0] == 0
    before = game.read_text()
    for values, said in [
        ([], "target takes the new target score, e.g. 'target 150'"),
        (["30"], "the target is 30 already: nothing changed"),
        (["1_000"], "got 1_000"),
        (["30", "40"], "got 30 40"),
        (["0"], f"{game}: target must be at least 1, got 0"),
        (["10001"], f"{game}: target must be at most 10000 (a typo?), got 10001"),
        (["9" * 20], f"target must be at most 10000 (a typo?), got {'9' * 20}"),
    ]:
        status, _, err = run(capsys, "scores", str(game), "target", *values)
        assert status == 2 and said in err, values
    assert game.read_text() == before
    other = tmp_path / "other.jsonl"
    status, _, err = run(
        capsys, "scores", str(other), "new", "--players", "A", "B", "--target", "20000"
    )
    assert status == 2 and "target must be at most 10000" in err and not other.exists()


def test_undo_after_a_fix_says_the_fix_stays_unless_its_round_goes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = str(tmp_path / "club.jsonl")
    run(capsys, "scores", game, "new", "--players", "A", "B")
    for points in (["A=3", "B=1"], ["A=5", "B=2"], ["A=1", "B=1"]):
        run(capsys, "scores", game, "add", *points)
    run(capsys, "scores", game, "fix", "1", "A=4")
    status, out, _ = run(capsys, "scores", game, "undo")
    assert status == 0 and out.splitlines()[0] == (
        "took back round 3 (A 1, B 1); the fix of round 1 made after it stays (undo takes back "
        "rounds and targets: fix it again to change it)"
    )
    run(capsys, "scores", game, "fix", "2", "A=6")
    status, out, _ = run(capsys, "scores", game, "undo")
    assert out.splitlines()[0] == "took back round 2 (A 6, B 2)"
    assert load_sheet(Path(game)).rounds == [{0: 4, 1: 1}]
