"""Malformed input raises these; a rules violation is never an exception but a verdict."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.events import Event


_JSON_KINDS = {bool: "true or false", int: "a number", float: "a number", str: "a string"}


def json_kind(value: object) -> str:
    """What a parsed JSON value is, in JSON's own words (an array, null), for messages."""
    if value is None:
        return "null"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return _JSON_KINDS.get(type(value), type(value).__name__)


JSON_SHOWN_MAX = 60
"""Characters of a wrong value shown in a message: a line may hold megabytes."""


def json_text(value: object) -> str:
    """A value read from JSON, written as JSON (null, "1", [1, 2]) for a message, cut short."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= JSON_SHOWN_MAX else text[: JSON_SHOWN_MAX - 3] + "..."


class RefereeInputError(ValueError):
    """Input the referee cannot understand. The message names the offending input."""


class InvalidCardError(RefereeInputError):
    """A card string that is not `<rank><suit>` (e.g. "10H", "QS"); a joker is played as its
    declared card, marked `"joker": true` on its play."""


class EventError(RefereeInputError):
    """A table event with a missing or wrong key, or one that contradicts the round's setup.

    `event` is the offending event where it was parsed already: the referee decides a frame
    once the next one begins, so a caller reading a file can name the event's own line."""

    def __init__(self, message: str, event: Event | None = None) -> None:
        super().__init__(message)
        self.event = event
