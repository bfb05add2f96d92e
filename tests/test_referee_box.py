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
    assert main(["referee", str(log), "--box", "socket://127.0.0.1:1"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("Round 1 (not scored")
    assert "box: 9 announcements never delivered: RESET; SHOW Round 1; BUZZ LATE;" in err
