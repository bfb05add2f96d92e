"""Command-line values the benchmarks share: a count or a duration that must be positive is
refused in argparse's one line (a zero had ended in a division by zero, a negative in a silent
empty run that printed 0/0 against its target)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `minimum`."""

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"give a whole number from {minimum} up, got {text!r}")
        return value

    return whole


positive_int = at_least(1)


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"give a number above 0, got {text!r}")
    return value


def frame_size(text: str) -> tuple[int, int]:
    """An argparse type: a frame size written WIDTHxHEIGHT, e.g. 1280x720."""
    width, _, height = text.lower().partition("x")
    if not (width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0):
        raise argparse.ArgumentTypeError(
            f"give a size as WIDTHxHEIGHT, e.g. 1280x720, got {text!r}"
        )
    return int(width), int(height)
