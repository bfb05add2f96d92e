"""The table-event vocabulary of contracts/events.md as frozen value types.

`referee.event_parsing.event_from_dict` validates one decoded JSON object; `Event.to_dict`
gives it back in the contract's form, with any keys it does not know (`Event.extras`) after its
own. Reading and writing files is the app's business, not this module's.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from referee.cards import Card, Suit


class Verdict(enum.Enum):
    ACCEPTED = "accepted"
    TIE = "tie"
    LATE = "late"
    ILLEGAL = "illegal"

    @property
    def stays(self) -> bool:
        """Whether the card stays on the foundation (and scores)."""
        return self in (Verdict.ACCEPTED, Verdict.TIE)


class RoundEndCause(enum.Enum):
    """What ended a round: the contract's `round_end` leaves it unsaid, so it is written as an
    extension key, `ended_by` (readers ignore unknown keys)."""

    NERTS_CALL = "nerts_call"  # a valid call, once the cards in the air were down
    STUCK = "stuck"  # a second stuck with no progress since the first
    NEXT_ROUND = "next_round"  # neither: the next deal ended it


class IllegalReason(enum.Enum):
    WRONG_SUIT = "wrong_suit"
    WRONG_RANK = "wrong_rank"
    NOT_AN_ACE = "not_an_ace"


# Reasons earlier versions wrote, outside the contract's list; read as no reason (the verdicts of
# a log are decided again anyway). "round_over": a play after the round ended, now `late`.
RETIRED_REASONS = frozenset({"round_over"})


@dataclass(frozen=True, slots=True)
class Event:
    frame: int
    t: float
    extras: Mapping[str, Any] | None = field(default=None, compare=False, repr=False, kw_only=True)
    """Top-level keys of the log's object this version does not know (the contract lets tools
    add diagnostics): never judged, written back after the event's own keys; read-only, and
    their values are the log's own (not to be changed)."""
    TYPE: ClassVar[str] = ""

    @property
    def type_name(self) -> str:
        """The event's `type` as the log spells it (also for a type this version does not know)."""
        return self.TYPE

    def to_dict(self) -> dict[str, Any]:
        known = {"frame": self.frame, "t": self.t, "type": self.TYPE, **self._payload()}
        if self.extras:  # after the event's own keys, which they never replace
            known |= {key: value for key, value in self.extras.items() if key not in known}
        return known

    def _payload(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    back: str
    # Extension key for the handicap variant: this seat's Nerts pile size, when not the round's.
    nerts_pile: int | None = None
    extras: Mapping[str, Any] | None = field(default=None, compare=False, repr=False, kw_only=True)
    """The seat object's keys this version does not know, kept as `Event.extras` are."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "back": self.back}
        if self.nerts_pile is not None:
            data["nerts_pile"] = self.nerts_pile
        if self.extras:
            data |= {key: value for key, value in self.extras.items() if key not in data}
        return data


@dataclass(frozen=True, slots=True)
class RoundStart(Event):
    round: int
    seats: tuple[SeatInfo, ...]
    nerts_pile: int
    TYPE: ClassVar[str] = "round_start"

    def _payload(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "seats": [seat.to_dict() for seat in self.seats],
            "nerts_pile": self.nerts_pile,
        }

    def pile_size(self, seat: int) -> int:
        for info in self.seats:
            if info.seat == seat and info.nerts_pile is not None:
                return info.nerts_pile
        return self.nerts_pile


@dataclass(frozen=True, slots=True)
class Play(Event):
    seat: int
    card: Card
    pile: str
    verdict: Verdict | None = None
    reason: IllegalReason | None = None
    # Jokers variant: `card` is the joker's declared identity.
    joker: bool = False
    TYPE: ClassVar[str] = "play"

    def _payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "card": str(self.card), "pile": self.pile}
        if self.verdict is not None:
            data["verdict"] = self.verdict.value
        if self.reason is not None:
            data["reason"] = self.reason.value
        if self.joker:
            data["joker"] = True
        return data


@dataclass(frozen=True, slots=True)
class TakeBack(Event):
    seat: int
    card: Card
    pile: str
    TYPE: ClassVar[str] = "take_back"

    def _payload(self) -> dict[str, Any]:
        return {"seat": self.seat, "card": str(self.card), "pile": self.pile}


@dataclass(frozen=True, slots=True)
class PileComplete(Event):
    pile: str
    suit: Suit
    TYPE: ClassVar[str] = "pile_complete"

    def _payload(self) -> dict[str, Any]:
        return {"pile": self.pile, "suit": self.suit.value}


@dataclass(frozen=True, slots=True)
class NertsCount(Event):
    seat: int
    remaining: int
    TYPE: ClassVar[str] = "nerts_count"

    def _payload(self) -> dict[str, Any]:
        return {"seat": self.seat, "remaining": self.remaining}


@dataclass(frozen=True, slots=True)
class Stuck(Event):
    TYPE: ClassVar[str] = "stuck"


@dataclass(frozen=True, slots=True)
class NertsCall(Event):
    seat: int
    valid: bool | None = None
    TYPE: ClassVar[str] = "nerts_call"

    def _payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat}
        if self.valid is not None:
            data["valid"] = self.valid
        return data


def _by_seat(values: Mapping[int, int]) -> dict[str, int]:
    return {str(seat): values[seat] for seat in sorted(values)}


@dataclass(frozen=True, slots=True)
class RoundEnd(Event):
    round: int
    scores: Mapping[int, int]
    foundation: Mapping[int, int]
    nerts_left: Mapping[int, int]
    # House rule: the caller's bonus, kept apart so that scores = foundation - 2 * nerts_left
    # holds exactly as the contract says; totals add it.
    bonus: Mapping[int, int] = field(default_factory=dict)
    # Extension keys, so that a reader need not replay the rules to say how the round ended:
    # the cause, and the seat whose valid call came first (None where no one called validly).
    ended_by: RoundEndCause | None = None
    caller: int | None = None
    TYPE: ClassVar[str] = "round_end"

    def _payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "round": self.round,
            "scores": _by_seat(self.scores),
            "foundation": _by_seat(self.foundation),
            "nerts_left": _by_seat(self.nerts_left),
        }
        if any(self.bonus.values()):
            data["bonus"] = _by_seat(self.bonus)
        if self.ended_by is not None:
            data["ended_by"] = self.ended_by.value
        if self.caller is not None:
            data["caller"] = self.caller
        return data


@dataclass(frozen=True, slots=True)
class GameEnd(Event):
    totals: Mapping[int, int]
    winner: int
    TYPE: ClassVar[str] = "game_end"

    def _payload(self) -> dict[str, Any]:
        return {"totals": _by_seat(self.totals), "winner": self.winner}


@dataclass(frozen=True, slots=True)
class OtherEvent(Event):
    """A type this version does not know: kept and written back unchanged."""

    type: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def type_name(self) -> str:
        return self.type

    def to_dict(self) -> dict[str, Any]:
        return {**self.data, "frame": self.frame, "t": self.t, "type": self.type}
