"""Starting the simavr harness (`hardware.simavr.SimulatedBox`), with stand-in harnesses: no
simavr needed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from hardware import simavr
from hardware.simavr import PTY_MARKER, SimulatedBox, SimulationError


def harness(folder: Path, script: str) -> Path:
    path = folder / "harness"
    path.write_text(f"#!/bin/sh\n{script}\n", encoding="ascii")
    path.chmod(0o755)
    return path


def test_the_pty_is_read_after_the_banner(tmp_path: Path) -> None:
    script = f"echo simavr banner; echo '{PTY_MARKER}/dev/pts/77'; exec sleep 30"
    with SimulatedBox(harness(tmp_path, script), tmp_path / "box.elf") as box:
        assert box.url == "/dev/pts/77"


def test_a_harness_that_stalls_is_stopped_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(simavr, "PTY_REPORT_TIMEOUT_S", 0.5)
    started = time.monotonic()
    with pytest.raises(SimulationError, match=r"did not report its pty \(within 0.5 s\)"):
        SimulatedBox(harness(tmp_path, "echo simavr banner; exec sleep 30"), tmp_path / "box.elf")
    assert time.monotonic() - started < 10


def test_a_harness_that_ends_without_its_pty_is_said(tmp_path: Path) -> None:
    with pytest.raises(SimulationError, match="did not report its pty"):
        SimulatedBox(harness(tmp_path, "echo no pty here"), tmp_path / "box.elf")
