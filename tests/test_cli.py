"""The `nerts` command end to end, in process: output, files and the errors users see."""

from __future__ import annotations

import argparse
import codecs
import errno
import io
import json
import os
import shutil
import sys
import tomllib
from pathlib import Path

import cv2
import numpy as np
import pytest

from nerts.cli import BROKEN_PIPE_STATUS, build_parser, main, verbosity_of
from nerts.commands import simulate
from nerts.eventlog import read_events, read_numbered_events
from nerts.sheets import load_sheet
from referee.events import Event, event_from_dict
from referee.game import GameReferee
from referee.options import RuleOptions

GOLDEN = Path(__file__).parent / "golden"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_referee_writes_events_and_scoreboard(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "events.jsonl"
    status, stdout, _ = run(
        capsys,
        "referee",
        str(GOLDEN / "game_to_target.input.jsonl"),
        "--out",
        str(out),
        "--target",
        "20",
    )
    assert status == 0
    assert out.read_text() == (GOLDEN / "game_to_target.expected.jsonl").read_text()
    assert "GAME OVER: seat 0 (red) wins with 21 points." in stdout
    assert "Round 4 (Nerts! called by seat 2" in stdout


def test_referee_own_output_gives_same_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run(capsys, "referee", str(GOLDEN / "races.input.jsonl"), "--out", str(first))
    run(capsys, "referee", str(first), "--out", str(second))
    assert first.read_text() == second.read_text()


@pytest.mark.parametrize("other_name", ["same path", "hard link"])
def test_referee_refuses_to_write_over_its_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], other_name: str
) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text((GOLDEN / "races.input.jsonl").read_text())
    before = log.read_text()
    out = tmp_path / "." / "game.jsonl"
    if other_name == "hard link":  # another name of the same file: it would be cut short
        out = tmp_path / "linked.jsonl"
        out.hardlink_to(log)
    status, _, err = run(capsys, "referee", str(log), "--out", str(out))
    assert status == 2
    assert f"--out would write {out} over an input" in err
    assert log.read_text() == before


def test_bad_line_names_file_and_line_and_keeps_what_was_decided(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "bad.jsonl"
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()
    lines.insert(
        5, '{"frame": 70, "t": 2.3, "type": "play", "seat": 1, "card": "1H", "pile": "F0"}'
    )
    log.write_text("\n".join(lines) + "\n")
    out = tmp_path / "events.jsonl"
    status, _, err = run(capsys, "referee", str(log), "--out", str(out))
    assert status == 2
    assert f"{log}:6: play: 'card': not a card: '1H'" in err
    assert "Traceback" not in err
    assert len(out.read_text().splitlines()) == 4  # the frames decided before the bad line


def test_a_cut_short_last_line_is_left_out_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = (GOLDEN / "races.input.jsonl").read_text()
    log = tmp_path / "live.jsonl"
    log.write_text(whole + '{"frame": 900, "t": 30.0, "type": "pl')  # its writer stopped here
    line = len(whole.splitlines()) + 1
    status, out, err = run(capsys, "referee", str(log))
    assert status == 0 and out == run(capsys, "referee", str(GOLDEN / "races.input.jsonl"))[1]
    assert f"warning: {log}:{line}: the last line is cut short" in err
    # A broken line with its line break is no writer stopped mid-line: an error.
    log.write_text(whole + '{"frame": 900, "t": 30.0, "type": "pl\n')
    assert run(capsys, "referee", str(log))[0] == 2
    # Nor is a last line written wrong (a comma missing), saved without a line break.
    log.write_text(whole + '{"frame": 900, "t": 30.0, "type": "play" "seat": 0}')
    assert run(capsys, "referee", str(log))[0] == 2
    # Cut short after a number, it is left out again.
    log.write_text(whole + '{"frame": 900, "t": 30')
    assert run(capsys, "referee", str(log))[0] == 0
    # A score sheet takes no log still being written: added again when whole, its rounds
    # would count twice.
    refereed = tmp_path / "refereed.jsonl"
    assert run(capsys, "referee", str(GOLDEN / "races.input.jsonl"), "--out", str(refereed))[0] == 0
    cut = tmp_path / "cut.jsonl"
    cut.write_text(refereed.read_text()[:-20])
    game = tmp_path / "game.jsonl"
    assert run(capsys, "scores", str(game), "new", "--players", "A", "B", "C")[0] == 0
    status, _, err = run(capsys, "scores", str(game), "add", "--from", str(cut))
    assert status == 2 and "not valid JSON" in err


def test_an_escape_of_half_a_character_is_named_by_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Written back or printed, it had stopped the run with a traceback (a sheet's round was
    added first)."""
    log = tmp_path / "game.jsonl"
    first = (GOLDEN / "races.input.jsonl").read_text().splitlines()[0]
    log.write_text(
        first + "\n" + first.replace('"frame": 0,', '"frame": 0, "note": "\\udc80",') + "\n"
    )
    status, _, err = run(capsys, "referee", str(log), "--out", str(tmp_path / "out.jsonl"))
    assert status == 2
    assert err.endswith(f"{log}:2: holds \\udc80, an escape of half a character, not text\n")
    sheet = tmp_path / "club.jsonl"
    sheet.write_text('{"type": "game", "players": {"0": "A\\ud800", "1": "B"}, "target": 100}\n')
    status, _, err = run(capsys, "scores", str(sheet), "add", "0=1", "1=2")
    assert status == 2 and err.endswith(
        f"{sheet}:1: holds \\ud800, an escape of half a character, not text\n"
    )
    assert sheet.read_text().count("\n") == 1  # no round added


def test_a_log_in_another_form_is_told_the_form_it_must_have(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = "the file must hold one JSON object per line (JSON Lines)"
    video = tmp_path / "video.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom\xff\xfe\n")
    status, _, err = run(capsys, "referee", str(video))
    assert status == 2 and err.endswith(
        f"error: {video}: not a log of table events but binary data (a video or a picture? "
        "Footage is not yet followed into events: referee a log of them, such as the "
        f"truth.jsonl 'nerts simulate' writes beside its video); {said}\n"
    )
    powershell = tmp_path / "ps.jsonl"
    powershell.write_bytes((GOLDEN / "races.input.jsonl").read_text().encode("utf-16"))
    status, _, err = run(capsys, "referee", str(powershell))
    assert status == 2 and err.endswith(
        f"error: {powershell} is UTF-16 text: save it as UTF-8; {said}\n"
    )
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"frame": 0, "t": 0, "type": "caf\xe9"}\n')
    assert run(capsys, "referee", str(latin))[2].endswith(f"{latin}:1: not UTF-8 text\n")
    pretty = tmp_path / "pretty.json"
    pretty.write_text('{\n  "frame": 0,\n  "t": 0,\n  "type": "stuck"\n}\n')
    status, _, err = run(capsys, "referee", str(pretty))
    assert status == 2 and err.endswith(
        f"{pretty}:1: not valid JSON (Expecting property name enclosed in double quotes); {said}\n"
    )
    # Two logs joined, each begun with a byte-order mark by a Windows editor.
    joined = tmp_path / "joined.jsonl"
    lines = (GOLDEN / "races.input.jsonl").read_bytes().splitlines(keepends=True)
    joined.write_bytes(
        codecs.BOM_UTF8 + b"".join(lines[:5]) + codecs.BOM_UTF8 + b"".join(lines[5:])
    )
    assert run(capsys, "referee", str(joined))[0] == 0
    # A mark before a blank first line (Windows line ends) is a blank line too.
    joined.write_bytes(codecs.BOM_UTF8 + b"\r\n" + b"".join(lines).replace(b"\n", b"\r\n"))
    assert run(capsys, "referee", str(joined))[0] == 0


def test_not_json_and_missing_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "x.jsonl"
    log.write_text('{"frame": 0, "t": 0, "type": "stuck"}\n{oops\n')
    status, _, err = run(capsys, "referee", str(log))
    assert status == 2 and f"{log}:2: not valid JSON" in err
    status, _, err = run(capsys, "referee", str(tmp_path / "nope.jsonl"))
    assert status == 2 and "cannot read" in err and "nope.jsonl" in err
    log.write_bytes(b'{"frame": 0, "t": 0, "type": "stuck"}\n\n{"frame": 1, "t": 0.1\xff}\n')
    status, _, err = run(capsys, "referee", str(log))
    assert status == 2 and f"{log}:3: not UTF-8 text" in err
    # Python reads NaN, JSON has none: written back, strict readers would fail on the line.
    log.write_text(
        '{"frame": 0, "t": 0, "type": "stuck"}\n{"frame": 1, "t": 0, "type": "x", "v": NaN}\n'
    )
    status, _, err = run(capsys, "referee", str(log))
    assert status == 2 and f"{log}:2: NaN is not a number a float holds" in err
    log.write_text(
        '{"frame": 0, "t": 0, "type": "stuck"}\n{"frame": 1, "t": 0, "type": "x", "v": 1e999}\n'
    )
    status, _, err = run(capsys, "referee", str(log))
    assert status == 2 and f"{log}:2: 1e999 (too large) is not a number a float holds" in err
    # Python keeps the last of a key given twice: the play would be judged as one of two cards.
    log.write_text(
        '{"frame": 0, "t": 0, "type": "stuck"}\n'
        '{"frame": 1, "t": 0, "type": "play", "seat": 0, "card": "4S", "pile": "F0", '
        '"card": "9H"}\n'
    )
    status, _, err = run(capsys, "referee", str(log))
    assert status == 2 and f'{log}:2: the key "card" is given twice: which one counts?' in err


def test_bad_option_is_a_clear_error(capsys) -> None:  # type: ignore[no-untyped-def]
    status, _, err = run(capsys, "referee", str(GOLDEN / "races.input.jsonl"), "--target", "0")
    assert status == 2 and "target score must be positive" in err
    for grace in ("-1", "nan", "inf"):
        status, _, err = run(
            capsys, "referee", str(GOLDEN / "races.input.jsonl"), "--in-air-grace", grace
        )
        assert status == 2 and "in-air grace must be a finite number of seconds" in err


@pytest.mark.parametrize(
    ("arguments", "usage", "unknown"),
    [
        (["identify", "x.jpg", "--bogus"], "usage: nerts identify ", "--bogus"),
        (["scores", "club.jsonl", "add", "Anna=3", "--frob"], "usage: nerts scores ", "--frob"),
        (
            ["box", "send", "--port", "socket://h:1", "BEEP", "--wat"],
            "usage: nerts box send ",
            "--wat",
        ),
        # Typed before the command, the option is nerts' own: told with nerts' usage.
        (["--bogus", "demo"], "usage: nerts [-h]", "--bogus"),
        (["--log-file", "demo", "demo", "--zz"], "usage: nerts demo ", "--zz"),
    ],
)
def test_an_unknown_option_is_told_with_the_usage_of_where_it_was_typed(
    arguments: list[str], usage: str, unknown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(arguments)
    err = capsys.readouterr().err
    assert exit.value.code == 2 and err.startswith(usage)
    assert err.splitlines()[-1].endswith(f"error: unrecognized arguments: {unknown}")


def test_an_event_type_like_a_known_one_is_warned_of_others_pass_quietly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()
    mistyped = lines[1].replace('"play"', '"plya"')
    diagnostic = '{"frame": 30, "t": 1.0, "type": "play_seen", "seat": 0}'
    log = tmp_path / "typo.jsonl"
    log.write_text("\n".join([lines[0], mistyped, diagnostic, mistyped, *lines[2:]]) + "\n")
    status, _, err = run(capsys, "referee", str(log))
    assert status == 0
    assert [line for line in err.splitlines() if line.startswith("warning: ")] == [
        f"warning: {log}:2: event type 'plya' is not one the referee knows, so "
        "every event of it is ignored: did you mean 'play'?"
    ]
    assert "warning:" not in run(capsys, "referee", str(GOLDEN / "races.input.jsonl"))[2]


def test_a_log_whose_game_ends_under_a_lower_target_is_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bundled example game is played to 20: refereed at the default 100, nobody wins."""
    example = Path(__file__).parents[1] / "nerts" / "data" / "example_game.jsonl"
    log = tmp_path / "refereed.jsonl"
    assert run(capsys, "referee", str(example), "--target", "20", "--out", str(log))[0] == 0
    line = 1 + next(
        n for n, text in enumerate(log.read_text().splitlines()) if '"game_end"' in text
    )
    status, out, err = run(capsys, "referee", str(log))
    assert status == 0 and "GAME OVER" not in out
    assert f"{log}:{line}: the log's game ends here, but no one reaches --target 100" in err
    assert "warning:" not in run(capsys, "referee", str(log), "--target", "20")[2]


def test_demo_runs_on_built_in_material(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    status, stdout, _ = run(capsys, "demo", "--example", "--out", str(tmp_path))
    assert status == 0 and "GAME OVER" in stdout
    assert (tmp_path / "events.jsonl").read_text() == (
        GOLDEN / "game_to_target.expected.jsonl"
    ).read_text()


def test_demo_films_a_round_and_referees_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What 'make demo' runs, on a short round filmed small (the whole round takes a minute)."""
    defaults = simulate.build_parser_defaults

    def short(**overrides: object) -> argparse.Namespace:
        return defaults(**overrides, seconds=8.0, size="160x90")

    monkeypatch.setattr(simulate, "build_parser_defaults", short)
    status, stdout, _ = run(capsys, "demo", "--out", str(tmp_path))
    assert status == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "events.jsonl",
        "truth.jsonl",
        "video.mp4",
    ]
    video = cv2.VideoCapture(str(tmp_path / "video.mp4"))
    assert int(video.get(cv2.CAP_PROP_FRAME_COUNT)) == 240
    truth = list(read_events(tmp_path / "truth.jsonl"))
    refereed = list(read_events(tmp_path / "events.jsonl"))
    assert refereed == GameReferee(RuleOptions()).referee_all(truth)
    assert stdout.startswith("Simulating a filmed four-player round")
    assert stdout.endswith(f"refereed events written to {tmp_path / 'events.jsonl'}\n")


def test_the_example_has_its_own_default_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not the simulated round's folder: its events would sit beside another round's video.
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "demo", "--example")[0] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["nerts-demo-example"]
    assert (tmp_path / "nerts-demo-example" / "events.jsonl").is_file()


def test_the_example_is_not_written_beside_a_simulated_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "truth.jsonl").write_text("")
    status, _, err = run(capsys, "demo", "--example", "--out", str(tmp_path))
    assert status == 2 and not (tmp_path / "events.jsonl").exists()
    assert err.endswith(
        f"{tmp_path} holds a simulated round (truth.jsonl): the example's events would lie "
        "beside footage they do not describe; give another --out (the example's own is "
        "nerts-demo-example)\n"
    )


def test_scores_journal_add_undo_fix(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
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
    status, _, err = run(capsys, "scores", str(game), "add", "Anna=1", "Ben=4")
    assert status == 0 and len(load_sheet(game).rounds) == 2
    assert "the game was over before this round (Anna had won with 12)" in err


def test_scores_errors_do_not_write(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
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
        said = f"no player '{huge}'" if mistyped.startswith("1") else "expected SEAT=POINTS"
        assert status == 2 and said in err and "Traceback" not in err
    status, _, err = run(capsys, "scores", str(game), "fix", huge, "Ben=1")
    assert status == 2 and "fix needs the round number first" in err
    status, _, err = run(capsys, "scores", str(game), "add", "Anna=1001", "Ben=1")
    assert status == 2 and "'Anna=1001': a round's points lie within -1000 to 1000" in err
    status, _, err = run(capsys, "scores", str(game), "undo")
    assert status == 2 and "no round to undo" in err
    status, _, err = run(capsys, "scores", str(game), "add", "Anna=3", "Ben=1", "--target", "5")
    assert status == 2 and "--players and --target are for new" in err
    status, _, err = run(capsys, "scores", str(game), "undo", "--from", str(game))
    assert status == 2 and "--from is for add, not undo" in err
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
    for forgot in (["add", "Anna=3", "Ben=1"], ["undo"], ["new", "--players", "A", "B"]):
        status, _, err = run(capsys, "scores", *forgot)
        assert status == 2 and f"give the sheet first: nerts scores GAME.jsonl {forgot[0]}" in err
    game.write_bytes(before.encode() + b'{"type": "round", "points": {"0": 3\xff}}\n')
    status, _, err = run(capsys, "scores", str(game), "add", "Anna=3", "Ben=1")
    assert status == 2 and f"{game}:2: not UTF-8 text" in err and "Traceback" not in err


def test_scores_from_refereed_events(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    game = str(tmp_path / "g.jsonl")
    run(capsys, "scores", game, "new", "--players", "A", "B", "C", "--target", "20")
    events = tmp_path / "e.jsonl"
    shutil.copy(GOLDEN / "game_to_target.expected.jsonl", events)
    status, stdout, _ = run(capsys, "scores", game, "add", "--from", str(events))
    assert status == 0 and "GAME OVER: A wins with 21." in stdout
    before = Path(game).read_text()
    status, _, err = run(capsys, "scores", game, "add", "--from", str(events))
    assert status == 2 and f"rounds 1, 2, 3 and 4 were scored from {events} already" in err
    assert Path(game).read_text() == before
    other = tmp_path / "two.jsonl"
    run(capsys, "scores", str(other), "new", "--players", "A", "B")
    status, _, err = run(capsys, "scores", str(other), "add", "--from", str(events))
    assert status == 2 and err.splitlines()[-1].endswith(
        f"{events} scores seats 0, 1, 2, but {other} has players 0=A, 1=B: add its rounds to a "
        "sheet of its own seats"
    )
    # Rounds of a game won part way through the file are warned of at the first of them.
    short = str(tmp_path / "short.jsonl")
    run(capsys, "scores", short, "new", "--players", "A", "B", "C", "--target", "10")
    status, _, err = run(capsys, "scores", short, "add", "--from", str(events))
    assert status == 0 and err.startswith(
        "warning: round 3: the game was over before this round (B had won with 10)"
    )
    # A log given where a sheet belongs is named as what it is; one without round ends as
    # most likely not refereed.
    status, _, err = run(capsys, "scores", str(events), "show")
    assert status == 2 and err.splitlines()[-1].endswith(
        f"{events} is a log of table events, not a score sheet: the rounds of refereed events "
        f"go on a sheet with: nerts scores SHEET.jsonl add --from {events}"
    )
    # A round_end edited by hand (its scores no longer its cards') is named by its line.
    lines = events.read_text().splitlines()
    end_line = next(n for n, line in enumerate(lines) if '"round_end"' in line)
    lines[end_line] = lines[end_line].replace('"scores": {"0": 8,', '"scores": {"0": 58,')
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n")
    fresh = str(tmp_path / "fresh.jsonl")
    run(capsys, "scores", fresh, "new", "--players", "A", "B", "C")
    status, _, err = run(capsys, "scores", fresh, "add", "--from", str(edited))
    assert status == 2 and f"{edited}:{end_line + 1}: round 1 gives seat 0 58 points" in err
    assert "nothing added" in err and load_sheet(Path(fresh)).rounds == []
    lines[end_line] = lines[end_line].replace('"scores": {"0": 58,', '"scores": {"0": 8,')
    lines[end_line] = lines[end_line][:-1] + ', "bonus": {"0": 10, "1": 500}}'
    edited.write_text("\n".join(lines) + "\n")
    status, _, err = run(capsys, "scores", fresh, "add", "--from", str(edited))
    said = f"{edited}:{end_line + 1}: round 1 gives a bonus to seat 0 (10), seat 1 (500), but"
    assert status == 2 and said in err and load_sheet(Path(fresh)).rounds == []
    # One bonus, but to a seat with Nerts cards left (seat 1 has 2): no caller's.
    edited.write_text("\n".join(lines).replace('"0": 10, "1": 500', '"1": 30') + "\n")
    status, _, err = run(capsys, "scores", fresh, "add", "--from", str(edited))
    said = f"{edited}:{end_line + 1}: round 1 gives a bonus to seat 1 (30), but only its Nerts"
    assert status == 2 and said in err and load_sheet(Path(fresh)).rounds == []
    raw = GOLDEN / "races.input.jsonl"
    status, _, err = run(capsys, "scores", short, "add", "--from", str(raw))
    assert status == 2 and err.splitlines()[-1].endswith(
        f"{raw}: no round_end in this events file; a log not yet refereed has none: nerts "
        f"referee {raw} --out EVENTS.jsonl writes one with them"
    )
    judged = GOLDEN / "races.expected.jsonl"  # refereed, but its round goes on
    status, _, err = run(capsys, "scores", short, "add", "--from", str(judged))
    assert status == 2 and err.splitlines()[-1].endswith(
        f"{judged}: no round ended in this log (it stops before a valid Nerts call or a final "
        "stuck): nothing to add yet"
    )
    # A sheet given where a log of table events belongs is named as what it is.
    message = f"{game} is a score sheet ('nerts scores'), not a log of table events"
    for arguments in (["referee", game], ["scores", game, "add", "--from", game]):
        status, _, err = run(capsys, *arguments)
        assert status == 2 and err.splitlines()[-1].endswith(message)


def test_help_teaches(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    commands = ["demo", "referee", "scores", "simulate", "identify", "count", "box", "box-emulator"]
    # Each command listed on a line of its own with what it does, and examples after them.
    listed = [
        line.split()[0] for line in text.splitlines() if line.startswith("    ") and line.split()
    ]
    assert [name for name in listed if name in commands] == commands
    assert text.index("examples:") > text.index("box-emulator")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"nerts {project['project']['version']}\n"


def test_nerts_alone_shows_what_it_can_do(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    text = capsys.readouterr().err
    assert text.startswith("usage: nerts") and "count" in text and "examples:" in text
    assert "required" not in text


def test_scores_without_a_sheet_asks_for_the_sheet_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["scores"])
    assert capsys.readouterr().err.splitlines()[-1].endswith("required: GAME")


PLAY_BEFORE_ROUND = '{"frame": 5, "t": 0.1, "type": "play", "seat": 0, "card": "AD", "pile": "F0"}'
BROKEN_LINES = {
    "a play before any round": (PLAY_BEFORE_ROUND, "play at frame 5 comes before any round_start"),
    "nested too deeply": ("[" * 100_000, ":1: JSON nested too deeply"),
    "a number too long": ('{"frame": ' + "9" * 5000 + "}", ":1: a number in it is too long"),
}


@pytest.mark.parametrize("case", BROKEN_LINES)
def test_referee_names_lines_it_cannot_use(case: str, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    line, message = BROKEN_LINES[case]
    log = tmp_path / "log.jsonl"
    log.write_text(line + "\n")
    status, _, err = run(capsys, "referee", str(log))
    assert status == 2 and f"{log}" in err and message in err and "Traceback" not in err


ROUND_OF_TWO = (
    '{"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "nerts_pile": 13, '
    '"seats": [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}]}'
)
STRANGER = '{"frame": 5, "t": 0.2, "type": "play", "seat": 7, "card": "AH", "pile": "p1"}'
STUCK = '{"frame": 9, "t": 0.3, "type": "stuck"}'


@pytest.mark.parametrize(
    ("lines", "where"),
    [
        ([ROUND_OF_TWO, STRANGER, STUCK, STUCK], ":2: play at frame 5: seat 7 is not at the"),
        ([ROUND_OF_TWO, STRANGER], ":2: play at frame 5: seat 7 is not at the"),
        ([PLAY_BEFORE_ROUND, STUCK], ":1: play at frame 5 comes before any round_start"),
    ],
)
def test_referee_names_the_line_of_the_event_at_fault(
    lines: list[str], where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The referee decides a frame once the next begins, after reading the next line."""
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(lines) + "\n")
    status, _, err = run(capsys, "referee", str(log))
    assert status == 2 and f"{log}{where}" in err


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
        ("[" * 100_000, "JSON nested too deeply"),
    ],
)
def test_scores_names_journal_lines_it_cannot_use(
    line: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club.jsonl"
    game.write_text(line + "\n")
    status, _, err = run(capsys, "scores", str(game))
    assert status == 2 and err == f"nerts scores: error: {game}:1: {said}\n"


def test_files_that_cannot_be_written_are_named(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    plain = tmp_path / "plain"
    plain.write_text("")
    races = str(GOLDEN / "races.input.jsonl")
    status, _, err = run(capsys, "--log-file", str(plain / "x.log"), "referee", races)
    assert status == 2 and f"cannot make folder {plain}: {plain} is a file" in err
    status, _, err = run(capsys, "--log-file", str(tmp_path), "referee", races)
    assert status == 2 and f"cannot write {tmp_path}: Is a directory" in err
    status, _, err = run(capsys, "referee", races, "--out", str(plain / "events.jsonl"))
    assert status == 2 and f"{plain} is a file" in err and "Traceback" not in err
    status, _, _ = run(capsys, "--log-file", str(tmp_path / "new" / "x.log"), "referee", races)
    assert status == 0 and (tmp_path / "new" / "x.log").is_file()


def test_scores_refuse_names_and_points_that_could_mean_two_seats(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
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


def test_scores_refuse_values_an_action_does_not_take(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    game = str(tmp_path / "club.jsonl")
    run(capsys, "scores", game, "new", "--players", "Anna", "Ben")
    status, _, err = run(capsys, "scores", game, "undo", "extra")
    assert status == 2 and "undo takes no values, got extra" in err


def test_a_log_saved_with_a_byte_order_mark_reads_as_without(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + (GOLDEN / "game_to_target.input.jsonl").read_bytes())
    with_mark = run(capsys, "referee", str(marked), "--target", "20")
    plain = run(capsys, "referee", str(GOLDEN / "game_to_target.input.jsonl"), "--target", "20")
    assert with_mark == plain and with_mark[0] == 0


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("socket://127.0.0.1", "--box 'socket://127.0.0.1' names no port number"),
        ("", "--box '' names no port: give the box's device"),  # not refereed without the box
    ],
)
def test_referee_refuses_a_box_url_without_a_port(capsys, url: str, said: str) -> None:  # type: ignore[no-untyped-def]
    races = str(GOLDEN / "races.input.jsonl")
    status, _, err = run(capsys, "referee", races, "--box", url)
    assert status == 2 and said in err


@pytest.mark.parametrize(
    ("arguments", "verbose", "log_file"),
    [
        (["scores", "g.jsonl"], 0, None),
        (["-v", "scores", "g.jsonl"], 1, None),
        (["scores", "g.jsonl", "-vv"], 2, None),
        (["-vv", "scores", "g.jsonl", "-v"], 3, None),
        (["--log-file", "a.log", "scores", "g.jsonl", "-v"], 1, Path("a.log")),
        (["-vv", "scores", "g.jsonl", "--log-file", "b.log"], 2, Path("b.log")),
        (["box", "send", "ping", "--port", "loop://", "-v"], 1, None),
    ],
)
def test_logging_options_go_before_or_after_the_command(
    arguments: list[str], verbose: int, log_file: Path | None
) -> None:
    args = build_parser().parse_args(arguments)
    assert (verbosity_of(args), args.log_file) == (verbose, log_file)


def test_a_reader_that_stops_early_ends_the_command_quietly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """'nerts demo --example | head': the pipe closes under the command's output."""

    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

        def fileno(self) -> int:
            return spare.fileno()

    with (tmp_path / "spare").open("w") as spare:
        monkeypatch.setattr(sys, "stdout", ClosedPipe())
        assert main(["referee", str(GOLDEN / "races.input.jsonl")]) == BROKEN_PIPE_STATUS
    assert "Traceback" not in capsys.readouterr().err


def test_commands_suggested_in_errors_can_be_pasted_with_spaces_in_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "club night.jsonl"
    assert main(["scores", str(sheet)]) == 2
    assert f"(start one: nerts scores '{sheet}' new --players" in capsys.readouterr().err
    assert main(["scores", "new", str(sheet), "--players", "Anna Maria", "Ben"]) == 2
    err = capsys.readouterr().err
    assert f"the sheet comes first, then the action: nerts scores '{sheet}' new ..." in err


def test_a_full_disk_under_the_output_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """'nerts scores game.jsonl > /dev/full'."""

    class FullDisk(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def fileno(self) -> int:
            return spare.fileno()

    with (tmp_path / "spare").open("w") as spare:
        monkeypatch.setattr(sys, "stdout", FullDisk())
        assert main(["referee", str(GOLDEN / "races.input.jsonl")]) == 1
    err = capsys.readouterr().err
    assert err == "nerts referee: error: cannot write the output: No space left on device\n"


NOT_UTF8 = os.fsdecode(b"caf\xe9.png")


@pytest.mark.parametrize(
    "arguments",
    [
        ["identify", NOT_UTF8],
        ["count", NOT_UTF8, "--backs", "a={ref}"],
        ["count", "{ref}", "--backs", f"a={NOT_UTF8}"],
        ["simulate", "--out", NOT_UTF8, "--seconds", "1"],
        ["simulate", "--out", "{tmp}", "--players", "2", "--backs", "red", NOT_UTF8],
    ],
)
def test_a_name_that_is_not_utf8_is_refused_before_opencv_sees_it(
    arguments: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # OpenCV ended the process with a segmentation fault on such a name.
    monkeypatch.chdir(tmp_path)  # were the refusal missed, what is written lands here
    ref = tmp_path / "ref.png"
    ref.write_bytes(b"")
    given = [a.format(ref=ref, tmp=tmp_path / "sim") for a in arguments]
    assert main(given) == 2
    assert capsys.readouterr().err.endswith(
        "error: 'caf\\xe9.png' is not UTF-8 text (a name from another system?), which the "
        "image library cannot open: rename it\n"
    )


def test_a_photo_so_named_among_others_is_named_alike_where_skipped_and_at_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cv2.imwrite("felt.png", np.full((72, 128, 3), (60, 120, 40), np.uint8))
    Path(NOT_UTF8).write_bytes(Path("felt.png").read_bytes())
    assert main(["identify", "felt.png", NOT_UTF8, "--json"]) == 2
    said = [line for line in capsys.readouterr().err.splitlines() if "caf" in line]
    assert said == [
        "error: 'caf\\xe9.png' is not UTF-8 text (a name from another system?), which the image "
        "library cannot open: rename it: skipped",
        "nerts identify: error: 1 of 2 photos could not be read and are left out (named above): "
        "caf\\xe9.png",
    ]


def test_an_annotation_named_so_is_refused_and_a_log_so_named_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["identify", "photo.png", "--annotate", NOT_UTF8])
    assert "is not UTF-8 text" in capsys.readouterr().err
    log = tmp_path / NOT_UTF8.replace(".png", ".jsonl")
    shutil.copy(GOLDEN / "races.input.jsonl", log)
    assert main(["referee", str(log)]) == 0  # no OpenCV: Python reads any name


@pytest.mark.parametrize(
    ("arguments", "option", "values"),
    [
        (
            ["count", "s.png", "--backs", "A=a.png", "--backs", "B=b.png", "C=c.png"],
            "backs",
            ["A=a.png", "B=b.png", "C=c.png"],
        ),
        (
            ["count", "s.png", "--backs", "A=a.png", "--left", "A=2", "--left", "B=1"],
            "left",
            ["A=2", "B=1"],
        ),
        (
            ["count", "s.png", "--backs", "A=a.png", "--bonus", "A=10", "--bonus", "B=5"],
            "bonus",
            ["A=10", "B=5"],
        ),
        (
            ["identify", "p.png", "--backs", "A=a.png", "--backs", "B=b.png"],
            "backs",
            ["A=a.png", "B=b.png"],
        ),
        (["simulate", "--out", "v", "--backs", "red", "--backs", "blue"], "backs", ["red", "blue"]),
        (
            ["scores", "g.jsonl", "new", "--players", "Ann", "--players", "Bo"],
            "players",
            ["Ann", "Bo"],
        ),
    ],
)
def test_an_option_given_twice_keeps_both_values_not_the_last(
    arguments: list[str], option: str, values: list[str]
) -> None:
    # Keeping only the last '--left' scored a player's cards left as none, without a word.
    assert getattr(build_parser().parse_args(arguments), option) == values


def test_the_callers_bonus_reaches_round_ends_and_totals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "events.jsonl"
    log = str(GOLDEN / "game_to_target.input.jsonl")
    argv = ["referee", log, "--target", "20", "--caller-bonus", "10", "--out", str(out)]
    assert main(argv) == 0
    board = capsys.readouterr().out.splitlines()
    assert board[2] == "     0  red             8     0    10     8    18  <- Nerts!"
    ends = [json.loads(line) for line in out.read_text().splitlines() if "round_end" in line]
    assert [end["bonus"] for end in ends[:2]] == [
        {"0": 10, "1": 0, "2": 0},
        {"0": 0, "1": 10, "2": 0},
    ]


def test_warnings_say_warning_and_with_verbose_which_part_said_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "typo.jsonl"
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()
    log.write_text("\n".join([lines[0], lines[1].replace('"play"', '"plya"'), *lines[2:]]) + "\n")
    said = f"{log}:2: event type 'plya' is not one the referee knows"
    assert f"\nwarning: {said}" in "\n" + run(capsys, "referee", str(log))[2]
    assert f"\nWARNING nerts.eventlog: {said}" in "\n" + run(capsys, "-v", "referee", str(log))[2]


def test_ctrl_c_while_a_live_log_is_read_keeps_the_rounds_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import nerts.commands.referee as referee_command  # noqa: PLC0415  (patched where it reads)

    example = Path(__file__).parents[1] / "nerts" / "data" / "example_game.jsonl"
    lines = example.read_text().splitlines()
    second = [n for n, line in enumerate(lines, start=1) if '"round_start"' in line][1]

    def interrupted(path: Path, live: bool = False):  # type: ignore[no-untyped-def]
        # The player presses Ctrl-C while the second round is played.
        for number, event in read_numbered_events(path, live):
            if number > second + 10:
                raise KeyboardInterrupt
            yield number, event

    monkeypatch.setattr(referee_command, "read_numbered_events", interrupted)
    out_path = tmp_path / "refereed.jsonl"
    status, out, err = run(capsys, "referee", str(example), "--out", str(out_path))
    assert status == 130 and err.endswith("nerts: interrupted\n")
    assert out.startswith("Round 1 (") and "Round 2 (not scored" in out
    assert out.endswith(f"refereed events written to {out_path}\n")
    written = out_path.read_text().splitlines()
    assert '"round_end"' in "".join(written) and len(written) > second + 5


def test_an_empty_log_is_said_to_hold_no_events_and_makes_no_out_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, out = tmp_path / "empty.jsonl", tmp_path / "refereed.jsonl"
    log.write_text("\n\n")
    status, stdout, err = run(capsys, "referee", str(log), "--out", str(out))
    assert (status, stdout) == (2, "")
    assert err == f"nerts referee: error: {log} holds no events: nothing to referee\n"
    assert not out.exists()


@pytest.mark.parametrize(
    ("impossible", "warning"),
    [
        (
            '{"frame": 85, "t": 2.8333, "type": "take_back", "seat": 1, "card": "9C", '
            '"pile": "F0"}',
            "seat 1's take_back of 9C from pile F0 took back nothing (no such card of theirs lies "
            "on top of that pile): ignored",
        ),
        (  # a camera's misread: one game's refereeing must not end there
            '{"frame": 85, "t": 2.8333, "type": "play", "seat": 0, "card": "AH", "pile": "F3"}',
            "seat 0's AH played on pile F3 already lies on pile F0, and a deck holds each card "
            'once: ignored (a misread card? a joker played for it needs "joker": true)',
        ),
    ],
)
def test_an_impossible_event_is_warned_of_by_line_and_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], impossible: str, warning: str
) -> None:
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()
    log, out_path = tmp_path / "odd.jsonl", tmp_path / "out.jsonl"
    log.write_text("\n".join([*lines[:6], impossible, *lines[6:]]) + "\n")
    status, out, err = run(capsys, "referee", str(log), "--out", str(out_path))
    golden_log = str(GOLDEN / "races.input.jsonl")
    written = f"refereed events written to {out_path}\n"
    assert status == 0 and out == run(capsys, "referee", golden_log)[1] + written
    assert [line for line in err.splitlines() if line.startswith("warning: ")] == [
        f"warning: {log}:7: {warning}"
    ]
    # A take-back stays in the record as seen (it changes nothing); a play without a verdict
    # cannot be written (the contract gives every play one), so the repeated play is left out.
    assert (impossible in out_path.read_text()) == ('"take_back"' in impossible)
    # The golden log's own take-back (of a late 2H) is one the referee awaited: no warning.
    assert "warning" not in run(capsys, "referee", golden_log)[2]


def test_a_round_dealt_again_under_its_number_is_warned_of_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()
    again = lines[0].replace('"frame": 0, "t": 0.0', '"frame": 100, "t": 3.3333')
    log = tmp_path / "restarted.jsonl"
    log.write_text("\n".join([*lines[:8], again, *lines[8:]]) + "\n")
    status, out, err = run(capsys, "referee", str(log))
    assert status == 0 and out.count("Round 1 (") == 2
    assert [line for line in err.splitlines() if line.startswith("warning: ")] == [
        f"warning: {log}:9: round 1 is dealt after round 1 of the same game (a logger "
        "restarted?): refereed as a round of its own"
    ]
    # After the log's own game end, a round 1 begins a new game, whatever --target says.
    game_end = '{"frame": 95, "t": 3.1667, "type": "game_end", "winner": 0, "totals": {"0": 5}}'
    log.write_text("\n".join([*lines[:8], game_end, again, *lines[8:]]) + "\n")
    assert "is dealt after" not in run(capsys, "referee", str(log))[2]
    # The bundled example deals rounds 1 to 4 in turn: no warning.
    example = Path(__file__).parents[1] / "nerts" / "data" / "example_game.jsonl"
    assert "is dealt after" not in run(capsys, "referee", str(example))[2]


def test_a_tick_of_a_later_frame_decides_a_live_log_frame_without_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As `referee --help` advises a live log's writer: a line of its own type each frame."""
    referee = GameReferee()
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()[:2]  # the deal, then AH
    for line in lines:
        assert not [
            e for e in referee.feed(event_from_dict(json.loads(line))) if e.type_name == "play"
        ]
    tick = '{"frame": 31, "t": 1.0333, "type": "tick"}'
    decided = referee.feed(event_from_dict(json.loads(tick)))
    assert [e.to_dict()["verdict"] for e in decided if e.type_name == "play"] == ["accepted"]
    log = tmp_path / "ticks.jsonl"
    log.write_text("\n".join([*lines, tick]) + "\n")
    status, _, err = run(capsys, "referee", str(log))
    assert status == 0 and "warning" not in err


def test_ctrl_c_while_a_frame_is_judged_keeps_what_was_decided(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    example = Path(__file__).parents[1] / "nerts" / "data" / "example_game.jsonl"
    feed = GameReferee.feed
    fed = []

    def judging(self: GameReferee, event: Event) -> list[Event]:
        fed.append(event)
        if len(fed) == 60:  # the player presses Ctrl-C as a frame is judged
            raise KeyboardInterrupt
        return feed(self, event)

    monkeypatch.setattr(GameReferee, "feed", judging)
    status, out, err = run(capsys, "referee", str(example))
    assert status == 130 and err.endswith("nerts: interrupted\n")
    assert out.startswith("Round 1 (") and "(not scored" in out
