"""Build the nertsbox firmware and run it in simavr with its UART on a pty (for tests, benches).

Needs Debian's gcc-avr, avr-libc, arduino-core-avr, arduino-mk (the firmware) and simavr,
libsimavr-dev, libelf-dev, pkg-config (the harness); `missing_tools()` says what is absent.

    elf = build_firmware(build_dir)
    harness = build_harness(build_dir)
    with SimulatedBox(harness, elf) as box:
        BoxDriver(box.url) ...
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

from hardware.lifecycle import Service

FIRMWARE_DIR = Path(__file__).parent / "firmware"
SKETCH_DIR = FIRMWARE_DIR / "nertsbox"
HARNESS_DIR = FIRMWARE_DIR / "simavr"
ARDMK_DIR_DEFAULT = "/usr/share/arduino"
"""Where Debian's arduino-mk lives; the `ARDMK_DIR` environment variable, which the
firmware's Makefile reads too, names another."""
ARDUINO_MK = Path(os.environ.get("ARDMK_DIR", ARDMK_DIR_DEFAULT)) / "Arduino.mk"
# The pkg-config names of the libraries the harness links (libsimavr-dev, libelf-dev).
HARNESS_LIBRARIES = ("simavr", "simavrparts", "libelf")
# The harness prints this before the pty's path.
PTY_MARKER = "nertsbox-sim pty: "
# Lines simavr may print before the marker.
MAX_BANNER_LINES = 20
BUILD_TIMEOUT_S = 300
PTY_REPORT_TIMEOUT_S = 30.0
"""How long the harness may take to say its pty (it does in milliseconds): one that stalls
is stopped, rather than hang the tests that wait on it."""


class SimulationError(Exception):
    """The firmware or harness could not be built or started."""


def missing_tools() -> list[str]:
    """What is needed to build and simulate the firmware but absent here (empty: all there)."""
    missing = [tool for tool in ("make", "cc", "avr-gcc", "pkg-config") if not shutil.which(tool)]
    if not ARDUINO_MK.exists():
        missing.append(f"arduino-mk ({ARDUINO_MK})")
    libraries_found = (
        "pkg-config" not in missing
        and not subprocess.run(
            ["pkg-config", "--exists", *HARNESS_LIBRARIES], check=False
        ).returncode
    )
    if not libraries_found:
        missing.append(f"libsimavr-dev or libelf-dev (pkg-config: {' '.join(HARNESS_LIBRARIES)})")
    return missing


def _make(directory: Path, *arguments: str) -> None:
    result = subprocess.run(
        ["make", "-C", str(directory), *arguments],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    if result.returncode != 0:
        raise SimulationError(f"make in {directory} failed:\n{result.stdout}\n{result.stderr}")


def build_firmware(build_dir: Path) -> Path:
    """Build the sketch with arduino-mk into `build_dir`; returns the ELF file."""
    objects = build_dir / "firmware"
    _make(SKETCH_DIR, f"OBJDIR={objects.resolve()}")
    elves = sorted(objects.glob("*.elf"))
    if not elves:
        raise SimulationError(f"the firmware build left no .elf in {objects}")
    return elves[0]


def build_harness(build_dir: Path) -> Path:
    """Build the simavr harness into `build_dir`; returns the executable."""
    harness = (build_dir / "nertsbox-sim").resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    _make(HARNESS_DIR, f"OUT={harness}")
    return harness


class SimulatedBox(Service):
    """The firmware running in simavr; the host opens `url` (the UART's pty)."""

    def __init__(self, harness: Path, elf: Path) -> None:
        self._process = subprocess.Popen(
            [str(harness), str(elf)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.url = self._read_pty_path()

    def _read_pty_path(self) -> str:
        assert self._process.stdout is not None
        # Killed, a stalled harness ends its output: the read below returns.
        stalled = threading.Timer(PTY_REPORT_TIMEOUT_S, self._process.kill)
        stalled.start()
        try:
            for _ in range(MAX_BANNER_LINES):
                line = self._process.stdout.readline()
                if line.startswith(PTY_MARKER):
                    return line[len(PTY_MARKER) :].strip()
                if not line:
                    break
        finally:
            stalled.cancel()
        self.close()
        raise SimulationError(
            f"the simavr harness did not report its pty (within {PTY_REPORT_TIMEOUT_S:g} s)"
        )

    def _tell(self, line: str) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(line + "\n")
        self._process.stdin.flush()

    def reset(self) -> None:
        """Reset the MCU, as at power-up: the firmware announces itself with HELLO."""
        self._tell("reset")

    def press(self, seat: int) -> None:
        self._tell(f"press {seat}")

    def release(self, seat: int) -> None:
        self._tell(f"release {seat}")

    def tap(self, seat: int, milliseconds: int) -> None:
        """Press seat's button for exactly this long in simulated time, then let go."""
        self._tell(f"tap {seat} {milliseconds}")

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                stream.close()
