"""Framing of the box protocol: CRC, line splitting, and parsing of both directions.

Host to device: ``N<seq> <COMMAND> [ARG ...]*<CRC>\\n``. Device to host: ``<TEXT>*<CRC>\\n``.
The CRC is CRC-16/CCITT-FALSE over every byte before the ``*``, as four uppercase hex digits.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass

# A line may be at most this long, its terminating newline included.
MAX_LINE_BYTES = 64
# Sequence numbers run from 1 to this, then wrap to 1.
MAX_SEQUENCE = 65535
CRC_INITIAL = 0xFFFF

_COMMAND_LINE = re.compile(rb"N([0-9]{1,5}) ([^*]*)\*([0-9A-F]{4})")
_DEVICE_LINE = re.compile(rb"([^*]+)\*([0-9A-F]{4})")
# Bytes a command's text may hold: printable ASCII without the CRC separator.
_PRINTABLE = re.compile(r"[ -)+-~]+")


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, no reflection, no final XOR."""
    return binascii.crc_hqx(data, CRC_INITIAL)


def _with_crc(body: bytes) -> bytes:
    return body + b"*%04X\n" % crc16(body)


def next_sequence(seq: int) -> int:
    """The number that follows `seq` (after 65535 comes 1)."""
    return seq % MAX_SEQUENCE + 1


def encode_command(seq: int, text: str) -> bytes:
    """The host's line for command `text` numbered `seq`."""
    if not 1 <= seq <= MAX_SEQUENCE:
        raise ValueError(f"sequence number {seq} is outside 1..{MAX_SEQUENCE}")
    return _with_crc(b"N%d %s" % (seq, text.encode("ascii")))


def encode_device_line(text: str) -> bytes:
    """The device's line for reply or event `text`."""
    return _with_crc(text.encode("ascii"))


def check_command_text(text: str) -> str:
    """Return `text` if it can travel as a command with any number, else raise ValueError.
    Words are separated by single spaces, but a `SHOW`'s text is the rest of the line."""
    if not text:
        raise ValueError("a command is empty: give one, e.g. PING")
    if "*" in text:
        raise ValueError(f"command {text!r} holds '*', which marks a line's check: leave it out")
    if not _PRINTABLE.fullmatch(text):
        raise ValueError(f"command {text!r} must be printable ASCII (letters, digits, signs)")
    if not text.startswith("SHOW ") and (text != text.strip() or "  " in text):
        raise ValueError(
            f"command {text!r} must be words separated by single spaces (a SHOW's text is "
            "shown as given)"
        )
    if len(encode_command(MAX_SEQUENCE, text)) > MAX_LINE_BYTES:
        raise ValueError(f"command {text!r} does not fit in a {MAX_LINE_BYTES}-byte line")
    return text


@dataclass(frozen=True)
class CommandLine:
    """A host line as the device parsed it: its number and its words."""

    seq: int
    words: tuple[str, ...]
    text: str


def parse_command_line(line: bytes) -> CommandLine | None:
    """Parse one host line (terminator removed); None if corrupt, unparsable or misnumbered."""
    match = _COMMAND_LINE.fullmatch(line)
    if match is None:
        return None
    body = line[: match.start(3) - 1]
    if int(match.group(3), 16) != crc16(body):
        return None
    seq = int(match.group(1))
    text = match.group(2).decode("ascii", errors="replace")
    words = tuple(text.split(" "))
    if not 1 <= seq <= MAX_SEQUENCE or not words[0]:
        return None
    return CommandLine(seq=seq, words=words, text=text)


def parse_device_line(line: bytes) -> str | None:
    """The text of a device line (terminator removed); None if its CRC is wrong or it is garbled."""
    match = _DEVICE_LINE.fullmatch(line)
    if match is None or int(match.group(2), 16) != crc16(match.group(1)):
        return None
    try:
        return match.group(1).decode("ascii")
    except UnicodeDecodeError:
        return None


# Marks a line that was longer than MAX_LINE_BYTES (it must be answered like a bad CRC).
OVERLONG_LINE = b"\x00overlong"


class LineSplitter:
    """Cuts a byte stream into lines: drops a `\\r` before `\\n`, replaces over-long lines.

    The line is yielded without its terminator; a line longer than MAX_LINE_BYTES (terminator
    included) is discarded up to its newline and yielded as OVERLONG_LINE.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._overlong = False

    def reset(self) -> None:
        self._buffer.clear()
        self._overlong = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        for byte in data:
            if byte == 0x0A:
                line = bytes(self._buffer)
                overlong = self._overlong
                self.reset()
                if overlong:
                    yield OVERLONG_LINE
                else:
                    yield line.removesuffix(b"\r")
            elif not self._overlong:
                self._buffer.append(byte)
                # Room must remain for the newline.
                if len(self._buffer) > MAX_LINE_BYTES - 1:
                    self._overlong = True
                    self._buffer.clear()
