"""Whole numbers as people and logs write them: plain ASCII digits, a handful of them."""

from __future__ import annotations

PLAIN_DIGITS_MAX = 9
"""More digits than any seat, round or score needs: a longer number is a slip (Python's `int`
refuses one of over 4,300 digits with an error of its own)."""


def plain_number(text: str, signed: bool = False) -> int | None:
    """`text` as an integer where it is written plainly: ASCII digits, a sign first if `signed`,
    at most `PLAIN_DIGITS_MAX` digits; else None. (`int` would also take '1_0', ' 12' and other
    scripts' digits, '١٢'.)"""
    digits = text[1:] if signed and text[:1] in ("-", "+") else text
    if not (0 < len(digits) <= PLAIN_DIGITS_MAX and digits.isascii() and digits.isdigit()):
        return None
    return int(text)
