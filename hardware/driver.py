"""`BoxDriver`: the host's threaded driver for the referee box.

Modelled on pyserial's `serial.threaded`: one background reader thread owns the port and feeds a
protocol object (`HostProtocol`), framing is done by `LineSplitter`; the lines to write go, in
order, to a writer thread, so `send` returns at once even where a write stalls (each is bounded
by WRITE_TIMEOUT_S only between system calls: a pty under heavy load held one for seconds).

    with BoxDriver("socket://127.0.0.1:7000", on_button=calls.put) as box:   # a queue.Queue
        done = box.send("LIGHT 0 FF0000")   # a concurrent.futures.Future; never blocks
        done.result(timeout=1)              # None on `ok`; raises CommandRejected on `er`

Every command is delivered once and in order as the protocol defines (the one whose `ok` was
lost just before a device reset or an unplug may run twice, as the protocol allows; none is ever
lost). The driver keeps the unacknowledged commands across resets and reconnections, retrying the
port every RECONNECT_INTERVAL_S while the box is absent.
Button presses (`BTN <seat>`) go to `on_button` (called on the reader thread: keep it short) and
to the thread-safe queue `buttons`.
Traffic is logged at DEBUG on this module's logger.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Self

from hardware.framing import LineSplitter, check_command_text, parse_device_line
from hardware.host_protocol import RESEND_TIMEOUT_S, Actions, BoxIdentity, HostProtocol
from hardware.lifecycle import Service
from hardware.ports import PortError, SerialPort, open_port

log = logging.getLogger(__name__)

# While the box is absent or unplugged, opening its port is retried this often.
RECONNECT_INTERVAL_S = 0.5

ButtonCallback = Callable[[int], None]
Delivery = Future[None]


REJECTION_MEANINGS = {
    "UNKNOWN": "the box knows no such command",
    "ARG": "an argument is missing, malformed or out of range",
    "SEAT": "the box has no such seat",
}
"""What each `er` code of the box protocol says of the command, for people reading it."""


class CommandRejected(Exception):
    """The box answered `er <seq> <code>`: the command was well formed but invalid."""

    def __init__(self, text: str, code: str) -> None:
        meaning = REJECTION_MEANINGS.get(code)
        super().__init__(f"box rejected {text!r}: {code}" + (f" ({meaning})" if meaning else ""))
        self.text = text
        self.code = code


class BoxClosed(Exception):
    """The driver was closed before the box acknowledged the command."""


class BoxDriver(Service):
    """The host end of the box link at `url` (any pyserial URL, or `auto`); see the module doc."""

    def __init__(
        self,
        url: str,
        *,
        on_button: ButtonCallback | None = None,
        resend_timeout: float = RESEND_TIMEOUT_S,
        reconnect_interval: float = RECONNECT_INTERVAL_S,
        opener: Callable[[str], SerialPort] = open_port,
        absent_level: int = logging.WARNING,
        on_reset: Callable[[], None] | None = None,
    ) -> None:
        """`absent_level`: how the first failure to open the port is logged (later ones at
        DEBUG); a one-shot command that reports it itself gives INFO. `on_reset` is called
        (on the reader thread, outside the driver's lock: it may send) when a reset of the box
        is noticed, which cleared its lights, display and scores."""
        self.url = url
        self._absent_level = absent_level
        self.on_button = on_button
        self.on_reset = on_reset
        self.buttons: queue.SimpleQueue[int] = queue.SimpleQueue()
        self.connections = 0  # how many times a port was opened
        self.open_error: str | None = None  # why the port last failed to open
        self._reconnect_interval = reconnect_interval
        self._opener = opener
        self._protocol: HostProtocol[Delivery] = HostProtocol(resend_timeout)
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._port: SerialPort | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"box {url}", daemon=True)
        # Lines to write, each with the connection it was meant for (`_connection`): one
        # queued for a port since lost is dropped, as the new connection's handshake resends
        # what it carried. None stops the writer.
        self._outbox: queue.SimpleQueue[tuple[int, bytes] | None] = queue.SimpleQueue()
        self._connection = 0
        # Held by the writer while it writes and by the reader while it closes the port: a
        # pyserial port closed mid-write fails in ways of its own (a socket's is gone).
        self._writing = threading.Lock()
        self._writer = threading.Thread(
            target=self._write_queued, name=f"box {url} writer", daemon=True
        )
        self._warned_absent = False

    @property
    def connected(self) -> bool:
        return self._port is not None

    @property
    def identity(self) -> BoxIdentity | None:
        return self._protocol.identity

    @property
    def resets_noticed(self) -> int:
        """How many resets of the box were noticed (`HostProtocol.resets_noticed`): each
        clears its lights and display."""
        with self._lock:
            return self._protocol.resets_noticed

    @property
    def pending(self) -> list[str]:
        """The commands not yet acknowledged, in order."""
        with self._lock:
            return [command.text for command in self._protocol.unacknowledged]

    def start(self) -> Self:
        self._writer.start()
        self._thread.start()
        return self

    def send(self, text: str) -> Delivery:
        """Queue one command (e.g. "LIGHT 0 FF0000"); returns at once with its delivery future.

        Raises ValueError if `text` cannot be a command line (not printable ASCII, too long).
        """
        return self.send_all([text])[0]

    def send_all(self, texts: Sequence[str]) -> list[Delivery]:
        """Queue several commands, in order, taking the lock once; returns at once."""
        for text in texts:
            check_command_text(text)
        deliveries: list[Delivery] = []
        now = time.monotonic()
        with self._lock:
            if self._stopping.is_set():
                raise BoxClosed("the box driver is closed")
            for text in texts:
                delivery: Delivery = Future()
                delivery.set_running_or_notify_cancel()
                deliveries.append(delivery)
                self._write(self._protocol.submit(text, delivery, now))
        return deliveries

    def wait_delivered(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for every queued command to be acknowledged."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._protocol.queue, timeout)

    def close(self) -> list[str]:
        """Stop the reader thread and close the port; returns the commands never acknowledged."""
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()
        if self._writer.is_alive():
            self._outbox.put(None)
            self._writer.join()
        with self._lock:
            undelivered = self._protocol.unacknowledged
            self._protocol.queue.clear()
            self._idle.notify_all()
        for command in undelivered:
            if command.ticket is not None:
                command.ticket.set_exception(BoxClosed(f"{command.text!r} was not delivered"))
        return [command.text for command in undelivered]

    # Everything below runs on the reader thread, except _write (under the lock, either thread)
    # and _write_queued (the writer thread).

    def _write(self, actions: Actions[Delivery]) -> Actions[Delivery]:
        if self._port is not None:
            for line in actions.writes:
                self._outbox.put((self._connection, line))
        return actions

    def _write_queued(self) -> None:
        while (queued := self._outbox.get()) is not None:
            connection, line = queued
            with self._writing:
                with self._lock:
                    port = self._port if connection == self._connection else None
                if port is None:
                    continue
                log.debug("box <- %r", line)
                try:
                    port.write(line)
                except PortError as error:
                    # The resend timer retries; the reader sees a closed port and reconnects.
                    log.debug("box write failed: %s", error)
                except Exception:  # a port's own bug must not end every later write unsaid
                    log.exception("box write of %r failed", line)

    def _deliver(self, actions: Actions[Delivery]) -> None:
        """Outside the lock: settle futures and pass on button presses."""
        for command, code in actions.settled:
            if command.ticket is not None:
                if code is None:
                    command.ticket.set_result(None)
                else:
                    command.ticket.set_exception(CommandRejected(command.text, code))
        for seat in actions.buttons:
            log.info("box: Nerts! button of seat %d", seat)
            self.buttons.put(seat)
            if self.on_button is not None:
                try:
                    self.on_button(seat)
                except Exception:  # the caller's bug must not stop the box link
                    log.exception("box: on_button(%d) failed", seat)

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                port = self._opener(self.url)
            except PortError as error:
                self.open_error = str(error)
                level = logging.DEBUG if self._warned_absent else self._absent_level
                log.log(level, "box at %s not available (%s); trying again", self.url, error)
                self._warned_absent = True
                self._stopping.wait(self._reconnect_interval)
                continue
            self._warned_absent = False
            self.connections += 1
            try:
                self._serve(port)
            except PortError as error:
                log.warning("box connection lost (%s); reconnecting", error)
            finally:
                with self._lock:
                    self._port = None
                    self._protocol.disconnect()
                try:
                    with self._writing:
                        port.close()
                except PortError as error:
                    log.debug("box close failed: %s", error)
            if not self._stopping.is_set():
                self._stopping.wait(self._reconnect_interval)

    def _serve(self, port: SerialPort) -> None:
        log.info("box port %s open", self.url)
        with self._lock:
            self._port = port
            self._connection += 1
            self._write(self._protocol.connect(time.monotonic()))
        splitter = LineSplitter()
        while not self._stopping.is_set():
            data = port.read(1)
            if data:
                data += port.read(port.in_waiting)
            for line in splitter.feed(data):
                text = parse_device_line(line)
                if text is None:
                    log.debug("box -> %r discarded (bad CRC or form)", line)
                    with self._lock:
                        self._protocol.garbled()
                    continue
                log.debug("box -> %r", text)
                with self._lock:
                    resets = self._protocol.resets_noticed
                    actions = self._write(self._protocol.receive(text, time.monotonic()))
                    reset = self._protocol.resets_noticed != resets
                    if not self._protocol.queue:
                        self._idle.notify_all()
                if actions.identity is not None:
                    log.info(
                        "box identified: nertsbox %s, %d seats",
                        actions.identity.version,
                        actions.identity.seats,
                    )
                self._deliver(actions)
                if reset and self.on_reset is not None:
                    try:
                        self.on_reset()
                    except Exception:  # the caller's bug must not stop the box link
                        log.exception("box: on_reset() failed")
            with self._lock:
                if self._write(self._protocol.tick(time.monotonic())).give_up:
                    return
