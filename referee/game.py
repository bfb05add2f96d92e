"""The game across rounds: feeds events to the round in play, keeps totals, ends the game.

`GameReferee.feed` takes the events of a log in frame order and returns the refereed events as
soon as their frame is complete; `finish` returns the rest. Derived events in the input
(`pile_complete`, `round_end`, `game_end`) are dropped and made afresh, and verdicts are decided
again, so feeding the referee's own output back gives the same result. Events a camera may
report though they cannot happen (a take-back of a card not on its pile, a card played while it
lies on a foundation, a seat not dealt in) are ignored, and handed over once each by
`pop_unmatched_take_backs`, `pop_repeated_plays` and `pop_impossible_events` for a tool to warn
of: one misread must not stop a game's refereeing.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable

from referee.errors import EventError
from referee.events import (
    Event,
    GameEnd,
    OtherEvent,
    PileComplete,
    RoundEnd,
    RoundStart,
    TakeBack,
)
from referee.options import RuleOptions
from referee.round import ImpossibleEvent, RepeatedPlay, RoundReferee
from referee.scoring import game_winner

DERIVED_TYPES = (PileComplete, RoundEnd, GameEnd)


class GameReferee:
    def __init__(self, options: RuleOptions | None = None) -> None:
        self.options = options or RuleOptions()
        self.reset()

    def reset(self) -> None:
        """Forgets everything, the frame order included: a new log."""
        self._new_game()
        self.round: RoundReferee | None = None
        self._frame: int | None = None  # the frame whose events are pending
        self._read: int | None = None  # the last event's frame, derived events' too
        self._t = 0.0
        self._pending: list[Event] = []
        self._held: list[Event] = []
        self._unmatched: list[TakeBack] = []
        self._repeated: list[RepeatedPlay] = []
        self._impossible: list[ImpossibleEvent] = []

    def _new_game(self) -> None:
        self.totals: dict[int, int] = {}
        self.rounds: list[RoundEnd] = []
        self.game_end: GameEnd | None = None

    def feed(self, event: Event) -> list[Event]:
        """Takes the next event; returns the refereed events of every frame now complete."""
        if self._read is not None and event.frame < self._read:
            raise EventError(
                f"{event.type_name} at frame {event.frame} comes after frame {self._read}: "
                "events must be in frame order"
            )
        self._check_time(event)
        self._read = event.frame
        if isinstance(event, DERIVED_TYPES):
            return []
        out: list[Event] = []
        if event.frame != self._frame:
            out = self._referee_pending()
            self._frame = event.frame
        self._pending.append(event)
        return out

    def _check_time(self, event: Event) -> None:
        """A frame has one timestamp, and time does not run backwards (the Nerts call's grace
        is measured in it)."""
        if event.frame == self._read and event.t != self._t:
            raise EventError(
                f"{event.type_name} at frame {event.frame} has t {event.t}, another event of that "
                f"frame {self._t}: a frame has one timestamp",
                event,
            )
        if self._read is not None and event.t < self._t:
            raise EventError(
                f"{event.type_name} at frame {event.frame} has t {event.t}, before frame "
                f"{self._read}'s {self._t}: timestamps must not go back",
                event,
            )
        self._t = event.t

    def seats_in_play(self) -> tuple[int, ...]:
        """The seats of the round that the frame being read belongs to (a deal among its
        events counts); () before any deal. A call heard outside the log, such as a Nerts!
        button's, may come only from one of them."""
        deal = next((e for e in self._pending if isinstance(e, RoundStart)), None)
        if deal is not None:
            return tuple(info.seat for info in deal.seats)
        return () if self.round is None else self.round.seats

    def pop_unmatched_take_backs(self) -> list[TakeBack]:
        """The take-backs judged since the last call that found no card of their seat on
        their pile to take back (ignored: there is nothing to undo). The log is likely wrong
        there, so a tool may say so."""
        found, self._unmatched = self._unmatched, []
        if self.round is not None:
            found += self.round.unmatched_take_backs
            self.round.unmatched_take_backs = []
        return found

    def pop_repeated_plays(self) -> list[RepeatedPlay]:
        """The plays judged since the last call of a seat's card that already lay on a
        foundation (ignored: a deck holds each card once), for a tool to warn of."""
        found, self._repeated = self._repeated, []
        if self.round is not None:
            found += self.round.repeated_plays
            self.round.repeated_plays = []
        return found

    def pop_impossible_events(self) -> list[ImpossibleEvent]:
        """The events judged since the last call that cannot be so at their table (a seat not
        dealt in, more cards left than a Nerts pile held): ignored, for a tool to warn of."""
        found, self._impossible = self._impossible, []
        if self.round is not None:
            found += self.round.impossible_events
            self.round.impossible_events = []
        return found

    def finish(self) -> list[Event]:
        """The end of the input: refereed events still held, and the end of a called round."""
        out = self._referee_pending()
        ended: list[Event] = []
        if self.round is not None:
            end = self.round.finish()
            if end is not None:
                ended.append(end)
                ended.extend(self._after_round(end))
        out += _by_frame(self._held + ended)
        self._held = []
        return out

    def referee_all(self, events: Iterable[Event]) -> list[Event]:
        out: list[Event] = []
        for event in events:
            out.extend(self.feed(event))
        out.extend(self.finish())
        return out

    # ---- internals -------------------------------------------------------------------------

    def _referee_pending(self) -> list[Event]:
        out: list[Event] = []
        batch: list[Event] = []
        # Taken first: a frame that raises is not judged again by `finish`, which then decides
        # what came before it (the error's line is told; the rest of the log is kept).
        pending, self._pending = self._pending, []
        # The deal is down before anything of its frame is played or counted: a round_start
        # comes first in its frame, wherever the log lists it, so that the frame's other
        # events are judged in the new round whatever their order.
        starts_first = sorted(pending, key=lambda event: not isinstance(event, RoundStart))
        deals = [event for event in starts_first if isinstance(event, RoundStart)]
        if len(deals) > 1:  # one frame cannot show two deals, and their order would decide
            raise EventError(
                f"round_start at frame {deals[1].frame}: a second deal in one frame", deals[1]
            )
        for event in starts_first:
            if isinstance(event, RoundStart):
                out.extend(self._referee_batch(batch))
                batch = []
                out.extend(self._start_round(event))
            else:
                batch.append(event)
        out.extend(self._referee_batch(batch))
        return self._in_frame_order(out)

    def _in_frame_order(self, out: list[Event]) -> list[Event]:
        """`out`, and the events held from earlier frames, as far as they can be let go in frame
        order. A round ends at the frame of its last event that counts
        (`RoundReferee.last_seen`), so a log ends its rounds alike with a live log's ticks (or
        other events the referee does not know) or without them; their frames after that one
        are held until the round goes on or ends, its end written before them."""
        # A live log's idle stretch holds a tick a frame: added in place, not sorted again, so
        # that a long pause costs each tick once (a round's end, of an earlier frame, is sorted).
        waiting = self._held
        if all(a.frame <= b.frame for a, b in itertools.pairwise([*waiting[-1:], *out])):
            waiting.extend(out)
        else:
            waiting = _by_frame(waiting + out)
        if self.round is None or self.round.ended is not None:
            self._held = []
            return waiting
        let_go = bisect.bisect_right(waiting, self.round.last_seen[0], key=_frame_of)
        self._held = waiting[let_go:] if let_go else waiting
        return waiting[:let_go]

    def _referee_batch(self, batch: list[Event]) -> list[Event]:
        if not batch:
            return []
        if self.round is None:
            first = next((e for e in batch if not isinstance(e, OtherEvent)), None)
            if first is None:
                return batch
            raise EventError(
                f"{first.TYPE} at frame {first.frame} comes before any round_start", first
            )
        was_over = self.round.ended is not None
        out: list[Event] = []
        for event in self.round.referee_frame(batch):
            out.append(event)
            if isinstance(event, RoundEnd) and not was_over:
                out.extend(self._after_round(event))
        return out

    def _start_round(self, start: RoundStart) -> list[Event]:
        out: list[Event] = []
        if self.round is not None and self.round.ended is None:
            end = self.round.end_now()
            out.append(end)
            out.extend(self._after_round(end))
        if self.game_end is not None:
            self._new_game()
        if self.round is not None:
            self._unmatched += self.round.unmatched_take_backs
            self._repeated += self.round.repeated_plays
            self._impossible += self.round.impossible_events
        self.round = RoundReferee(start, self.options)
        out.append(start)
        return out

    def _after_round(self, end: RoundEnd) -> list[Event]:
        self.rounds.append(end)
        for seat, score in end.scores.items():
            self.totals[seat] = self.totals.get(seat, 0) + score + end.bonus.get(seat, 0)
        winner = game_winner(self.totals, self.options.target_score)
        if winner is None:
            return []
        self.game_end = GameEnd(end.frame, end.t, dict(self.totals), winner)
        return [self.game_end]


def _frame_of(event: Event) -> int:
    return event.frame


def _by_frame(events: list[Event]) -> list[Event]:
    """`events` in frame order, those of one frame in the order given (a stable sort)."""
    return sorted(events, key=_frame_of)
