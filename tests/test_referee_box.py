"""`nerts referee --box`: the verdicts of a log reach the box emulator, in order."""

from __future__ import annotations

import errno
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import pytest

from hardware.device import BoxDevice
from hardware.emulator import PtyEmulator
from hardware.faults import FaultPlan, FaultyDevice
from nerts.cli import main
from nerts.commands.referee import referee_log
from referee.events import Event, NertsCall, RoundEnd, RoundStart
from referee.options import RuleOptions

GOLDEN = Path(__file__).parent / "golden"


def referee_on_box(plan: FaultPlan, log: Path, *options: str) -> tuple[int, BoxDevice]:
    """`nerts referee LOG OPTIONS --box` on an emulated box behind a link faulty as `plan`
    says: the exit status, and the box."""
    device = BoxDevice()
    emulator = PtyEmulator(FaultyDevice(device, plan))
    emulator.start()
    try:
        return main(["referee", str(log), *options, "--box", emulator.url]), device
    finally:
        emulator.close()


def test_referee_announces_on_the_box(capsys: pytest.CaptureFixture[str]) -> None:
    device = BoxDevice()
    emulator = PtyEmulator(FaultyDevice(device, FaultPlan()))
    emulator.start()
    try:
        log = GOLDEN / "races.input.jsonl"
        assert main(["referee", str(log), "--box", emulator.url]) == 0
    finally:
        emulator.close()
    capsys.readouterr()
    executed = [c for c in device.executed if not c.startswith("HELLO")]
    # races: one late 2H (seat 2), then two late 2S (seats 1 and 2); no round ends.
    assert [c for c in executed if c.startswith("BUZZ")] == ["BUZZ LATE"] * 3
    assert [c for c in executed if c.startswith("LIGHT") and "FF0000" in c] == [
        "LIGHT 2 FF0000",
        "LIGHT 1 FF0000",
        "LIGHT 2 FF0000",
    ]
    assert device.state.lights[1].colour == "FF0000"


def test_game_end_reaches_the_box(capsys: pytest.CaptureFixture[str]) -> None:
    device = BoxDevice()
    emulator = PtyEmulator(FaultyDevice(device, FaultPlan()))
    emulator.start()
    try:
        log = GOLDEN / "game_to_target.input.jsonl"
        assert main(["referee", str(log), "--target", "20", "--box", emulator.url]) == 0
    finally:
        emulator.close()
    capsys.readouterr()
    assert device.state.scores == {0: 21, 1: 7, 2: 16}
    assert [c for c in device.executed if c.startswith("NERTS")] == [
        "NERTS 0",
        "NERTS 1",
        "NERTS 0",
        "NERTS 2",
    ]
    assert device.executed[-1].startswith("SHOW") and "Seat 0 wins" in device.executed[-1]


@pytest.mark.parametrize("call_first", [False, True])
def test_a_stuck_in_a_valid_calls_frame_buzzes_nothing_whatever_its_line(
    tmp_path: Path, call_first: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """The call is judged first, so the second stuck ends nothing: the box, told in the log's
    order, is not told of it either."""
    seats = [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}]
    call, stuck = (
        {"frame": 9, "t": 0.3, "type": "nerts_call", "seat": 0},
        {"frame": 9, "t": 0.3, "type": "stuck"},
    )
    lines = [
        {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "seats": seats, "nerts_pile": 13},
        {"frame": 4, "t": 0.13, "type": "nerts_count", "seat": 0, "remaining": 0},
        {"frame": 5, "t": 0.17, "type": "stuck"},
        *([call, stuck] if call_first else [stuck, call]),
    ]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    status, device = referee_on_box(FaultPlan(), log)
    assert status == 0
    capsys.readouterr()
    buzzes = [command for command in device.executed if command.startswith(("BUZZ", "NERTS"))]
    assert buzzes == ["BUZZ STUCK", "NERTS 0", "BUZZ ROUND"]


def test_referee_exits_1_when_the_box_was_not_told_everything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The scoreboard is printed all the same; the status says the players were not told."""
    log = GOLDEN / "races.input.jsonl"
    assert main(["referee", str(log), "--box", "socket://127.0.0.1:1", "--box-wait", "0.3"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("Round 1 (not scored")
    assert "box: 9 announcements never delivered: RESET; SHOW Round 1; BUZZ LATE;" in err
    # One line says the box was never reached, and how to check it; no word of a slow box.
    assert err.endswith(
        "(the box was never reached: is it plugged in, or its emulator running? 'nerts box test "
        "--port socket://127.0.0.1:1' checks it)\n"
    )
    assert "not all announcements acknowledged" not in err


def test_referee_exits_1_when_the_box_lacks_a_seat_told_of(
    capsys: pytest.CaptureFixture[str],
) -> None:
    device = BoxDevice(seats=2)  # the races light seat 2
    emulator = PtyEmulator(FaultyDevice(device, FaultPlan()))
    emulator.start()
    try:
        assert main(["referee", str(GOLDEN / "races.input.jsonl"), "--box", emulator.url]) == 1
    finally:
        emulator.close()
    out, err = capsys.readouterr()
    assert out.startswith("Round 1 (not scored")
    assert "LIGHT 2 FF0000" in err and "LIGHT 2 FF0000" not in device.executed


def test_a_noisy_link_tells_everything_given_time(capsys: pytest.CaptureFixture[str]) -> None:
    """The emulator's own example of a bad cable: 2% of bytes corrupted, 2% of replies lost,
    a reset every 20 commands."""
    plan = FaultPlan(corrupt_rate=0.02, lose_reply_rate=0.02, reset_every=20, seed=0)
    game = GOLDEN / "game_to_target.input.jsonl"
    status, device = referee_on_box(plan, game, "--target", "20", "--box-wait", "60")
    assert status == 0
    capsys.readouterr()
    assert device.state.scores == {0: 21, 1: 7, 2: 16}
    assert "Seat 0 wins" in device.executed[-1]


def test_a_box_resetting_every_few_commands_is_shown_again_without_end(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A reset every 5 commands, fewer than the box's lights, scores and display take: each
    batch sent again is cut short, and after a few in a row the announcer says so and stops
    (a batch a reset had made 10,373 commands of a 36-command game, and never caught up)."""
    game = GOLDEN / "game_to_target.input.jsonl"
    status, device = referee_on_box(FaultPlan(reset_every=5), game, "--target", "20")
    assert status == 0
    assert "resets every few commands (a loose cable or power?)" in capsys.readouterr().err
    assert len(device.executed) < 3 * 37  # 75 here


@pytest.mark.parametrize("value", ["nan", "-1", "1e9", "soon"])
def test_box_wait_takes_seconds(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["referee", str(GOLDEN / "races.input.jsonl"), "--box-wait", value])
    err = capsys.readouterr().err
    assert f"argument --box-wait: give seconds from 0 to 3600, e.g. 10; got {value!r}" in err


def test_box_wait_without_a_box_is_said_to_need_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["referee", str(GOLDEN / "races.input.jsonl"), "--box-wait", "3"]) == 2
    assert capsys.readouterr().err == (
        "nerts referee: error: --box-wait is how long to wait for the box: give its --box too\n"
    )


def _line(frame: int, kind: str, **keys: object) -> str:
    return json.dumps({"frame": frame, "t": frame / 30, "type": kind, **keys}) + "\n"


TWO_SEATS = [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}]
BUTTON_LOG = [
    _line(0, "round_start", round=1, seats=TWO_SEATS, nerts_pile=13),
    _line(5, "nerts_count", seat=0, remaining=0),
    _line(6, "tick"),
    _line(40, "tick"),
]
"""Seat 0's Nerts pile empties at frame 5; nobody calls in the log: the buttons do."""


class _PressedBox:
    """Stands in for `BoxAnnouncer`: `presses[n]` are the seats whose buttons were pressed
    before the referee looked the nth time (it looks as each new frame begins, and at the
    log's end)."""

    def __init__(self, presses: dict[int, list[int]]) -> None:
        self.presses = presses
        self.looked = 0
        self.announced: list[dict[str, object]] = []

    def __enter__(self) -> _PressedBox:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def announce(self, event: dict[str, object]) -> None:
        self.announced.append(event)

    def button_presses(self) -> list[int]:
        self.looked += 1
        return self.presses.get(self.looked, [])


def _refereed(
    tmp_path: Path, lines: list[str], presses: dict[int, list[int]]
) -> tuple[list[Event], _PressedBox]:
    log = tmp_path / "live.jsonl"
    log.write_text("".join(lines))
    box = _PressedBox(presses)
    # A file stands in for a live log: the buttons are pressed as it is read.
    decided = referee_log(log, tmp_path / "out.jsonl", RuleOptions(), box, live=True)  # type: ignore[arg-type]
    return decided, box


def _calls(decided: list[Event]) -> list[tuple[int, int, bool | None]]:
    return [(e.frame, e.seat, e.valid) for e in decided if isinstance(e, NertsCall)]


def test_a_nerts_button_is_its_seats_call_in_the_frame_being_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Seat 1 presses while frame 0 is read (its pile is full: not valid), seat 5 is not at
    the table (warned, ignored), seat 0 presses while frame 6 is read, its pile empty: the
    round ends. Each call is written to --out and told to the box."""
    decided, box = _refereed(tmp_path, BUTTON_LOG, {2: [1, 5], 4: [0]})
    assert _calls(decided) == [(0, 1, False), (6, 0, True)]
    (end,) = [e for e in decided if isinstance(e, RoundEnd)]
    assert end.scores == {0: 0, 1: -26} and end.frame == 6
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [(e["frame"], e["seat"], e["valid"]) for e in written if e["type"] == "nerts_call"] == [
        (0, 1, False),
        (6, 0, True),
    ]
    assert [e["type"] for e in box.announced].count("nerts_call") == 2
    assert (
        "seat 5 pressed its Nerts! button at frame 0, but the round has seats 0, 1" in caplog.text
    )


def test_a_press_belongs_to_the_frame_read_while_the_next_line_was_awaited(
    tmp_path: Path,
) -> None:
    """A log without a line every frame: seat 0 presses after its pile emptied at frame 5,
    the next line is round 2's deal at frame 900. The call ends round 1 (it is not judged in
    round 2, where seat 0 holds 13 cards); a press after the last line counts too."""
    lines = [*BUTTON_LOG[:2], _line(900, "round_start", round=2, seats=TWO_SEATS, nerts_pile=13)]
    decided, _ = _refereed(tmp_path, lines, {3: [0], 4: [1]})
    assert _calls(decided) == [(5, 0, True), (900, 1, False)]
    ends = [e for e in decided if isinstance(e, RoundEnd)]
    assert [(end.round, end.scores) for end in ends] == [(1, {0: 0, 1: -26})]


def test_a_press_is_checked_against_the_seats_of_its_whole_frame(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A deal on the frame's last line leaves seat 2 out: its press is warned of, and the
    log refereed on (it had stopped the whole run, naming an unrelated line)."""
    three = [*TWO_SEATS, {"seat": 2, "back": "green"}]
    lines = [
        _line(0, "round_start", round=1, seats=three, nerts_pile=13),
        _line(10, "tick"),
        _line(10, "round_start", round=2, seats=TWO_SEATS, nerts_pile=13),
        _line(11, "tick"),
    ]
    decided, _ = _refereed(tmp_path, lines, {3: [2]})
    assert _calls(decided) == []
    assert [e.round for e in decided if isinstance(e, RoundStart)] == [1, 2]
    assert (
        "seat 2 pressed its Nerts! button at frame 10, but the round has seats 0, 1" in caplog.text
    )


def test_a_button_before_any_deal_is_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    lines = [_line(0, "tick"), _line(3, "round_start", round=1, seats=TWO_SEATS, nerts_pile=13)]
    decided, _ = _refereed(tmp_path, lines, {1: [0], 2: [1]})
    assert _calls(decided) == []
    assert "seat 0 pressed its Nerts! button before the log began: ignored" in caplog.text
    assert "seat 1 pressed its Nerts! button at frame 0, but no deal yet: ignored" in caplog.text


def test_a_button_pressed_while_a_recorded_log_is_refereed_is_told_and_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A recorded log is read far faster than it was played: a press would land on whichever
    frame the reader had got to."""
    log = tmp_path / "recorded.jsonl"
    log.write_text("".join(BUTTON_LOG))
    box = _PressedBox({1: [0, 1]})
    decided = referee_log(log, None, RuleOptions(), box)  # type: ignore[arg-type]
    assert _calls(decided) == []
    assert not any(isinstance(e, RoundEnd) for e in decided)
    assert (
        f"Nerts! buttons pressed (seat 0, 1) while the recorded log {log} was refereed: ignored"
        in caplog.text
    )


def test_a_button_pressed_on_the_emulated_box_calls_nerts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end: a live log through a FIFO, the button pressed on the emulator once the
    pile is empty; the box plays the fanfare for seat 0."""
    fifo, out, log_file = tmp_path / "live.fifo", tmp_path / "out.jsonl", tmp_path / "run.log"
    os.mkfifo(fifo)
    device = BoxDevice()
    emulator = PtyEmulator(FaultyDevice(device, FaultPlan()))
    emulator.start()
    argv = ["--log-file", str(log_file), "referee", str(fifo), "--box", emulator.url]
    status: list[int] = []
    runner = threading.Thread(target=lambda: status.append(main([*argv, "--out", str(out)])))
    runner.start()
    try:
        with _opened_for_writing(fifo) as writer:
            writer.writelines(BUTTON_LOG[:2])
            writer.flush()
            _wait_for(lambda: device.state.display == "Round 1")
            emulator.press_button(0)
            _wait_for(lambda: "Nerts! button of seat 0" in log_file.read_text())
            writer.writelines(BUTTON_LOG[2:])
        runner.join(timeout=60)
    finally:
        emulator.close()
    capsys.readouterr()
    assert status == [0]
    assert "NERTS 0" in device.executed
    written = [json.loads(line) for line in out.read_text().splitlines()]
    calls = [event for event in written if event["type"] == "nerts_call"]
    assert [(c["frame"], c["seat"], c["valid"]) for c in calls] == [(5, 0, True)]


def _opened_for_writing(fifo: Path, seconds: float = 20.0) -> TextIO:
    """The FIFO opened for writing once the referee has opened it for reading; a plain open
    would wait forever should the referee stop before opening it."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:  # ENXIO: no reader yet
            assert error.errno == errno.ENXIO and time.monotonic() < deadline, error
            time.sleep(0.02)
            continue
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "w")


def _wait_for(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_box_that_is_a_file_or_folder_is_refused_at_once(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A device not plugged in yet is waited for; a file or folder never becomes one."""
    port = tmp_path / "box"
    port.write_text("") if kind == "file" else port.mkdir()
    assert main(["referee", str(GOLDEN / "races.input.jsonl"), "--box", str(port)]) == 2
    assert capsys.readouterr().err == (
        f"nerts referee: error: --box '{port}' is a {kind}, not a serial device (a USB box is "
        "usually /dev/ttyUSB0 or /dev/ttyACM0; --box auto looks for it)\n"
    )
