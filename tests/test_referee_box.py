"""`nerts referee --box`: the verdicts of a log reach the box emulator, in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.device import BoxDevice
from hardware.emulator import PtyEmulator
from hardware.faults import FaultPlan, FaultyDevice
from nerts.cli import main

GOLDEN = Path(__file__).parent / "golden"


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


def test_referee_exits_1_when_the_box_was_not_told_everything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The scoreboard is printed all the same; the status says the players were not told."""
    log = GOLDEN / "races.input.jsonl"
    assert main(["referee", str(log), "--box", "socket://127.0.0.1:1", "--box-wait", "0.3"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("Round 1 (not scored")
    assert "box: 9 announcements never delivered: RESET; SHOW Round 1; BUZZ LATE;" in err


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
    device = BoxDevice()
    plan = FaultPlan(corrupt_rate=0.02, lose_reply_rate=0.02, reset_every=20, seed=0)
    emulator = PtyEmulator(FaultyDevice(device, plan))
    emulator.start()
    try:
        log = GOLDEN / "game_to_target.input.jsonl"
        argv = ["referee", str(log), "--target", "20", "--box", emulator.url, "--box-wait", "60"]
        assert main(argv) == 0
    finally:
        emulator.close()
    capsys.readouterr()
    assert device.state.scores == {0: 21, 1: 7, 2: 16}
    assert "Seat 0 wins" in device.executed[-1]


@pytest.mark.parametrize("value", ["nan", "-1", "1e9", "soon"])
def test_box_wait_takes_seconds(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["referee", str(GOLDEN / "races.input.jsonl"), "--box-wait", value])
    err = capsys.readouterr().err
    assert f"argument --box-wait: give seconds from 0 to 3600, e.g. 10; got {value!r}" in err
