"""The emulated box in a terminal: seat lights in colour, the display, buzzes, keys as buttons.

This is the emulator's user interface, so it writes to its output stream (stdout) directly.
Keys: `0`-`7` press that seat's Nerts! button, `r` resets the box (power cycle), `q` quits.
"""

from __future__ import annotations

import os
import select
import sys
import termios
import threading
import time
import tty
from collections.abc import Callable
from typing import TextIO

from hardware.device import LIGHT_OFF, BoxState, Light

# How often the keyboard loop looks up to check for a stop request.
KEY_POLL_S = 0.1
RESET_KEY, QUIT_KEY = "r", "q"
ESCAPE = "\x1b"
"""What a function or arrow key's sequence begins with ("\x1b[15~" for F5, "\x1bOP" for F1):
its digits are no seat buttons."""


def plain_keys(typed: str, escaping: str = "") -> tuple[str, str]:
    """The keys of `typed` outside escape sequences, and the part of a sequence still being
    read at its end (`escaping`: given back with the next read, as a slow link splits one)."""
    keys = []
    for char in typed:
        if escaping == ESCAPE:  # "[" or "O" opens a longer sequence; any other ends it (Alt+key)
            escaping = escaping + char if char in "[O" else ""
        elif escaping:  # "\x1bO" takes one byte more, "\x1b[" runs to one from "@" to "~"
            ended = escaping == ESCAPE + "O" or "@" <= char <= "~"
            escaping = "" if ended else escaping + char
        elif char == ESCAPE:
            escaping = ESCAPE
        else:
            keys.append(char)
    return "".join(keys), escaping


KEYS_READ_MAX = 64
"""The most bytes of keys read at once: a fast typist's several keys, or a key's whole sequence."""
_MODE_GLYPH = {"SOLID": "●", "BLINK": "◉", "PULSE": "◎"}


def _light(light: Light, colour: bool) -> str:
    if light.colour == LIGHT_OFF:
        return "○"
    glyph = _MODE_GLYPH.get(light.mode, "●")
    if not colour:
        return f"{glyph}#{light.colour}"
    red, green, blue = (int(light.colour[index : index + 2], 16) for index in (0, 2, 4))
    return f"\x1b[38;2;{red};{green};{blue}m{glyph}\x1b[0m"


def render(state: BoxState, colour: bool = True) -> str:
    """One line showing the box: lights by seat, the display text, the scores, a Nerts call."""
    lights = " ".join(f"{seat}{_light(light, colour)}" for seat, light in enumerate(state.lights))
    scores = " ".join(f"{seat}:{points}" for seat, points in sorted(state.scores.items()))
    parts = [lights, f"[{state.display:<16}]"]
    if scores:
        parts.append(f"scores {scores}")
    if state.nerts_caller is not None:
        parts.append(f"NERTS! seat {state.nerts_caller}")
    return "  ".join(parts)


class TerminalDisplay:
    """Prints one line per executed command: the command, any buzz, and the box after it."""

    def __init__(self, state: BoxState, out: TextIO = sys.stdout, colour: bool = True) -> None:
        self.state = state
        self.out = out
        self.colour = colour
        self._started = time.monotonic()

    def show_command(self, text: str) -> None:
        elapsed = time.monotonic() - self._started
        buzz = f"  ♪ {self.state.buzzer}" if text.startswith(("BUZZ", "NERTS")) else ""
        self.out.write(f"{elapsed:8.3f}  {text:<30}{render(self.state, self.colour)}{buzz}\n")
        self.out.flush()

    def show(self, message: str) -> None:
        self.out.write(f"{message}\n")
        self.out.flush()


def in_foreground(keys: TextIO) -> bool:
    """Whether this process may read keys from the terminal `keys`: a job started in the
    background ('nerts box-emulator --tcp 7777 &') that set the terminal's mode would be
    stopped by the shell (SIGTTOU), and its box fall silent."""
    try:
        return os.tcgetpgrp(keys.fileno()) == os.getpgrp()
    except OSError:  # not this process's controlling terminal
        return False


def read_keys(
    on_button: Callable[[int], None],
    on_reset: Callable[[], None],
    stop: threading.Event,
    seats: int,
    keys: TextIO,
    *,
    say: Callable[[str], None] | None = None,
) -> None:
    """Until `q` or `stop`: digits press seat buttons, `r` resets. Needs a terminal on `keys`.
    `say`, if given, is told each press and reset, and a digit with no seat, in words: a press
    changes nothing on the box itself, so the screen would not show it otherwise."""
    tell = say or (lambda _message: None)
    descriptor = keys.fileno()
    saved = termios.tcgetattr(descriptor)
    tty.setcbreak(descriptor)
    escaping = ""  # the part of an escape sequence read so far, if one is being read
    try:
        while not stop.is_set():
            readable, _, _ = select.select([descriptor], [], [], KEY_POLL_S)
            if not readable:
                continue
            typed = os.read(descriptor, KEYS_READ_MAX).decode("ascii", errors="replace")
            keys_typed, escaping = plain_keys(typed, escaping)
            for key in keys_typed:
                if key == QUIT_KEY:
                    return
                if key == RESET_KEY:
                    tell("reset: the box powers up again")
                    on_reset()
                elif key.isdecimal() and int(key) < seats:
                    tell(f"seat {key}'s Nerts! button pressed")
                    on_button(int(key))
                elif key.isdecimal():
                    tell(f"no seat {key} on this box: seats 0-{seats - 1}")
    finally:
        termios.tcsetattr(descriptor, termios.TCSADRAIN, saved)
