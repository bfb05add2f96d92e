"""The table-event vocabulary of contracts/events.md as frozen value types.

`event_from_dict` validates one decoded JSON object; `Event.to_dict` gives it back in the
contract's form, with any keys it does not know (`Event.extras`) after its own. Reading and
writing files is the app's business, not this module's.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from functools import partial
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from referee.cards import Card, Suit
from referee.errors import EventError, InvalidCardError, json_kind, json_text
from referee.numbers import PLAIN_DIGITS_MAX, plain_number
from referee.options import NERTS_PILE_SIZE_MAX


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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class TakeBack(Event):
    seat: int
    card: Card
    pile: str
    TYPE: ClassVar[str] = "take_back"

    def _payload(self) -> dict[str, Any]:
        return {"seat": self.seat, "card": str(self.card), "pile": self.pile}


@dataclass(frozen=True)
class PileComplete(Event):
    pile: str
    suit: Suit
    TYPE: ClassVar[str] = "pile_complete"

    def _payload(self) -> dict[str, Any]:
        return {"pile": self.pile, "suit": self.suit.value}


@dataclass(frozen=True)
class NertsCount(Event):
    seat: int
    remaining: int
    TYPE: ClassVar[str] = "nerts_count"

    def _payload(self) -> dict[str, Any]:
        return {"seat": self.seat, "remaining": self.remaining}


@dataclass(frozen=True)
class Stuck(Event):
    TYPE: ClassVar[str] = "stuck"


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class GameEnd(Event):
    totals: Mapping[int, int]
    winner: int
    TYPE: ClassVar[str] = "game_end"

    def _payload(self) -> dict[str, Any]:
        return {"totals": _by_seat(self.totals), "winner": self.winner}


@dataclass(frozen=True)
class OtherEvent(Event):
    """A type this version does not know: kept and written back unchanged."""

    type: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def type_name(self) -> str:
        return self.type

    def to_dict(self) -> dict[str, Any]:
        return {**self.data, "frame": self.frame, "t": self.t, "type": self.type}


# ---- parsing -------------------------------------------------------------------------------


SEAT_MAX = 10**PLAIN_DIGITS_MAX - 1
"""The highest seat number read: seats key the scores of a round's end, where a seat is written
in at most `PLAIN_DIGITS_MAX` digits, so the referee's own output reads back."""

E = TypeVar("E", bound=enum.Enum)
T = TypeVar("T")


class _Reader:
    """Typed access to one event object; every error names the event type and the key."""

    def __init__(self, data: Mapping[str, Any], kind: str) -> None:
        self.data = data
        self.kind = kind
        self.set_aside: set[str] = set()
        """Extension keys whose values are not this version's: kept as extras."""

    def extension(self, key: str, read: Callable[[str], T], form: type | None = None) -> T | None:
        """An extension key's value (one of this project's keys beyond the contract), or None
        where it is missing or not of the form this version writes: the contract has readers
        ignore keys they do not know, so another tool's key of that name is kept as an extra
        (`set_aside`), not refused. A value of this version's JSON type (`form`, where one is
        given) is this version's, and refused if `read` refuses it (a pile of 60 cards)."""
        value = self.data.get(key)
        if value is None:
            return None
        if type(value) is form:
            return read(key)
        try:
            return read(key)
        except EventError:
            self.set_aside.add(key)
            return None

    def fail(self, key: str, expected: str) -> EventError:
        if key not in self.data:
            return EventError(f"{self.kind}: {key!r} is missing; it must be {expected}")
        return EventError(
            f"{self.kind}: {key!r} must be {expected}, got {json_text(self.data[key])}"
        )

    # The checks compare exact types: JSON gives plain int, float and str, `type(...) is int`
    # refuses bools in one test, and these run several times for every line of a long log.

    def integer(self, key: str, minimum: int = 0) -> int:
        value = self.data.get(key)
        if type(value) is not int or value < minimum:
            raise self.fail(key, f"an integer >= {minimum}")
        return value

    def bounded(self, key: str, minimum: int, maximum: int) -> int:
        """An integer from `minimum` to `maximum`."""
        value = self.data.get(key)
        if type(value) is not int or not minimum <= value <= maximum:
            raise self.fail(key, f"an integer from {minimum} to {maximum}")
        return value

    def seat(self, key: str) -> int:
        """A seat number, at most `SEAT_MAX`: one the writer can also key scores by."""
        return self.bounded(key, 0, SEAT_MAX)

    def number(self, key: str) -> float:
        """A finite number, not negative (times are seconds from the first frame)."""
        value = self.data.get(key)
        if type(value) is float:
            if 0.0 <= value < math.inf:
                return value
        elif type(value) is int and value >= 0:
            try:
                return float(value)
            except OverflowError:  # JSON allows integers of hundreds of digits
                pass
        raise self.fail(key, "a finite number >= 0")

    def text(self, key: str) -> str:
        value = self.data.get(key)
        if type(value) is not str or not value:
            raise self.fail(key, "a non-empty string")
        return value

    def card(self, key: str) -> Card:
        text = self.text(key)
        try:
            return Card.parse(text)
        except InvalidCardError as error:
            raise EventError(f"{self.kind}: {key!r}: {error}") from None

    def optional_bool(self, key: str) -> bool | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, bool):
            raise self.fail(key, "true or false")
        return value

    def choice(self, key: str, kind: type[E]) -> E | None:
        value = self.data.get(key)
        if value is None:
            return None
        try:
            return kind(value)
        except ValueError:
            choices = ", ".join(repr(member.value) for member in kind)
            raise self.fail(key, f"one of {choices}") from None

    def by_seat(self, key: str) -> dict[int, int]:
        value = self.data.get(key)
        if not isinstance(value, Mapping):
            raise self.fail(key, "an object keyed by seat")
        result: dict[int, int] = {}
        for seat_text, number in value.items():
            # Seats written as the writer writes them ("3"): "03" or "٣" would be another key.
            seat = plain_number(str(seat_text))
            if (
                seat is None
                or str(seat) != seat_text
                or isinstance(number, bool)
                or not isinstance(number, int)
            ):
                raise self.fail(key, "an object of seat number -> integer")
            result[seat] = number
        return result


def _seat_info(item: Any) -> SeatInfo:
    if not isinstance(item, Mapping):
        raise EventError(f"round_start: each of 'seats' must be an object, got {json_text(item)}")
    reader = _Reader(item, "round_start seat")
    pile = reader.extension(
        "nerts_pile", partial(reader.bounded, minimum=1, maximum=NERTS_PILE_SIZE_MAX), int
    )
    known = SEAT_KEYS - reader.set_aside
    unknown = {key: value for key, value in item.items() if key not in known}
    extras = MappingProxyType(unknown) if unknown else None
    return SeatInfo(reader.seat("seat"), reader.text("back"), pile, extras=extras)


SEAT_KEYS = frozenset({"seat", "back", "nerts_pile"})
"""A `round_start` seat's keys in the contract (and the handicap's): the rest are extras."""


def _round_start(r: _Reader, frame: int, t: float) -> RoundStart:
    seats = r.data.get("seats")
    if not isinstance(seats, list) or not seats:
        raise r.fail("seats", "a non-empty list of {'seat', 'back'}")
    infos = tuple(_seat_info(item) for item in seats)
    numbers = [info.seat for info in infos]
    if len(set(numbers)) != len(numbers):
        raise r.fail("seats", "a list of distinct seats")
    return RoundStart(
        frame, t, r.integer("round", 1), infos, r.bounded("nerts_pile", 1, NERTS_PILE_SIZE_MAX)
    )


def _play(r: _Reader, frame: int, t: float) -> Play:
    return Play(
        frame,
        t,
        r.seat("seat"),
        r.card("card"),
        r.text("pile"),
        r.choice("verdict", Verdict),
        None if r.data.get("reason") in RETIRED_REASONS else r.choice("reason", IllegalReason),
        bool(r.extension("joker", r.optional_bool)),
    )


def _pile_complete(r: _Reader, frame: int, t: float) -> PileComplete:
    suit = r.text("suit")
    try:
        return PileComplete(frame, t, r.text("pile"), Suit.parse(suit))
    except InvalidCardError:
        raise r.fail("suit", "one of 'S', 'H', 'D', 'C'") from None


def _game_end(r: _Reader, frame: int, t: float) -> GameEnd:
    return GameEnd(frame, t, r.by_seat("totals"), r.seat("winner"))


def _round_end(r: _Reader, frame: int, t: float) -> RoundEnd:
    return RoundEnd(
        frame,
        t,
        r.integer("round", 1),
        r.by_seat("scores"),
        r.by_seat("foundation"),
        r.by_seat("nerts_left"),
        r.extension("bonus", r.by_seat) or {},
        r.extension("ended_by", partial(r.choice, kind=RoundEndCause)),
        r.extension("caller", r.seat, int),
    )


_PARSERS = {
    RoundStart.TYPE: _round_start,
    Play.TYPE: _play,
    TakeBack.TYPE: lambda r, f, t: TakeBack(f, t, r.seat("seat"), r.card("card"), r.text("pile")),
    PileComplete.TYPE: _pile_complete,
    NertsCount.TYPE: lambda r, f, t: NertsCount(f, t, r.seat("seat"), r.integer("remaining")),
    Stuck.TYPE: lambda r, f, t: Stuck(f, t),
    NertsCall.TYPE: lambda r, f, t: NertsCall(f, t, r.seat("seat"), r.optional_bool("valid")),
    RoundEnd.TYPE: _round_end,
    GameEnd.TYPE: _game_end,
}

_KEYS = {
    cls.TYPE: frozenset({"type", *(f.name for f in fields(cls))} - {"extras"})
    for cls in (
        RoundStart, Play, TakeBack, PileComplete, NertsCount, Stuck, NertsCall, RoundEnd, GameEnd
    )
}  # fmt: skip
"""Each type's keys in the contract (and this version's extension keys): the rest are extras."""


def set_aside_keys(event: Event) -> list[str]:
    """The extension keys of `event` (and of its deal's seats, "seats[i].key") whose values
    this version could not read, so kept as another tool's keys (`_Reader.extension`)."""
    keys = [key for key in event.extras or () if key in _KEYS.get(event.type_name, ())]
    if isinstance(event, RoundStart):
        keys += [
            f"seats[{number}].{key}"
            for number, seat in enumerate(event.seats)
            for key in seat.extras or ()
            if key in SEAT_KEYS
        ]
    return keys


EVENT_TYPES = frozenset(_PARSERS)
"""The event types this version referees; any other is an `OtherEvent`."""


def event_from_dict(data: Any) -> Event:
    """One event from its decoded JSON object. Raises `EventError` naming what is wrong."""
    if not isinstance(data, Mapping):
        raise EventError(f"an event must be a JSON object, got {json_kind(data)}")
    kind = data.get("type")
    if not isinstance(kind, str) or not kind:
        raise EventError(f"event has no 'type': {json_text(dict(data))}")
    reader = _Reader(data, kind)
    frame, t = reader.integer("frame"), reader.number("t")
    parser = _PARSERS.get(kind)
    if parser is None:
        return OtherEvent(frame, t, kind, dict(data))
    event = parser(reader, frame, t)
    known = _KEYS[kind] - reader.set_aside
    if data.keys() <= known:  # the usual case, checked at C speed
        return event
    extras = {key: data[key] for key in data if key not in known}
    return replace(event, extras=MappingProxyType(extras))
