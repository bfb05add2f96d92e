"""Fixtures of the box tests: the Python emulator and the firmware in simavr, one interface.

`conformance_box` yields a `TestBox` for each kind of device; the same protocol conformance suite
runs against both. The firmware kind skips itself, saying why, where the Debian packages that
build and simulate it are missing (`.ci/install-system-packages` installs them).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

import pytest
import serial

from hardware.device import BoxDevice
from hardware.emulator import PtyEmulator
from hardware.faults import FaultPlan, FaultyDevice
from hardware.framing import LineSplitter, parse_device_line
from hardware.simavr import SimulatedBox, build_firmware, build_harness, missing_tools

REPLY_TIMEOUT_S = 2.0
QUIET_S = 0.1


class BoxUnderTest(Protocol):
    url: str

    def reset(self) -> None: ...
    def press(self, seat: int) -> None: ...
    def release(self, seat: int) -> None: ...


class EmulatedTestBox:
    """The Python emulator on a pty, with the same controls as the simulated firmware."""

    def __init__(self) -> None:
        self.device = BoxDevice()
        self.frontend = PtyEmulator(FaultyDevice(self.device, FaultPlan()))
        self.frontend.start()
        self.url = self.frontend.url

    def reset(self) -> None:
        self.frontend.reset()

    def press(self, seat: int) -> None:
        self.frontend.press_button(seat)

    def release(self, seat: int) -> None:
        del seat  # the emulator's buttons are momentary

    def close(self) -> None:
        self.frontend.close()


class RawLink:
    """Line-level access to a box, below the driver: send exact bytes, read exact lines."""

    def __init__(self, url: str) -> None:
        self.port = serial.serial_for_url(url, baudrate=115200, timeout=0.01)
        self.splitter = LineSplitter()
        self.pending: list[bytes] = []

    def send(self, data: bytes) -> None:
        self.port.write(data)

    def lines(self, count: int, timeout: float = REPLY_TIMEOUT_S) -> list[str | None]:
        """The next `count` device lines, each as its text (None when its CRC is bad)."""
        deadline = time.monotonic() + timeout
        while len(self.pending) < count and time.monotonic() < deadline:
            self.pending += self.splitter.feed(self.port.read(256))
        taken, self.pending = self.pending[:count], self.pending[count:]
        return [parse_device_line(line) for line in taken]

    def quiet(self) -> list[str | None]:
        """Whatever lines arrive in the next QUIET_S (none, normally)."""
        return self.lines(1000, timeout=QUIET_S)

    def close(self) -> None:
        self.port.close()


@pytest.fixture(scope="session")
def simulator_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    missing = missing_tools()
    if missing:
        pytest.skip(
            "firmware-in-simavr tests need the Debian packages gcc-avr avr-libc arduino-core-avr "
            "arduino-mk simavr libsimavr-dev libelf-dev pkg-config (run "
            f".ci/install-system-packages as root); missing: {', '.join(missing)}"
        )
    build_dir = tmp_path_factory.mktemp("nertsbox-build")
    return build_harness(build_dir), build_firmware(build_dir)


@pytest.fixture(params=["emulator", "firmware"])
def conformance_box(
    request: pytest.FixtureRequest,
) -> Iterator[BoxUnderTest]:
    if request.param == "emulator":
        box = EmulatedTestBox()
        try:
            yield box
        finally:
            box.close()
    else:
        harness, elf = request.getfixturevalue("simulator_build")
        with SimulatedBox(harness, elf) as simulated:
            yield simulated


@pytest.fixture
def open_raw_link() -> Iterator[Callable[[str], RawLink]]:
    """Opens RawLinks to any URL; closes whatever it opened."""
    links: list[RawLink] = []

    def open_link(url: str) -> RawLink:
        links.append(RawLink(url))
        return links[-1]

    yield open_link
    for link in links:
        link.close()


@pytest.fixture
def raw_link(
    conformance_box: BoxUnderTest, open_raw_link: Callable[[str], RawLink]
) -> Callable[[], RawLink]:
    """Opens a RawLink to the box under test."""
    return lambda: open_raw_link(conformance_box.url)
