"""Front ends of the emulated box: a pty or a TCP port in front of a (faulty) `BoxDevice`.

Both run the same device state machine on a background thread. The TCP front end serves one host
at a time (a new connection replaces the old one, like replugging the USB cable without a power
cycle); the pty front end keeps its slave end open so a host may open and close it at will.

    with TcpEmulator(FaultyDevice(BoxDevice(), FaultPlan())) as box:
        driver = BoxDriver(box.url)
"""

from __future__ import annotations

import logging
import os
import select
import socket
import threading
import tty
from typing import Self

from hardware.faults import FaultyDevice
from hardware.lifecycle import Service

log = logging.getLogger(__name__)

# How often the serving thread looks up from a blocking wait to check for a stop request.
POLL_S = 0.05
READ_CHUNK = 4096


class _Frontend(Service):
    """What both front ends share: the device under a lock, a serving thread, button presses."""

    def __init__(self, device: FaultyDevice) -> None:
        self.device = device
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name=type(self).__name__, daemon=True)

    @property
    def url(self) -> str:
        raise NotImplementedError

    def start(self) -> Self:
        """Power the box up and serve; a second call does nothing."""
        if self._thread.ident is not None:
            return self
        with self._lock:
            self._send(self.device.power_up())
        self._thread.start()
        return self

    def close(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()

    def press_button(self, seat: int) -> None:
        with self._lock:
            self._send(self.device.press_button(seat))

    def reset(self) -> None:
        """Reset the device as at power-up (it announces itself with HELLO)."""
        with self._lock:
            self._send(self.device.power_up())

    def _receive(self, data: bytes) -> None:
        log.debug("emulator <- %r", data)
        with self._lock:
            self._send(self.device.feed(data))

    def _send(self, data: bytes) -> None:
        raise NotImplementedError

    def _serve(self) -> None:
        raise NotImplementedError


class TcpEmulator(_Frontend):
    """The box on a TCP port of 127.0.0.1 (port 0: any free port); the host uses `url`."""

    def __init__(self, device: FaultyDevice, port: int = 0, host: str = "127.0.0.1") -> None:
        super().__init__(device)
        self._server = socket.create_server((host, port), reuse_port=False)
        self._server.settimeout(POLL_S)
        self._client: socket.socket | None = None

    @property
    def url(self) -> str:
        host, port = self._server.getsockname()[:2]
        return f"socket://{host}:{port}"

    def close(self) -> None:
        super().close()
        self._server.close()

    def _send(self, data: bytes) -> None:
        if data and self._client is not None:
            log.debug("emulator -> %r", data)
            try:
                self._client.sendall(data)
            except OSError as error:
                log.debug("emulator: host gone while sending (%s)", error)

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                client, address = self._server.accept()
            except TimeoutError:
                continue
            except OSError as error:
                log.debug("emulator: accept failed (%s)", error)
                continue
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            log.info("emulator: host connected from %s", address)
            with self._lock:
                self._client = client
            try:
                self._serve_client(client)
            finally:
                with self._lock:
                    self._client = None
                client.close()
                log.info("emulator: host disconnected")

    def _serve_client(self, client: socket.socket) -> None:
        while not self._stopping.is_set():
            readable, _, _ = select.select([client, self._server], [], [], POLL_S)
            if self._server in readable:
                return  # a new host replaces this one
            if client in readable:
                try:
                    data = client.recv(READ_CHUNK)
                except OSError:
                    return
                if not data:
                    return
                self._receive(data)


class PtyEmulator(_Frontend):
    """The box on a new pseudo-terminal; the host opens `url`, the slave's path."""

    def __init__(self, device: FaultyDevice) -> None:
        super().__init__(device)
        self._master, self._slave = os.openpty()
        # Raw on both ends: no echo, no newline mapping.
        tty.setraw(self._slave)
        tty.setraw(self._master)
        # Never block the device on a host that does not read; such output is dropped.
        os.set_blocking(self._master, False)
        self.path = os.ttyname(self._slave)
        self._descriptors: tuple[int, ...] = (self._master, self._slave)

    @property
    def url(self) -> str:
        return self.path

    def close(self) -> None:
        """Stops serving and closes the pty, once: closed again, the same descriptor numbers
        may by then be another file's."""
        super().close()
        with self._lock:
            descriptors, self._descriptors = self._descriptors, ()
        for descriptor in descriptors:
            os.close(descriptor)

    def _send(self, data: bytes) -> None:
        # Always called under the lock, which close() takes to let the pty go.
        if data and self._descriptors:  # closed, the box is off: nothing reaches a host
            log.debug("emulator -> %r", data)
            try:
                while data:  # a pty nearly full takes part of a write
                    data = data[os.write(self._master, data) :]
            except BlockingIOError:
                log.debug("emulator: pty full, %d bytes of output dropped", len(data))

    def _serve(self) -> None:
        while not self._stopping.is_set():
            readable, _, _ = select.select([self._master], [], [], POLL_S)
            if readable:
                try:
                    data = os.read(self._master, READ_CHUNK)
                except (BlockingIOError, InterruptedError):
                    continue
                self._receive(data)
