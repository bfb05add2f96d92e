"""Malformed input raises these; a rules violation is never an exception but a verdict."""


class RefereeInputError(ValueError):
    """Input the referee cannot understand. The message names the offending input."""


class InvalidCardError(RefereeInputError):
    """A card string that is not `<rank><suit>` (e.g. "10H", "QS") or a joker ("JK", "JK=5H")."""


class EventError(RefereeInputError):
    """A table event with a missing or wrong key, or one that contradicts the round's setup."""
