"""The threaded driver against the Python emulator over TCP and a pty, and the firmware in
simavr: exactly once and in order under faults, resets, unplugging; never blocking the caller."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import wait
from pathlib import Path
from types import SimpleNamespace

import pytest
import serial.tools.list_ports

from hardware.device import BoxDevice
from hardware.driver import BoxClosed, BoxDriver, CommandRejected
from hardware.emulator import PtyEmulator, TcpEmulator
from hardware.faults import FaultPlan, FaultyDevice
from hardware.host_protocol import HANDSHAKE_SEQUENCE
from hardware.ports import AUTO_URL, WRITE_TIMEOUT_S, detect_box
from hardware.simavr import SimulatedBox

# Faster than the protocol's 250 ms so that fault runs take seconds; the logic is the same
# (benchmarks/bench_box.py runs them with the real timeout).
TEST_RESEND_TIMEOUT_S = 0.03
TEST_RECONNECT_INTERVAL_S = 0.05
SEND_BLOCK_LIMIT_S = 0.01


NO_FAULTS = FaultPlan()


def emulator(plan: FaultPlan = NO_FAULTS, port: int = 0) -> TcpEmulator:
    return TcpEmulator(FaultyDevice(BoxDevice(), plan), port).start()


def driver(url: str, **options: object) -> BoxDriver:
    return BoxDriver(
        url,
        resend_timeout=TEST_RESEND_TIMEOUT_S,
        reconnect_interval=TEST_RECONNECT_INTERVAL_S,
        **options,  # type: ignore[arg-type]
    ).start()


def executed(box: TcpEmulator | PtyEmulator) -> list[str]:
    return [text for text in box.device.device.executed if text != "HELLO"]


def without_repeats(texts: list[str]) -> list[str]:
    return [text for index, text in enumerate(texts) if index == 0 or texts[index - 1] != text]


def commands(count: int, start: int = 0) -> list[str]:
    return [f"SCORE {index % 4} {index}" for index in range(start, start + count)]


@pytest.fixture
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_1000_commands_exactly_once_in_order_with_2_percent_faults() -> None:
    sent = commands(1000)
    with emulator(FaultPlan(corrupt_rate=0.02, lose_reply_rate=0.02, seed=5)) as box:
        link = driver(box.url)
        deliveries = [link.send(text) for text in sent]
        assert link.wait_delivered(60)
        link.close()
        assert all(delivery.exception() is None for delivery in deliveries)
        counts = box.device.counts
        assert counts.corrupted_bytes > 300 and counts.lost_replies > 10
        if link.connections == 1:
            assert executed(box) == sent
        else:  # a reconnection's handshake may repeat the one command whose ok was lost
            assert without_repeats(executed(box)) == sent
            assert len(executed(box)) - len(sent) <= link.connections - 1


def test_a_box_whose_replies_are_garbled_is_not_taken_for_a_silent_one() -> None:
    """Half the lines corrupted on the wire (5% of bytes): every command is resent until a
    reply reads right, on the one connection (five unread replies in a row are no reason to
    reconnect)."""
    sent = commands(50)
    with emulator(FaultPlan(corrupt_rate=0.05, seed=3)) as box:
        link = driver(box.url)
        for text in sent:
            link.send(text)
        assert link.wait_delivered(60)
        link.close()
        assert link.connections == 1
        assert without_repeats(executed(box)) == sent


def test_1000_commands_with_a_reset_every_20_none_lost_or_reordered() -> None:
    sent = commands(1000)
    with emulator(FaultPlan(reset_every=20)) as box:
        link = driver(box.url)
        for text in sent:
            link.send(text)
        assert link.wait_delivered(60)
        link.close()
        assert box.device.counts.resets == 50
        assert executed(box) == sent


def test_unplug_and_replug_delivers_the_queued_commands(free_port: int) -> None:
    first, second = commands(40), commands(40, start=40)
    box = emulator(port=free_port)
    link = driver(box.url)
    for text in first:
        link.send(text)
    assert link.wait_delivered(10)
    box.close()  # unplugged
    started = time.monotonic()
    deliveries = [link.send(text) for text in second]
    assert time.monotonic() - started < len(second) * SEND_BLOCK_LIMIT_S
    time.sleep(0.3)
    assert link.pending == second
    replugged = emulator(port=free_port)
    try:
        assert link.wait_delivered(10)
        assert all(delivery.exception() is None for delivery in deliveries)
        assert link.connections >= 2
    finally:
        link.close()
        replugged.close()
    assert executed(box) == first
    assert without_repeats(executed(replugged)) == second


def test_unplugged_mid_run_nothing_lost_or_reordered(free_port: int) -> None:
    sent = commands(300)
    box = emulator(port=free_port)
    link = driver(box.url)
    for text in sent:
        link.send(text)
    while len(executed(box)) < 100:
        time.sleep(0.001)
    box.close()
    replugged = emulator(port=free_port)
    try:
        assert link.wait_delivered(10)
    finally:
        link.close()
        replugged.close()
    both = executed(box) + executed(replugged)
    assert without_repeats(both) == sent
    assert len(both) - len(sent) <= 1  # the in-flight command, if its ok was lost


def test_box_absent_at_start_sending_does_not_block(free_port: int) -> None:
    link = driver(f"socket://127.0.0.1:{free_port}")
    started = time.monotonic()
    deliveries = [link.send(text) for text in commands(50)]
    assert time.monotonic() - started < 50 * SEND_BLOCK_LIMIT_S
    assert not link.connected
    with emulator(port=free_port) as box:
        assert link.wait_delivered(10)
        link.close()
        assert executed(box) == commands(50)
    assert all(delivery.done() and delivery.exception() is None for delivery in deliveries)


class StalledPort:
    """A port whose writes hang until `release` is set, as a pty's did under heavy load."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.written: list[bytes] = []

    @property
    def in_waiting(self) -> int:
        return 0

    def read(self, size: int = 1) -> bytes:
        del size
        time.sleep(0.01)
        return b""

    def write(self, data: bytes, /) -> int:
        self.release.wait(5)
        self.written.append(data)
        return len(data)

    def close(self) -> None:
        self.release.set()


def test_a_write_that_stalls_does_not_block_sending() -> None:
    port = StalledPort()
    link = driver("stalled://", opener=lambda url: port)
    time.sleep(0.1)  # connected, its handshake's write hanging
    started = time.monotonic()
    deliveries = [link.send(text) for text in commands(20)]
    assert time.monotonic() - started < 20 * SEND_BLOCK_LIMIT_S
    port.release.set()
    link.close()
    assert all(isinstance(delivery.exception(), BoxClosed) for delivery in deliveries)
    assert b" HELLO*" in port.written[0]  # the handshake, written once the port let go


def test_rejected_command_is_reported_and_not_resent() -> None:
    with emulator() as box:
        link = driver(box.url)
        rejected, accepted = link.send("FOO 1"), link.send("PING")
        with pytest.raises(CommandRejected) as error:
            rejected.result(timeout=5)
        assert error.value.code == "UNKNOWN"
        assert str(error.value) == "box rejected 'FOO 1': UNKNOWN (the box knows no such command)"
        assert accepted.result(timeout=5) is None
        link.close()
        assert executed(box) == ["PING"]


def test_button_presses_reach_the_callback_and_the_queue() -> None:
    pressed: list[int] = []
    seen = threading.Event()

    def on_button(seat: int) -> None:
        pressed.append(seat)
        seen.set()

    with emulator() as box:
        link = driver(box.url, on_button=on_button)
        link.send("PING").result(timeout=5)
        box.press_button(2)
        assert seen.wait(5)
        link.close()
    assert pressed == [2]
    assert link.buttons.get_nowait() == 2


def test_a_failing_button_callback_does_not_stop_the_link() -> None:
    def broken(seat: int) -> None:
        raise RuntimeError(f"referee bug on seat {seat}")

    with emulator() as box:
        link = driver(box.url, on_button=broken)
        link.send("PING").result(timeout=5)
        box.press_button(0)
        assert link.buttons.get(timeout=5) == 0
        assert link.send("BUZZ BEEP").result(timeout=5) is None
        link.close()


def test_identity_and_debug_traffic_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="hardware.driver")
    with emulator() as box:
        link = driver(box.url)
        link.send("BUZZ BEEP").result(timeout=5)
        link.close()
    assert link.identity is not None and link.identity.seats == 4
    messages = [record.getMessage() for record in caplog.records]
    after_handshake = HANDSHAKE_SEQUENCE + 1
    assert any(f"box <- b'N{after_handshake} BUZZ BEEP*" in message for message in messages)
    assert f"box -> 'ok {after_handshake}'" in messages


def test_close_returns_the_undelivered_and_fails_their_futures(free_port: int) -> None:
    link = driver(f"socket://127.0.0.1:{free_port}")
    delivery = link.send("PING")
    assert link.close() == ["PING"]
    with pytest.raises(BoxClosed):
        delivery.result(timeout=1)
    with pytest.raises(BoxClosed):
        link.send("PING")


def test_bad_command_text_is_refused_at_once() -> None:
    link = BoxDriver("loop://")
    with pytest.raises(ValueError):
        link.send("SHOW a*b")


def test_auto_detection_finds_the_box_by_its_id(monkeypatch: pytest.MonkeyPatch) -> None:
    with PtyEmulator(FaultyDevice(BoxDevice(), FaultPlan())) as box:
        ports = [SimpleNamespace(device="/dev/no-such-port"), SimpleNamespace(device=box.url)]
        monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
        assert detect_box() == box.url
        link = driver(AUTO_URL)
        link.send("PING").result(timeout=10)
        link.close()


def test_auto_detection_passes_over_a_port_whose_writes_time_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Another device's port, flow-controlled: the handshake's write times out, not hangs."""
    opened: list[dict[str, object]] = []

    class HeldPort:
        def write(self, data: bytes) -> int:
            raise serial.SerialTimeoutException("Write timeout")

        def close(self) -> None:
            pass

    def open_held(url: str, **options: object) -> HeldPort:
        opened.append(options)
        return HeldPort()

    monkeypatch.setattr(serial, "serial_for_url", open_held)
    monkeypatch.setattr(
        serial.tools.list_ports, "comports", lambda: [SimpleNamespace(device="/dev/ttyS9")]
    )
    assert detect_box() is None
    assert opened[0]["write_timeout"] == WRITE_TIMEOUT_S


class Booting(BoxDevice):
    """A board that the opening of its port resets: the lines sent while its bootloader runs
    are lost; the first one after it draws its power-up HELLO (`announce`) or its reply."""

    def __init__(self, lost: int, announce: bool) -> None:
        super().__init__()
        self.lost, self.announce = lost, announce

    def handle_line(self, line: bytes) -> bytes:
        if self.lost:
            self.lost -= 1
            return self.power_up() if self.announce and not self.lost else b""
        return super().handle_line(line)


@pytest.mark.parametrize(("lost", "announce"), [(1, True), (3, False)])
def test_auto_detection_waits_for_a_board_that_boots(
    lost: int, announce: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    with PtyEmulator(FaultyDevice(Booting(lost, announce), FaultPlan())) as box:
        ports = [SimpleNamespace(device=box.url)]
        monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ports)
        assert detect_box() == box.url


def test_over_a_pty() -> None:
    with PtyEmulator(FaultyDevice(BoxDevice(), FaultPlan(lose_reply_rate=0.05, seed=3))) as box:
        link = driver(box.url)
        for text in commands(100):
            link.send(text)
        assert link.wait_delivered(20)
        link.close()
        assert executed(box) == commands(100)


@pytest.fixture
def simulated_box(simulator_build: tuple[Path, Path]) -> Iterator[SimulatedBox]:
    harness, elf = simulator_build
    with SimulatedBox(harness, elf) as box:
        yield box


def test_firmware_in_simavr_acknowledges_everything_across_a_reset(
    simulated_box: SimulatedBox,
) -> None:
    link = driver(simulated_box.url)
    deliveries = [link.send(text) for text in commands(60)]
    wait(deliveries[:20], timeout=20)
    simulated_box.reset()
    try:
        assert link.wait_delivered(30)
        assert all(delivery.exception() is None for delivery in deliveries)
        assert link.identity is not None and link.identity.version == "1.0"
    finally:
        link.close()


def test_a_pty_emulator_closes_its_pty_once() -> None:
    """Closed twice, its descriptors' numbers could by then be another file's."""
    emulator = PtyEmulator(FaultyDevice(BoxDevice(), FaultPlan()))
    with emulator:
        pass
    with open(os.devnull, "rb") as other:  # likely given one of the numbers just freed
        emulator.close()
        emulator.press_button(0)  # the box is off: nothing is sent, nothing fails
        os.fstat(other.fileno())  # still open, or this raises
