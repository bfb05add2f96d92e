"""Padding names into table columns by the width a terminal shows them at, not their length:
a Chinese or Japanese character fills two columns, an accent combined with its letter none."""

from __future__ import annotations

import unicodedata

WIDE_CLASSES = ("W", "F")
"""East Asian width classes a terminal shows two columns wide (Unicode annex 11)."""


def shown_width(text: str) -> int:
    """The columns `text` fills on a terminal."""
    return sum(
        0
        if unicodedata.combining(char)
        else 2
        if unicodedata.east_asian_width(char) in WIDE_CLASSES
        else 1
        for char in text
    )


def left(text: str, width: int) -> str:
    """`text` padded on the right to fill `width` columns."""
    return text + " " * max(0, width - shown_width(text))


def right(text: str, width: int) -> str:
    """`text` padded on the left to fill `width` columns."""
    return " " * max(0, width - shown_width(text)) + text


def first_few(items: list[str], shown: int, separator: str = ", ") -> str:
    """The first `shown` of `items` joined, and how many more there are ("a, b and 3 more")."""
    joined = separator.join(items[:shown])
    return joined if len(items) <= shown else f"{joined} and {len(items) - shown} more"
