"""One round: verdicts for foundation plays, Nerts counts and calls, stuck rotations, the score.

Plays are judged frame by frame. The earlier frame wins a place on a pile; a card that wanted a
place already taken in an earlier frame is `late` (also when cards were played on it since: it
lost a race, it is not the wrong rank for the top); cards of the same rank and suit that reach the
same place in the same frame are all `tie` and all stay.

A frame's events happened at once as far as the camera can tell, so their order in the log says
nothing: they are judged in an order of their own (`judging_key`; plays from the lowest rank up,
as cards landing together on one pile must have landed) and given back in the log's order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from referee.cards import Suit
from referee.events import (
    Event,
    IllegalReason,
    NertsCall,
    NertsCount,
    OtherEvent,
    PileComplete,
    Play,
    RoundEnd,
    RoundEndCause,
    RoundStart,
    Stuck,
    TakeBack,
    Verdict,
)
from referee.foundations import FoundationPile, why_illegal
from referee.options import RuleOptions
from referee.scoring import round_score

_SUITS = list(Suit)
TIME_ROUNDING_S = 1e-6
"""How far a frame's time may lie past the Nerts call's grace and still be within it: the
timestamps are decimal seconds (3.8333), and 3.8333 + 0.5 came out below 4.3333 in binary, so a
card landing on the grace's very end counted in some frames and not in others. A microsecond is
far below a frame (4 ms at 240 fps) and far above such rounding."""


@dataclass(frozen=True)
class RepeatedPlay:
    """A play of a seat's card that already lies on a foundation (`lies_on`): a deck holds each
    card once, so the log misread one of the two (a camera will), or left out a take-back. The
    card already down stands; this play is ignored, as a take-back of nothing is, and given
    back for a tool to warn of."""

    play: Play
    lies_on: str


@dataclass(frozen=True)
class ImpossibleEvent:
    """An event of the log that cannot be so at this table (`why`): a seat not dealt in, more
    cards left than its Nerts pile held. A camera (or a tool writing the log) misread something;
    the event is ignored, left out of the refereed events, and given back for a tool to warn of,
    so that one misread does not end a live game's refereeing."""

    event: Event
    why: str


def judging_key(event: Event) -> tuple[object, ...]:
    """Where `event` comes in the order a frame's events are judged in. Nerts counts first (a
    call needs its empty pile counted; a seat's smaller count last), then plays by rank (cards
    landing together on one pile must have landed so), take-backs of what was played, calls, and
    a stuck last (a play in its frame is progress). The camera cannot order the rest (two Aces
    wanting one new pile, two calls at once), so suit (S, H, D, C), then seat decides: the same
    table, the same verdicts."""
    if isinstance(event, NertsCount):
        return 0, event.seat, -event.remaining
    if isinstance(event, Play):
        card = event.card
        return 1, card.rank, _SUITS.index(card.suit), event.seat, event.joker, event.pile
    if isinstance(event, TakeBack):
        card = event.card
        return 2, card.rank, _SUITS.index(card.suit), event.seat, event.pile
    if isinstance(event, NertsCall):
        return 3, event.seat
    return (4,) if isinstance(event, Stuck) else (5,)


class RoundReferee:
    """Referees the events of one round, one frame at a time (`referee_frame`)."""

    def __init__(self, start: RoundStart, options: RuleOptions) -> None:
        self.start = start
        self.options = options
        self.seats = tuple(info.seat for info in start.seats)
        self.piles: dict[str, FoundationPile] = {}
        # Complete piles whose place a new pile has taken (their cards still score).
        self.set_aside: list[FoundationPile] = []
        self.nerts_left = {seat: start.pile_size(seat) for seat in self.seats}
        # Take-backs of no card of theirs on that pile: nothing to undo, so ignored.
        self.unmatched_take_backs: list[TakeBack] = []
        # Plays of a card of theirs already on a foundation: impossible, so ignored.
        self.repeated_plays: list[RepeatedPlay] = []
        # Events that cannot be so at this table (a seat not dealt in): ignored.
        self.impossible_events: list[ImpossibleEvent] = []
        self.foundation = dict.fromkeys(self.seats, 0)
        # Late and illegal cards still lying on a pile, waiting for their owner to take them back.
        self.awaiting_take_back: Counter[tuple[int, str, str]] = Counter()
        self.caller: int | None = None
        self.call_deadline: float | None = None
        self.ended: RoundEnd | None = None
        self.stuck_without_progress = False
        self.last_seen = (start.frame, start.t)
        # Every (seat, card) staying on a foundation, jokers aside: a deck holds each card once.
        self.staying: Counter[tuple[int, str]] = Counter()
        # Each event's refereed output, in this frame's log order; and for each pile, which of
        # those plays put its top there this frame (they become ties if another one joins).
        self._results: list[list[Event]] = []
        self._placed_this_frame: dict[str, list[int]] = {}
        # The (seat, card) of this frame's plays (jokers aside), and the take-backs its late
        # and illegal plays await: `_forget_stale_awaits` at the frame's end.
        self._played_this_frame: set[tuple[int, str]] = set()
        self._awaited_this_frame: Counter[tuple[int, str, str]] = Counter()
        # Of the take-backs awaited, those of jokers: the card a joker stands for played for
        # real takes nothing off the joker's place.
        self._jokers_awaited: Counter[tuple[int, str, str]] = Counter()
        self._jokers_awaited_this_frame: Counter[tuple[int, str, str]] = Counter()
        # The end a stuck judged this frame brought, written after the whole frame: a call
        # listed after the stuck was judged before it, and the end counts it.
        self._ended_this_frame: RoundEnd | None = None

    @property
    def round_number(self) -> int:
        return self.start.round

    def referee_frame(self, events: Sequence[Event]) -> list[Event]:
        """Judges one frame's events (all of one frame and time) in `judging_key`'s order;
        returns them in their given order with verdicts, each followed by the events it caused,
        after the end of the round if the frame comes too late after a Nerts call, before it
        if a stuck in the frame ends it."""
        if not events:
            return []
        first: list[Event] = []
        if self.ended is None and self._call_window_closed(events[0].t):
            first.append(self._end_round(RoundEndCause.NERTS_CALL))
        # A frame of types the referee does not know (a live log's ticks), or of plays it
        # ignores, moves nothing: the round's end keeps the frame of its last event that
        # counts, so a log ends its rounds alike with ticks or none, and fed back from --out.
        seen_before, ignored_before = self.last_seen, self._ignored_count()
        if self.ended is None:
            self.last_seen = (events[0].frame, events[0].t)
        self._results = [[] for _ in events]
        self._placed_this_frame = {}
        self._played_this_frame, self._awaited_this_frame = set(), Counter()
        self._jokers_awaited_this_frame = Counter()
        self._ended_this_frame = None
        # Most frames hold one event.
        order = (
            sorted(range(len(events)), key=lambda i: judging_key(events[i])) if events[1:] else [0]
        )
        for index in order:
            self._handle(events[index], self._results[index], index)
        if events[1:]:
            self._complete_after_ties()
        self._forget_stale_awaits()
        known = sum(not isinstance(event, OtherEvent) for event in events)
        if self.ended is None and known == self._ignored_count() - ignored_before:
            self.last_seen = seen_before
        last: list[Event] = [] if self._ended_this_frame is None else [self._ended_this_frame]
        return first + [event for result in self._results for event in result] + last

    def _complete_after_ties(self) -> None:
        """A pile completed by Kings tied in one frame is set aside after the last of them in
        the log's order, not between them: a reader going line by line sees each King land."""
        for at, result in enumerate(self._results):
            for complete in [event for event in result if isinstance(event, PileComplete)]:
                last = max(self._placed_this_frame.get(complete.pile, [at]))
                if last != at:
                    result.remove(complete)
                    self._results[last].append(complete)

    def _ignored_count(self) -> int:
        """How many events of the log this round has ignored, in all: impossible ones, and
        take-backs of nothing."""
        return (
            len(self.repeated_plays) + len(self.impossible_events) + len(self.unmatched_take_backs)
        )

    def finish(self) -> RoundEnd | None:
        """At the end of the input: ends a round whose Nerts call was made; else none."""
        if self.ended is None and self.caller is not None:
            return self._end_round(RoundEndCause.NERTS_CALL)
        return None

    def end_now(self) -> RoundEnd:
        """Ends the round as it stands (a new round started without a call or a stuck end)."""
        return self.ended if self.ended is not None else self._end_round(RoundEndCause.NEXT_ROUND)

    # ---- events ----------------------------------------------------------------------------

    def _handle(self, event: Event, out: list[Event], index: int) -> None:
        if isinstance(event, (Play, TakeBack, NertsCount, NertsCall)) and not self._at_table(
            event.seat, event
        ):
            return
        if isinstance(event, Play):
            self._play(event, out, index)
        elif isinstance(event, TakeBack):
            self._take_back(event)
            out.append(event)
        elif isinstance(event, NertsCount):
            if self._nerts_count(event):
                out.append(event)
        elif isinstance(event, NertsCall):
            out.append(self._nerts_call(event))
        elif isinstance(event, Stuck):
            out.append(event)
            # After a valid call the round is over but for the cards in the air: a stuck then
            # neither ends it nor cuts their grace short.
            if self.ended is None and self.caller is None:
                if self.stuck_without_progress:
                    self._ended_this_frame = self._end_round(RoundEndCause.STUCK)
                self.stuck_without_progress = True
        else:
            out.append(event)

    def _at_table(self, seat: int, event: Event) -> bool:
        """Whether `seat` was dealt in this round; if not, `event` is ignored as impossible."""
        if seat in self.nerts_left:
            return True
        self.impossible_events.append(
            ImpossibleEvent(
                event,
                f"seat {seat} is not at the table (round {self.round_number} has seats "
                f"{', '.join(map(str, self.seats))})",
            )
        )
        return False

    def _play(self, play: Play, out: list[Event], index: int) -> None:
        repeated = self._already_down(play)
        if repeated is not None:
            self.repeated_plays.append(repeated)
            return
        if not play.joker:
            self._played_this_frame.add((play.seat, str(play.card)))
        pile = self.piles.get(play.pile)
        if pile is not None and pile.complete and not pile.holds_top(play.card):
            # A complete pile was set aside: its place is empty, and may start a new one. A card
            # played there but an Ace is not an Ace, whether or not it came for the set-aside
            # pile (the camera cannot tell a lost race from a card put on an empty place).
            pile = None
        # A card whose place was taken lost a race, also when the pile has grown over it since
        # (the 5H that came after the 5H and the 6H): late, not the wrong rank of the top.
        if pile is not None and pile.took_place_of(play.card):
            if self.ended is None and pile.holds_top(play.card) and pile.top_frame == play.frame:
                placed = self._placed_this_frame.setdefault(play.pile, [])
                for other in placed:
                    tied = self._results[other][0]
                    assert isinstance(tied, Play)
                    self._results[other][0] = self._ruled(tied, Verdict.TIE)
                placed.append(index)
                self._stay(pile, play)
                out.append(self._ruled(play, Verdict.TIE))
            else:
                self._await_take_back(play)
                out.append(self._ruled(play, Verdict.LATE))
            return
        reason = why_illegal(pile, play.card)
        if reason is not None:
            self._await_take_back(play)
            out.append(self._ruled(play, Verdict.ILLEGAL, reason))
            return
        if self.ended is not None:
            # Legal, but after the round ended: too late to count, as a lost race is, and so
            # taken back as a late card is.
            self._await_take_back(play)
            out.append(self._ruled(play, Verdict.LATE))
            return
        if pile is None:
            if play.pile in self.piles:
                self.set_aside.append(self.piles[play.pile])
            pile = FoundationPile(play.pile, play.card.suit, play.card.rank, play.frame)
            self.piles[play.pile] = pile
        self._placed_this_frame[play.pile] = [index]
        self._stay(pile, play)
        out.append(self._ruled(play, Verdict.ACCEPTED))
        if pile.complete:
            out.append(PileComplete(play.frame, play.t, play.pile, pile.suit))

    def _already_down(self, play: Play) -> RepeatedPlay | None:
        """A deck holds each card once: a seat's card already staying on a foundation cannot be
        played again (a joker can stand for it)."""
        if play.joker or not self.staying[(play.seat, str(play.card))]:
            return None
        where = next(
            pile.pile_id
            for pile in [*self.piles.values(), *self.set_aside]
            if any(
                placed[:2] == (play.seat, play.card) and not placed.joker for placed in pile.cards
            )
        )
        return RepeatedPlay(play, where)

    @staticmethod
    def _ruled(play: Play, verdict: Verdict, reason: IllegalReason | None = None) -> Play:
        # Built directly: dataclasses.replace costs a third of the engine's time on long logs.
        return Play(
            play.frame,
            play.t,
            play.seat,
            play.card,
            play.pile,
            verdict,
            reason,
            play.joker,
            extras=play.extras,
        )

    def _stay(self, pile: FoundationPile, play: Play) -> None:
        pile.place(play.seat, play.card, play.frame, play.joker)
        if not play.joker:
            self.staying[(play.seat, str(play.card))] += 1
        self.foundation[play.seat] += 1
        self.stuck_without_progress = False

    def _await_take_back(self, play: Play) -> None:
        key = (play.seat, str(play.card), play.pile)
        self.awaiting_take_back[key] += 1
        self._awaited_this_frame[key] += 1
        self._jokers_awaited[key] += play.joker
        self._jokers_awaited_this_frame[key] += play.joker

    def _forget_stale_awaits(self) -> None:
        """A card played again was taken back from wherever it lay late or illegal before (a
        deck holds it once), though the log missed that take-back: left awaited, it would
        swallow the take-back of this play. Forgotten only once the whole frame is judged, as
        plays are judged before take-backs: the frame's own take-back of the earlier play
        (a card taken back and put down again at once) has then been matched. A joker's is
        kept: the card it stood for, played for real, is another card."""
        for key in list(self.awaiting_take_back):
            if key[:2] in self._played_this_frame:
                # This frame's awaits, and the jokers' of earlier frames.
                earlier_jokers = self._jokers_awaited[key] - self._jokers_awaited_this_frame[key]
                still = self._awaited_this_frame[key] + max(0, earlier_jokers)
                kept = min(self.awaiting_take_back[key], still)
                self.awaiting_take_back[key] = kept
                self._jokers_awaited[key] = min(self._jokers_awaited[key], kept)

    def _take_back(self, event: TakeBack) -> None:
        key = (event.seat, str(event.card), event.pile)
        if self.awaiting_take_back[key] > 0:
            self.awaiting_take_back[key] -= 1
            # Which card came back cannot be told: the jokers' count stays within what is left.
            self._jokers_awaited[key] = min(self._jokers_awaited[key], self.awaiting_take_back[key])
            return
        # A card that had stayed is taken back: the table undid a play, so the count follows.
        pile = self.piles.get(event.pile)
        removed = None if pile is None else pile.remove(event.seat, event.card)
        if pile is None or removed is None:
            self.unmatched_take_backs.append(event)
            return
        self.foundation[event.seat] -= 1
        if not removed.joker:
            self.staying[key[:2]] -= 1
        if pile.empty:
            del self.piles[event.pile]

    def _nerts_count(self, event: NertsCount) -> bool:
        """Takes a seat's new count; False, ignoring it as impossible, where it is more than
        the seat's Nerts pile held."""
        size = self.start.pile_size(event.seat)
        if event.remaining > size:
            self.impossible_events.append(
                ImpossibleEvent(
                    event,
                    f"seat {event.seat} has {event.remaining} cards left of a {size}-card "
                    "Nerts pile",
                )
            )
            return False
        if self.ended is None:
            if event.remaining < self.nerts_left[event.seat]:
                self.stuck_without_progress = False
            self.nerts_left[event.seat] = event.remaining
        return True

    def _nerts_call(self, call: NertsCall) -> NertsCall:
        # Valid only with an empty Nerts pile, and only while there is a round to end: a call
        # after the round's end (its scores up) is too late, as a play then is.
        valid = self.nerts_left[call.seat] == 0 and self.ended is None
        if valid and self.caller is None:
            self.caller = call.seat
            self.call_deadline = call.t + self.options.in_air_grace_s
        return replace(call, valid=valid)

    # ---- the end ---------------------------------------------------------------------------

    def _call_window_closed(self, t: float) -> bool:
        return self.call_deadline is not None and t > self.call_deadline + TIME_ROUNDING_S

    def _end_round(self, cause: RoundEndCause) -> RoundEnd:
        """The round's end, by `cause` unless a valid call came first: then the call ended it,
        whatever closed its window for cards in the air (a later frame, the log's end or the
        next deal)."""
        if self.caller is not None:
            cause = RoundEndCause.NERTS_CALL
        frame, t = self.last_seen
        scores = {s: round_score(self.foundation[s], self.nerts_left[s]) for s in self.seats}
        # Empty where no one earns one, as a round_end without "bonus" is read back.
        bonus: dict[int, int] = {}
        if self.caller is not None and self.options.caller_bonus != 0:
            bonus = {s: self.options.caller_bonus if s == self.caller else 0 for s in self.seats}
        self.ended = RoundEnd(
            frame,
            t,
            self.round_number,
            scores,
            dict(self.foundation),
            dict(self.nerts_left),
            bonus,
            cause,
            self.caller,
        )
        return self.ended
