"""Reading one table event from its decoded JSON object (contracts/events.md): the
contract's keys checked and typed, each mistake named; this version's extension keys read where
they can be, and kept as another tool's where they cannot."""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping
from dataclasses import fields, replace
from functools import partial
from types import MappingProxyType
from typing import Any, TypeVar

from referee.cards import Card, Suit
from referee.errors import EventError, InvalidCardError, json_kind, json_text
from referee.events import (
    RETIRED_REASONS,
    Event,
    GameEnd,
    IllegalReason,
    NertsCall,
    NertsCount,
    OtherEvent,
    PileComplete,
    Play,
    RoundEnd,
    RoundEndCause,
    RoundStart,
    SeatInfo,
    Stuck,
    TakeBack,
    Verdict,
)
from referee.numbers import PLAIN_DIGITS_MAX, plain_number
from referee.options import NERTS_PILE_SIZE_MAX

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
    if "type" not in data:
        raise EventError(f"event has no 'type': {json_text(dict(data))}")
    kind = data["type"]
    if not isinstance(kind, str) or not kind:
        raise EventError(f"'type' must be an event type's name, got {json_text(kind)}")
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
