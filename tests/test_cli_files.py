"""What the commands write never spoils a file the user keeps: a score sheet, notes, a photo."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nerts.cli import main
from nerts.commands import simulate
from nerts.sheets import load_sheet

GOLDEN = Path(__file__).parent / "golden"
RACES = GOLDEN / "races.input.jsonl"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    return status, capsys.readouterr().err


@pytest.mark.parametrize(
    ("kept", "said"),
    [
        (
            '{"type": "game", "players": {"0": "Anna", "1": "Ben"}, "target": 100}\n',
            "is a score sheet ('nerts scores')",
        ),
        ("shopping: milk, eggs\n", "is no log of table events"),
        ("\n\n" + "x" * 100, "is no log of table events"),  # its first line is not blank
        ("\ufeff[1, 2]\n", "is no log of table events"),
    ],
)
def test_referee_out_refuses_to_replace_a_file_of_another_kind(
    kept: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "club.jsonl"
    out.write_text(kept)
    status, err = run(capsys, "referee", str(RACES), "--out", str(out))
    assert status == 2
    assert err.splitlines()[-1] == (
        f"nerts referee: error: {out} {said}: writing the events would replace it; name "
        "another file, or remove it first"
    )
    assert out.read_text() == kept


def test_referee_out_replaces_its_own_earlier_output_and_an_empty_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "events.jsonl"
    out.write_text("\n \n")
    assert run(capsys, "referee", str(RACES), "--out", str(out))[0] == 0
    first = out.read_text()
    out.write_text(first + first)  # an earlier run's output, whatever its length
    assert run(capsys, "referee", str(RACES), "--out", str(out))[0] == 0
    assert out.read_text() == first and first.count("\n") == 16


def test_a_log_file_is_never_written_into_a_file_of_another_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text(RACES.read_text())
    status, err = run(capsys, "--log-file", str(events), "referee", str(RACES))
    assert status == 2 and err.splitlines()[-1] == (
        f"nerts: error: --log-file {events} holds something other than a nerts log, which the "
        "log would be appended to: name another file"
    )
    assert events.read_text() == RACES.read_text()


def test_a_log_file_is_never_a_file_the_command_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new.jsonl"
    status, err = run(capsys, "--log-file", str(out), "referee", str(RACES), "--out", str(out))
    assert status == 2 and err.splitlines()[-1] == (
        f"nerts: error: --log-file {out} is also a file the command is given ({out}): name "
        "another file for the log"
    )
    assert not out.exists()
    deck = tmp_path / "deck"
    arguments = ["simulate", "--out", str(tmp_path / "sim"), "--deck", str(deck), "-v"]
    status, err = run(capsys, *arguments, "--log-file", str(tmp_path / "." / "deck"))
    assert status == 2 and f"is also a file the command is given ({deck})" in err


def test_a_loop_of_links_is_said_as_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ln -s loop loop`: Python's resolve raises on it, which had ended runs in a traceback."""
    loop = tmp_path / "loop"
    loop.symlink_to(loop.name)
    status, err = run(capsys, "--log-file", str(loop), "referee", str(RACES))
    assert (
        status == 2
        and err == f"nerts: error: cannot write {loop}: Too many levels of symbolic links\n"
    )
    status, err = run(capsys, "referee", str(RACES), "--out", str(loop))
    assert status == 2 and err.endswith(f"cannot write {loop}: Too many levels of symbolic links\n")
    status, err = run(capsys, "count", str(loop), "--backs", f"a={RACES}")
    assert status == 2
    assert err == (
        f"nerts count: error: image not found: {loop} (symbolic links leading round in a loop)\n"
    )
    nowhere = tmp_path / "nowhere.png"
    nowhere.symlink_to("gone.png")
    status, err = run(capsys, "count", str(nowhere), "--backs", f"a={RACES}")
    assert (
        err == f"nerts count: error: image not found: {nowhere} (a symbolic link leading nowhere)\n"
    )


def test_a_pipe_is_no_score_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Reading a named pipe with no writer would wait for ever."""
    pipe = tmp_path / "club.jsonl"
    os.mkfifo(pipe)
    for command in (["show"], ["add", "A=1", "B=2"]):
        status, err = run(capsys, "scores", str(pipe), *command)
        assert status == 2 and err == (
            f"nerts scores: error: {pipe} is not a regular file: a score sheet is a file rounds "
            "are added to\n"
        )


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["simulate", "--seconds", "1", "--no-video"], "truth.jsonl"),
        (["simulate", "--seconds", "1"], "video.mp4"),
        (["demo"], "events.jsonl"),
        (["demo", "--example"], "events.jsonl"),
    ],
)
def test_a_log_file_is_never_a_file_the_command_writes_in_its_out_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], name: str
) -> None:
    """Both would write the one file: truth.jsonl turned into log lines and events."""
    out = tmp_path / "o6"
    log_file = out / name
    status, err = run(capsys, *command, "--out", str(out), "--log-file", str(log_file))
    assert status == 2 and err.splitlines()[-1] == (
        f"nerts: error: --log-file {log_file} is also a file the command writes ({log_file}): "
        "name another file for the log"
    )
    assert not out.exists()


def test_a_log_file_gathers_the_runs_logged_to_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "runs.log"
    for run_number in (1, 2):
        arguments = ["--log-file", str(log), "demo", "--example", "--out", str(tmp_path)]
        assert run(capsys, *arguments)[0] == 0
        lines = log.read_text().splitlines()
        said = [line for line in lines if " DEBUG " not in line]
        assert len(said) == run_number
        assert said[-1].endswith(
            f"INFO nerts.eventlog: wrote 101 events to {tmp_path}/events.jsonl"
        )
        # and at debug level, every event the referee decided
        assert sum(" DEBUG nerts.commands.referee: decided: " in line for line in lines) == (
            101 * run_number
        )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_log_file_that_cannot_be_written_is_said_once_and_fails_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["--log-file", "/dev/full", "demo", "--example", "--out", str(tmp_path)]
    status, err = run(capsys, *arguments)
    assert status == 1
    assert err == "nerts: error: cannot write the log file /dev/full: No space left on device\n"
    assert (tmp_path / "events.jsonl").read_text().count("\n") == 101  # the work itself is kept


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_sheet_changed_though_its_output_cannot_be_written_says_so(tmp_path: Path) -> None:
    """Run again, the round would be added twice."""
    sheet = tmp_path / "club.jsonl"
    assert main(["scores", str(sheet), "new", "--players", "A", "B"]) == 0
    command = [sys.executable, "-m", "nerts", "scores", str(sheet), "add", "A=3", "B=1"]
    with open("/dev/full", "w") as full:
        done = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True, check=False)
    assert (done.returncode, done.stderr) == (
        1,
        f"error: cannot write the output (No space left on device), but the add is on {sheet} "
        f"all the same: run again, it would be made twice ('nerts scores {sheet}' shows the "
        "sheet)\n",
    )
    assert load_sheet(sheet).rounds == [{0: 3, 1: 1}]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_events_that_cannot_be_written_name_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    """A full disk is the machine's state, not the user's mistake: status 1, as documented."""
    status, err = run(capsys, "referee", str(RACES), "--out", "/dev/full")
    assert status == 1
    assert err == "nerts referee: error: cannot write /dev/full: No space left on device\n"


def test_a_demo_stopped_while_filming_leaves_no_verdicts_of_an_earlier_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def stopped(args: object) -> int:
        raise KeyboardInterrupt

    events = tmp_path / "events.jsonl"
    events.write_text(RACES.read_text())
    monkeypatch.setattr(simulate, "run", stopped)
    assert run(capsys, "demo", "--out", str(tmp_path))[0] == 130
    assert not events.exists()


WAITING_SHOWN_S = 1.5
"""How long a command is given to show it waits for a sheet another process is changing."""


def test_a_sheet_another_process_is_changing_is_waited_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "club.jsonl"
    assert run(capsys, "scores", str(game), "new", "--players", "Anna", "Ben")[0] == 0
    command = [sys.executable, "-m", "nerts", "scores", str(game), "add", "Anna=3", "Ben=1"]
    with game.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        adding = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(WAITING_SHOWN_S)
        assert adding.poll() is None and load_sheet(game).rounds == []
        with game.open("a") as sheet:  # a round added by the process holding the sheet
            sheet.write('{"type": "round", "scores": {"Anna": 1, "Ben": 2}}\n')
    assert adding.wait(timeout=120) == 0, adding.communicate()[1]
    assert load_sheet(game).rounds == [{0: 1, 1: 2}, {0: 3, 1: 1}]


def test_a_sheet_started_by_another_process_meanwhile_is_not_started_again(
    tmp_path: Path,
) -> None:
    game = tmp_path / "club.jsonl"
    game.touch()  # as the other start leaves it until it writes: empty, and held
    command = [sys.executable, "-m", "nerts", "scores", str(game), "new", "--players", "A", "B"]
    with game.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        starting = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(WAITING_SHOWN_S)
        assert starting.poll() is None and game.read_text() == ""
        game.write_text('{"type": "game", "players": {"0": "Cleo", "1": "Dan"}, "target": 100}\n')
    _, err = starting.communicate(timeout=120)
    assert starting.returncode == 2 and b"already exists" in err
    assert list(load_sheet(game).players.values()) == ["Cleo", "Dan"]


def test_referee_reads_a_log_piped_in_and_names_its_lines(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "nerts", "referee", "-", "--out", str(tmp_path / "ev.jsonl")]
    done = subprocess.run(
        command, input=RACES.read_text(), capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "ev.jsonl").read_text() == (GOLDEN / "races.expected.jsonl").read_text()
    # A live log's players hear what matters as it is decided, before the scoreboard.
    told = done.stdout.splitlines()[:6]
    assert told == [
        "    2.1 s  frame     62: seat 2's 2H on F0: late",
        "    3.0 s  frame     90: seat 0's 3H on F0: tie",
        "    3.0 s  frame     90: seat 2's 3H on F0: tie",
        "    5.0 s  frame    151: seat 1's 2S on F1: late",
        "    5.1 s  frame    153: seat 2's 2S on F1: late",
        "Round 1 (not scored: no valid Nerts call and no final stuck by the log's end, frame 171, "
        "5.7 s)",
    ]
    bad = RACES.read_text() + "{oops\n"
    done = subprocess.run(
        command, input=bad, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2 and done.stderr.endswith(
        "nerts referee: error: <stdin>:17: not valid JSON (Expecting property name enclosed in "
        "double quotes)\n"
    )


def test_a_live_logs_decided_frames_reach_out_at_once(tmp_path: Path) -> None:
    """A tool following --out sees each frame once it is decided, not when the run ends."""
    out = tmp_path / "ev.jsonl"
    command = [sys.executable, "-m", "nerts", "referee", "-", "--out", str(out)]
    lines = RACES.read_text().splitlines(keepends=True)[:3]  # the deal, AH, a count
    with subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdin is not None
        process.stdin.write("".join(lines).encode())
        process.stdin.flush()
        deadline = time.monotonic() + 60
        while len(out.read_text().splitlines()) < 2 if out.exists() else True:
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.1)
        decided = out.read_text().splitlines()  # the deal and AH: the count's frame is open
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    assert decided == (GOLDEN / "races.expected.jsonl").read_text().splitlines()[:2]


def test_referee_out_is_never_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["referee", str(RACES), "--out", "-"])
    assert capsys.readouterr().err.splitlines()[-1] == (
        "nerts referee: error: argument --out: '-' would be standard output, where the "
        "scoreboard is printed: name a file"
    )


def test_referee_out_is_kept_when_the_log_cannot_be_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "events.jsonl"
    assert run(capsys, "referee", str(RACES), "--out", str(out))[0] == 0
    written = out.read_text()
    sheet = tmp_path / "club.jsonl"
    assert run(capsys, "scores", str(sheet), "new", "--players", "Anna", "Ben")[0] == 0
    for wrong in (tmp_path / "typo.jsonl", sheet):
        status, err = run(capsys, "referee", str(wrong), "--out", str(out))
        assert status == 2 and str(wrong) in err.splitlines()[-1]
        assert out.read_text() == written


def test_keys_a_tool_adds_survive_refereeing_file_to_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tracker's diagnostics, on a play too (whose line the writer formats by hand)."""
    seats = [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}]
    given = [
        {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "seats": seats,
         "nerts_pile": 13, "camera": "c1"},
        {"frame": 3, "t": 0.1, "type": "play", "seat": 0, "card": "AH", "pile": "F0",
         "track": 7},
        {"frame": 4, "t": 0.2, "type": "play", "seat": 1, "card": "2H", "pile": "F0"},
        {"frame": 5, "t": 0.3, "type": "nerts_call", "seat": 1, "why": {"score": 0.4}},
    ]  # fmt: skip
    log, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in given))
    status, _ = run(capsys, "referee", str(log), "--out", str(out))
    assert status == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert written == [
        given[0],
        {**given[1], "verdict": "accepted"},
        {**given[2], "verdict": "accepted"},
        {**given[3], "valid": False},
    ]
    assert list(written[1])[-2:] == ["verdict", "track"]  # the event's own keys first


"""A name no file system takes (255 bytes at most): it was an OSError's traceback."""


def test_a_terminal_without_utf8_shows_a_players_letters_escaped() -> None:
    """On an ASCII terminal a letter it cannot show is escaped, as a name's stray byte is."""
    done = subprocess.run(
        [sys.executable, "-m", "nerts", "scores", "\u0141ukasz.jsonl", "add", "A=1"],
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
    )
    assert done.returncode == 2
    assert done.stderr.startswith(b"nerts scores: error: ")
    assert b"\\u0141ukasz.jsonl" in done.stderr
