"""Builders for table events, so scenarios read like the table."""

from __future__ import annotations

from collections.abc import Sequence

from referee.cards import Card
from referee.events import (
    Event,
    NertsCall,
    NertsCount,
    Play,
    RoundEnd,
    RoundStart,
    SeatInfo,
    Stuck,
    TakeBack,
)
from referee.game import GameReferee
from referee.options import RuleOptions

FPS = 30.0


def start(frame: int = 0, seats: int = 2, round_number: int = 1, pile: int = 13) -> RoundStart:
    infos = tuple(SeatInfo(s, f"back{s}") for s in range(seats))
    return RoundStart(frame, frame / FPS, round_number, infos, pile)


def play(frame: int, seat: int, card: str, pile: str = "F0") -> Play:
    return Play(frame, frame / FPS, seat, Card.parse(card), pile)


def take_back(frame: int, seat: int, card: str, pile: str = "F0") -> TakeBack:
    return TakeBack(frame, frame / FPS, seat, Card.parse(card), pile)


def count(frame: int, seat: int, remaining: int) -> NertsCount:
    return NertsCount(frame, frame / FPS, seat, remaining)


def call(frame: int, seat: int) -> NertsCall:
    return NertsCall(frame, frame / FPS, seat)


def stuck(frame: int) -> Stuck:
    return Stuck(frame, frame / FPS)


def referee(events: Sequence[Event], **options: int | float) -> list[Event]:
    return GameReferee(RuleOptions(**options)).referee_all(events)  # type: ignore[arg-type]


def verdicts(events: Sequence[Event]) -> list[str]:
    """`seat:card:verdict[:reason]` for every play, in order."""
    return [
        f"{e.seat}:{e.card}:{e.verdict.value}" + (f":{e.reason.value}" if e.reason else "")
        for e in events
        if isinstance(e, Play) and e.verdict is not None
    ]


def round_ends(events: Sequence[Event]) -> list[RoundEnd]:
    return [e for e in events if isinstance(e, RoundEnd)]
