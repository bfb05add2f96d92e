"""House-rule options: named, documented settings rather than numbers buried in the rules."""

from __future__ import annotations

import math
from dataclasses import dataclass

from referee.errors import RefereeInputError

DEFAULT_TARGET_SCORE = 100
TARGET_SCORE_MAX = 10_000
"""The highest target taken: a round scores at most a deck's 52 cards and a bonus, so a game
to more takes a hundred rounds and more, and is a typo."""
DEFAULT_NERTS_PILE_SIZE = 13
NERTS_PILE_SIZE_MAX = 52
"""The largest Nerts pile a house rule may deal: a whole deck."""
CALLER_BONUS_MAX = 100
"""The largest caller bonus taken: house rules give 10, and over ten times that is a typo."""
# After a valid Nerts call "cards already in the air may finish their move and count". A card
# released on a foundation up to this many seconds (frame timestamps) after the call still counts:
# a hand needs about half a second to finish a placement it had started.
DEFAULT_IN_AIR_GRACE_S = 0.5


@dataclass(frozen=True)
class RuleOptions:
    target_score: int = DEFAULT_TARGET_SCORE
    caller_bonus: int = 0
    nerts_pile_size: int = DEFAULT_NERTS_PILE_SIZE
    in_air_grace_s: float = DEFAULT_IN_AIR_GRACE_S

    def __post_init__(self) -> None:
        for name in ("target_score", "caller_bonus", "nerts_pile_size"):
            value = getattr(self, name)
            if type(value) is not int:  # bool is an int, and NaN compares false to everything
                raise RefereeInputError(f"{name} must be a whole number, got {value!r}")
        if type(self.in_air_grace_s) not in (int, float):
            raise RefereeInputError(f"in_air_grace_s must be a number, got {self.in_air_grace_s!r}")
        if self.target_score <= 0:
            raise RefereeInputError(f"target score must be positive, got {self.target_score}")
        if self.target_score > TARGET_SCORE_MAX:
            raise RefereeInputError(
                f"target score must be at most {TARGET_SCORE_MAX} (a typo?), "
                f"got {self.target_score}"
            )
        if not 0 <= self.caller_bonus <= CALLER_BONUS_MAX:
            raise RefereeInputError(
                f"caller bonus must be 0 to {CALLER_BONUS_MAX} points (a house rule gives 10), "
                f"got {self.caller_bonus}"
            )
        if not 1 <= self.nerts_pile_size <= NERTS_PILE_SIZE_MAX:
            raise RefereeInputError(
                f"Nerts pile size must be 1..{NERTS_PILE_SIZE_MAX}, got {self.nerts_pile_size}"
            )
        if not 0 <= self.in_air_grace_s < math.inf:  # also refuses NaN
            raise RefereeInputError(
                f"in-air grace must be a finite number of seconds, not negative; "
                f"got {self.in_air_grace_s}"
            )
