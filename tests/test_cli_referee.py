"""`nerts referee` end to end, in process: the events and scoreboard it writes, and a log's
faults named by their lines."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from nerts.cli import main
from tests.command_line import GOLDEN, run


def test_referee_writes_events_and_scoreboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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


def test_referee_own_output_gives_same_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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


def test_bad_line_names_file_and_line_and_keeps_what_was_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
    assert len(out.read_text().splitlines()) == 5  # every frame before the bad line, decided


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
    # Nor for a score sheet (a log's rounds are known as themselves: added again when whole,
    # only its new rounds are added); here no round has ended yet.
    refereed = tmp_path / "refereed.jsonl"
    assert run(capsys, "referee", str(GOLDEN / "races.input.jsonl"), "--out", str(refereed))[0] == 0
    cut = tmp_path / "cut.jsonl"
    cut.write_text(refereed.read_text()[:-20])
    game = tmp_path / "game.jsonl"
    assert run(capsys, "scores", str(game), "new", "--players", "A", "B", "C")[0] == 0
    status, _, err = run(capsys, "scores", str(game), "add", "--from", str(cut))
    assert status == 2 and err.splitlines() == [
        f"warning: {cut}:16: the last line is cut short (a log still being written, or its "
        "writer stopped): left out",
        f"nerts scores: error: {cut}: no round ended in this log (it stops before a valid Nerts "
        "call or a final stuck): nothing to add yet",
    ]


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
    padded = tmp_path / "padded.mp4"  # blank lines before the binary data hide nothing
    padded.write_bytes(b"\n \n" + video.read_bytes())
    photo = tmp_path / "count.png"  # its first line holds no NUL byte
    assert cv2.imwrite(str(photo), np.full((8, 8, 3), 200, np.uint8))
    assert b"\0" not in photo.read_bytes().split(b"\n")[0]
    for binary in (video, padded, photo):
        status, _, err = run(capsys, "referee", str(binary))
        assert status == 2 and err.endswith(
            f"error: {binary}: not a log of table events but binary data (a video or a picture? "
            "Footage is not yet followed into events: referee a log of them, such as the "
            f"truth.jsonl 'nerts simulate' writes beside its video); {said}\n"
        )
    powershell = tmp_path / "ps.jsonl"
    powershell.write_bytes((GOLDEN / "races.input.jsonl").read_text().encode("utf-16"))
    status, _, err = run(capsys, "referee", str(powershell))
    assert status == 2 and err.endswith(
        f"error: {powershell} is UTF-16 text: save it as UTF-8; {said}\n"
    )
    endless = tmp_path / "endless.jsonl"  # as /dev/zero is: refused, not read into memory
    endless.write_bytes((GOLDEN / "races.input.jsonl").read_bytes() + b"x" * ((1 << 20) + 1))
    status, _, err = run(capsys, "referee", str(endless))
    assert status == 2 and err.endswith(
        f"error: {endless}:17: a line longer than 1 MB: not a log of table events; {said}\n"
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


def test_not_json_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
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


PLAY_BEFORE_ROUND = '{"frame": 5, "t": 0.1, "type": "play", "seat": 0, "card": "AD", "pile": "F0"}'


BROKEN_LINES = {
    "a play before any round": (PLAY_BEFORE_ROUND, "play at frame 5 comes before any round_start"),
    "nested too deeply": ("[" * 100_000, ":1: JSON nested too deeply"),
    "a number too long": ('{"frame": ' + "9" * 5000 + "}", ":1: a number in it is too long"),
}


@pytest.mark.parametrize("case", BROKEN_LINES)
def test_referee_names_lines_it_cannot_use(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
    ("lines", "where", "status"),
    [  # a stranger's play is ignored with a warning; a play before any deal is refused
        ([ROUND_OF_TWO, STRANGER, STUCK, STUCK], ":2: play at frame 5: seat 7 is not at the", 0),
        ([ROUND_OF_TWO, STRANGER], ":2: play at frame 5: seat 7 is not at the", 0),
        ([PLAY_BEFORE_ROUND, STUCK], ":1: play at frame 5 comes before any round_start", 2),
    ],
)
def test_referee_names_the_line_of_the_event_at_fault(
    lines: list[str], where: str, status: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The referee decides a frame once the next begins, after reading the next line."""
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(lines) + "\n")
    told, _, err = run(capsys, "referee", str(log))
    assert told == status and f"{log}{where}" in err


def test_a_log_saved_with_a_byte_order_mark_reads_as_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
def test_referee_refuses_a_box_url_without_a_port(
    capsys: pytest.CaptureFixture[str], url: str, said: str
) -> None:
    races = str(GOLDEN / "races.input.jsonl")
    status, _, err = run(capsys, "referee", races, "--box", url)
    assert status == 2 and said in err


def test_the_callers_bonus_reaches_round_ends_and_totals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "events.jsonl"
    log = str(GOLDEN / "game_to_target.input.jsonl")
    argv = ["referee", log, "--target", "20", "--caller-bonus", "10", "--out", str(out)]
    assert main(argv) == 0
    board = capsys.readouterr().out.splitlines()
    assert board[2] == "     0  red             8     0    10    18    18  <- Nerts!"
    ends = [json.loads(line) for line in out.read_text().splitlines() if "round_end" in line]
    assert [end["bonus"] for end in ends[:2]] == [
        {"0": 10, "1": 0, "2": 0},
        {"0": 0, "1": 10, "2": 0},
    ]


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
        (
            '{"frame": 85, "t": 2.8333, "type": "play", "seat": 9, "card": "3S", "pile": "F0"}',
            "play at frame 85: seat 9 is not at the table (round 1 has seats 0, 1, 2): "
            "ignored (a misread?)",
        ),
        (
            '{"frame": 85, "t": 2.8333, "type": "nerts_count", "seat": 2, "remaining": 14}',
            "nerts_count at frame 85: seat 2 has 14 cards left of a 13-card Nerts pile: "
            "ignored (a misread?)",
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


@pytest.mark.parametrize(
    "broken",
    [
        '{"frame": 86, "t": 2.8667, "type": "play", "seat": 0',  # cut short mid-file
        '{"frame": 3, "t": 0.1, "type": "stuck"}',  # out of frame order
    ],
)
def test_a_line_that_stops_the_log_keeps_every_frame_before_it_decided(
    broken: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As at the log's end, or at Ctrl-C: the frames read before the bad line are decided and
    written to --out, then the line is told."""
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()
    before, whole = tmp_path / "before.jsonl", tmp_path / "whole.jsonl"
    before.write_text("\n".join(lines[:7]) + "\n")
    whole.write_text("\n".join([*lines[:7], broken, *lines[7:]]) + "\n")
    kept, expected = tmp_path / "kept.jsonl", tmp_path / "expected.jsonl"
    status, out, err = run(capsys, "referee", str(whole), "--out", str(kept))
    assert (status, out) == (2, "") and f"{whole}:8: " in err.splitlines()[-1]
    assert run(capsys, "referee", str(before), "--out", str(expected))[0] == 0
    assert kept.read_text() == expected.read_text() and len(expected.read_text().splitlines()) > 5


def test_an_extension_key_in_another_form_is_warned_of_once_and_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another tool's "joker": 1 is not refused (the contract has readers ignore keys they do
    not know), nor taken for a joker: warned of once, by its first line, and written back."""
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()
    marked = [line.replace('"pile": "F0"}', '"pile": "F0", "joker": 1}') for line in lines]
    log, out_path = tmp_path / "marked.jsonl", tmp_path / "out.jsonl"
    log.write_text("\n".join(marked) + "\n")
    status, out, err = run(capsys, "referee", str(log), "--out", str(out_path))
    assert (status, out.splitlines()[:-1]) == (
        0,
        run(capsys, "referee", str(GOLDEN / "races.input.jsonl"))[1].splitlines(),
    )
    assert [line for line in err.splitlines() if line.startswith("warning: ")] == [
        f"warning: {log}:2: play's 'joker' is not in the form this referee writes it: taken "
        "for another tool's key, and not judged"
    ]
    assert out_path.read_text().count('"joker": 1') == sum('"joker": 1' in line for line in marked)


def test_a_log_of_no_type_the_referee_knows_is_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool writing the types in capitals: each is told as a slip, and the whole log too."""
    events = [json.loads(line) for line in (GOLDEN / "races.input.jsonl").read_text().splitlines()]
    for event in events:
        event["type"] = event["type"].upper()
    events[0]["type"] = "Round_Start"
    log = tmp_path / "capitals.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in events))
    status, _, err = run(capsys, "referee", str(log))
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert status == 0 and warnings[:2] == [
        f"warning: {log}:1: event type 'Round_Start' is not one the referee knows, so every event "
        "of it is ignored: did you mean 'round_start'?",
        f"warning: {log}:2: event type 'PLAY' is not one the referee knows, so every event of it "
        "is ignored: did you mean 'play'?",
    ]
    assert len(warnings) == len({event["type"] for event in events}) + 1
    assert warnings[-1] == (
        f"warning: {log}: no event in it is of a type the referee knows (game_end, nerts_call, "
        "nerts_count, pile_complete, play, round_end, round_start, stuck, take_back): nothing was "
        "refereed"
    )


def test_a_log_stopped_early_is_not_said_to_hold_no_known_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "stopped.jsonl"
    log.write_text('{"frame": 0, "t": 0.0, "type": "tick"}\n{oops\n' + RACES_DEAL + "\n")
    status, _, err = run(capsys, "referee", str(log))
    assert status == 2 and "no event in it is of a type the referee knows" not in err
    assert err.splitlines()[-1].startswith(f"nerts referee: error: {log}:2: not valid JSON")


RACES_DEAL = (GOLDEN / "races.input.jsonl").read_text().splitlines()[0]
