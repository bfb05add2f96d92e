"""The box's device side as a pure state machine: bytes from the host in, bytes to the host out.

`BoxDevice` follows the protocol file to the letter and keeps the box's visible state (lights,
display, scores) plus a log of the commands it executed, which tests compare with what the host
sent. The pty and TCP front ends (`emulator`) and the fault injector (`faults`) wrap it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from hardware.framing import (
    OVERLONG_LINE,
    CommandLine,
    LineSplitter,
    encode_device_line,
    next_sequence,
    parse_command_line,
)

FIRMWARE_VERSION = "emu-1.0"
DEFAULT_SEATS = 4
MAX_SEATS = 8
BUZZ_PATTERNS = ("NERTS", "LATE", "ILLEGAL", "STUCK", "ROUND", "WIN", "BEEP")
LIGHT_MODES = ("SOLID", "BLINK", "PULSE")
# Scores are shown as 16-bit signed integers (the firmware's range).
MIN_SCORE, MAX_SCORE = -32768, 32767
LIGHT_OFF = "OFF"
# A Nerts call blinks the caller's light in its colour, or in this one when it was off.
NERTS_COLOUR = "FFFFFF"

_SEAT = re.compile(r"[0-9]{1,3}")
_COLOUR = re.compile(r"[0-9A-Fa-f]{6}")
_POINTS = re.compile(r"[-+]?[0-9]{1,6}")


class CommandError(Exception):
    """A well-formed command that is invalid; its code is the `er` reply's code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Light:
    colour: str = LIGHT_OFF  # "OFF" or "RRGGBB" in upper case
    mode: str = "SOLID"


@dataclass
class BoxState:
    """What a player would see on the box."""

    seats: int
    lights: list[Light] = field(default_factory=list)
    display: str = ""
    scores: dict[int, int] = field(default_factory=dict)
    buzzer: str | None = None  # the last pattern started, None when silent
    nerts_caller: int | None = None

    def clear(self) -> None:
        self.lights = [Light() for _ in range(self.seats)]
        self.display = ""
        self.scores = {}
        self.buzzer = None
        self.nerts_caller = None


# Called with every executed command's text, after the state has changed.
CommandObserver = Callable[[str], None]


class BoxDevice:
    """The device side of the protocol. Feed it host bytes; it returns the bytes it answers."""

    def __init__(
        self,
        seats: int = DEFAULT_SEATS,
        version: str = FIRMWARE_VERSION,
        on_command: CommandObserver | None = None,
    ) -> None:
        if not 1 <= seats <= MAX_SEATS:
            raise ValueError(f"a box has 1 to {MAX_SEATS} seats, not {seats}")
        self.version = version
        self.state = BoxState(seats=seats)
        self.executed: list[str] = []  # every executed command's text, in order
        self.on_command = on_command
        self._splitter = LineSplitter()
        self._last_executed = 0
        self.state.clear()

    @property
    def seats(self) -> int:
        return self.state.seats

    @property
    def expected(self) -> int:
        return next_sequence(self._last_executed)

    def power_up(self) -> bytes:
        """Reset as at power-up: forget the sequence, clear the box, announce with HELLO."""
        self._splitter.reset()
        self._last_executed = 0
        self.state.clear()
        return encode_device_line(f"HELLO nertsbox {self.version} seats={self.seats}")

    def press_button(self, seat: int) -> bytes:
        """A seat's Nerts! button was pressed (already debounced)."""
        if not 0 <= seat < self.seats:
            raise ValueError(f"no seat {seat} on a {self.seats}-seat box")
        return encode_device_line(f"BTN {seat}")

    def feed(self, data: bytes) -> bytes:
        """Process bytes from the host; return the reply bytes (one reply per complete line)."""
        return b"".join(self.replies(data))

    def replies(self, data: bytes) -> Iterator[bytes]:
        """Process bytes from the host, yielding the answer to each complete line in turn."""
        for line in self._splitter.feed(data):
            yield self.handle_line(line)

    def handle_line(self, line: bytes) -> bytes:
        """Answer one complete line (terminator removed)."""
        command = None if line == OVERLONG_LINE else parse_command_line(line)
        if command is None:
            return encode_device_line(f"rs {self.expected}")
        if command.words[0] == "HELLO" and len(command.words) == 1:
            self._last_executed = command.seq
            self._record(command.text)
            return encode_device_line(f"ok {command.seq}") + encode_device_line(
                f"ID nertsbox {self.version} seats={self.seats}"
            )
        if command.seq == self._last_executed:
            return encode_device_line(f"ok {command.seq}")
        if command.seq != self.expected:
            return encode_device_line(f"rs {self.expected}")
        self._last_executed = command.seq
        try:
            self._execute(command)
        except CommandError as error:
            return encode_device_line(f"er {command.seq} {error.code}")
        self._record(command.text)
        return encode_device_line(f"ok {command.seq}")

    def _record(self, text: str) -> None:
        self.executed.append(text)
        if self.on_command is not None:
            self.on_command(text)

    def _seat(self, word: str) -> int:
        if not _SEAT.fullmatch(word):
            raise CommandError("ARG")
        seat = int(word)
        if seat >= self.seats:
            raise CommandError("SEAT")
        return seat

    def _execute(self, command: CommandLine) -> None:
        name, args = command.words[0], command.words[1:]
        state = self.state
        if name == "PING" and not args:
            return
        if name == "RESET" and not args:
            state.clear()
        elif name == "LIGHT" and len(args) in (2, 3):
            seat = self._seat(args[0])
            colour = args[1]
            mode = args[2] if len(args) == 3 else "SOLID"
            if not (colour == LIGHT_OFF or _COLOUR.fullmatch(colour)) or mode not in LIGHT_MODES:
                raise CommandError("ARG")
            state.lights[seat] = Light(colour.upper(), mode)
        elif name == "BUZZ" and len(args) == 1:
            if args[0] not in BUZZ_PATTERNS:
                raise CommandError("ARG")
            state.buzzer = args[0]
        elif name == "SHOW":
            # The rest of the line, after "SHOW ".
            text = command.text[len("SHOW ") :]
            if not all(" " <= char <= "~" for char in text):
                raise CommandError("ARG")
            state.display = text
        elif name == "SCORE" and len(args) == 2:
            seat = self._seat(args[0])
            if not _POINTS.fullmatch(args[1]) or not MIN_SCORE <= int(args[1]) <= MAX_SCORE:
                raise CommandError("ARG")
            state.scores[seat] = int(args[1])
        elif name == "NERTS" and len(args) == 1:
            seat = self._seat(args[0])
            state.nerts_caller = seat
            colour = state.lights[seat].colour
            # A light set to black is off too (as the firmware has it): blink a colour one sees.
            dark = colour in (LIGHT_OFF, "000000")
            state.lights[seat] = Light(NERTS_COLOUR if dark else colour, "BLINK")
            state.buzzer = "NERTS"
        elif name in ("PING", "RESET", "LIGHT", "BUZZ", "SCORE", "NERTS", "HELLO"):
            raise CommandError("ARG")
        else:
            raise CommandError("UNKNOWN")
