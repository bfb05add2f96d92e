"""Malformed input raises these; a rules violation is never an exception but a verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.events import Event


class RefereeInputError(ValueError):
    """Input the referee cannot understand. The message names the offending input."""


class InvalidCardError(RefereeInputError):
    """A card string that is not `<rank><suit>` (e.g. "10H", "QS") or a joker ("JK", "JK=5H")."""


class EventError(RefereeInputError):
    """A table event with a missing or wrong key, or one that contradicts the round's setup.

    `event` is the offending event where it was parsed already: the referee decides a frame
    once the next one begins, so a caller reading a file can name the event's own line."""

    def __init__(self, message: str, event: Event | None = None) -> None:
        super().__init__(message)
        self.event = event
