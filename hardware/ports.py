"""Opening a box's port by pyserial URL, and finding a box among the serial ports.

Any pyserial URL works: a device path (`/dev/ttyUSB0`, a pty), `socket://host:port`.
The special URL `auto` means: the first serial port whose device answers the handshake with an
`ID nertsbox ...` line.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Protocol, cast
from urllib.parse import parse_qs, urlsplit

import serial
import serial.tools.list_ports

from hardware.framing import LineSplitter, encode_command, parse_device_line
from hardware.host_protocol import HANDSHAKE_SEQUENCE, RESEND_TIMEOUT_S

log = logging.getLogger(__name__)

BAUD_RATE = 115200
# How long one read waits for data; also the granularity of resend timing.
READ_POLL_S = 0.010
# A write that cannot complete in this time fails (and the command is resent later).
WRITE_TIMEOUT_S = 0.100
# How long auto-detection waits for each port's `ID` reply or power-up `HELLO`: opening the
# port resets an Uno or Nano, whose bootloader then listens for about a second before the
# firmware starts and prints `HELLO`; the handshake is sent again every `RESEND_TIMEOUT_S`.
DETECT_REPLY_TIMEOUT_S = 2.5
AUTO_URL = "auto"
# TCP port numbers, for socket:// URLs and the emulator's --tcp (0 lets the system pick).
MAX_TCP_PORT = 65535
# The one option pyserial's socket:// URLs take: ?logging=LEVEL.
SOCKET_URL_LOGGING_LEVELS = ("debug", "info", "warning", "error")
RFC2217_URL_OPTIONS = ("logging", "ign_set_control", "poll_modem", "timeout")
"""The options pyserial's rfc2217:// URLs take (its own values checked by pyserial)."""

# The errors a port raises when it is absent, unplugged or closed by the other side.
PortError: tuple[type[BaseException], ...] = (serial.SerialException, OSError)


class SerialPort(Protocol):
    """The part of a pyserial port the driver uses."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


def open_port(url: str) -> SerialPort:
    """Open `url` raw at the box's baud rate; raises one of PortError if it cannot."""
    if url == AUTO_URL:
        if not serial.tools.list_ports.comports():
            raise serial.SerialException("no serial port on this machine")
        found = detect_box()
        if found is None:
            raise serial.SerialException("no serial port answered as a nerts box")
        url = found
    try:
        port = serial.serial_for_url(
            url,
            baudrate=BAUD_RATE,
            timeout=READ_POLL_S,
            write_timeout=WRITE_TIMEOUT_S,
            exclusive=True,
        )
    except serial.SerialException as error:
        if EXCLUSIVE_LOCK_REFUSED in str(error):
            raise serial.SerialException(f"{url} {IN_USE_SAID}") from error
        raise
    return cast(SerialPort, port)


IN_USE_SAID = "is in use by another program"
"""Said of a port another program holds (`EXCLUSIVE_LOCK_REFUSED`)."""
EXCLUSIVE_LOCK_REFUSED = "Could not exclusively lock port"
"""How pyserial says a device file is locked by another program: two programs on one port
would each read half the box's replies and interleave their commands."""


def check_url(url: str) -> str:
    """Return `url` if pyserial understands its form, else raise ValueError with the reason."""
    if url == AUTO_URL:
        return url
    if not url.strip():
        raise ValueError(
            f"{url!r} names no port: give the box's device (e.g. /dev/ttyUSB0), a URL such as "
            f"socket://127.0.0.1:7791, or {AUTO_URL}"
        )
    bare = BARE_TCP_ADDRESS.fullmatch(url)
    if bare is not None:  # pyserial would take it for a device file of that name
        host = bare["host"] or "127.0.0.1"
        raise ValueError(
            f"{url!r} is not a serial port: for a box (or the emulator) on a TCP port give "
            f"socket://{host}:{bare['port']}; for one on USB, its device (e.g. /dev/ttyUSB0)"
        )
    scheme = url.partition("://")[0].lower()
    if scheme in NETWORK_SCHEMES:
        _check_network_url(url, scheme)
    try:
        serial.serial_for_url(url, do_not_open=True)
    except (ValueError, serial.SerialException) as error:
        raise ValueError(f"{url!r} is not a serial port URL pyserial knows: {error}") from error
    except OSError as error:  # spy://...?file=LOG opens its log file at once
        raise ValueError(f"{url!r}: {error.strerror or error}: {error.filename}") from error
    return url


BARE_TCP_ADDRESS = re.compile(r"(?:(?P<host>[A-Za-z0-9.-]+):)?(?P<port>[0-9]{1,5})")
"""A TCP port given without its URL: `7791` or `localhost:7791`."""
NETWORK_SCHEMES = ("socket", "rfc2217")
"""pyserial's URLs of a port across the network, which must name a host and a port."""


def _check_network_url(url: str, scheme: str) -> None:
    """Raise ValueError unless `url`, a socket:// or rfc2217:// URL, names a host and a port.
    pyserial checks these only when it opens the port, in the driver's thread, and says so in
    terms of its internals (or a TypeError when the port is missing)."""
    form = f"give {scheme}://HOST:PORT"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port not a number or outside 0-65535, or an unclosed [IPv6 address
        raise ValueError(
            f"{url!r}: not a host and a port number 0 to {MAX_TCP_PORT}; {form}"
        ) from None
    if not parts.hostname:
        raise ValueError(f"{url!r} names no host; {form}")
    if port is None:
        raise ValueError(f"{url!r} names no port number; {form}")
    options = parse_qs(parts.query, keep_blank_values=True)
    if scheme == "rfc2217":
        # pyserial reads these only as it opens the port: a misspelt one failed there, over
        # and over, as a box not available.
        unknown = sorted(set(options) - set(RFC2217_URL_OPTIONS))
        if unknown:
            raise ValueError(
                f"{url!r}: no option {unknown[0]!r}; rfc2217:// takes "
                + ", ".join(f"?{option}" for option in RFC2217_URL_OPTIONS)
            )
        return
    for option, values in options.items():
        if option != "logging" or values[0] not in SOCKET_URL_LOGGING_LEVELS:
            levels = "|".join(SOCKET_URL_LOGGING_LEVELS)
            raise ValueError(f"{url!r}: the only option is ?logging={levels}")


def _answers_as_box(device: str) -> bool:
    try:
        # A write timeout too: a port of another device, flow-controlled, could hold a
        # handshake written to it for ever.
        port = serial.serial_for_url(
            device,
            baudrate=BAUD_RATE,
            timeout=READ_POLL_S,
            write_timeout=WRITE_TIMEOUT_S,
            exclusive=True,
        )
    except PortError as error:
        log.debug("auto-detect: %s: %s", device, error)
        return False
    try:
        splitter = LineSplitter()
        deadline = time.monotonic() + DETECT_REPLY_TIMEOUT_S
        resend_at = 0.0
        while (now := time.monotonic()) < deadline:
            if now >= resend_at:
                port.write(encode_command(HANDSHAKE_SEQUENCE, "HELLO"))
                resend_at = now + RESEND_TIMEOUT_S
            for line in splitter.feed(port.read(64)):
                text = parse_device_line(line)
                if text is not None and text.startswith(("ID nertsbox ", "HELLO nertsbox ")):
                    return True
    except PortError as error:
        log.debug("auto-detect: %s: %s", device, error)
    finally:
        port.close()
    return False


def detect_box() -> str | None:
    """The device path of the first serial port with a nerts box on it, or None."""
    for info in sorted(serial.tools.list_ports.comports(), key=lambda info: str(info.device)):
        device = str(info.device)
        if _answers_as_box(device):
            log.info("found a nerts box on %s", device)
            return device
    return None
