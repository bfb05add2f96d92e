"""A whole Nerts round, frame by frame: bots decide, hands carry cards, the referee judges.

`RoundSimulation.frames()` yields one `FrameState` per video frame: the raw table events that
happened in it (what a perfect camera would see) and, when asked for, the `Scene` to render.
Verdicts come from `referee/` itself, fed frame by frame, so bots take back what it rejects;
the truth file is the referee's output over the raw events.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from referee.cards import Card, full_deck
from referee.events import (
    Event,
    NertsCall,
    NertsCount,
    Play,
    RoundStart,
    SeatInfo,
    Stuck,
    TakeBack,
)
from referee.foundations import why_illegal
from referee.layout import CARDS_TURNED, NERTS, WASTE, MoveKind, Place, PlayerLayout, Spot
from referee.round import RoundReferee
from simulator.bots import Decision, FoundationPlay, LayoutMove, SeatBot
from simulator.geometry import TableGeometry
from simulator.pace import (
    CALL_DELAY_S,
    FALSE_CALL_MAX_LEFT,
    FASTEST_RACE_S,
    FIRST_DECISION_S,
    FOUNDATION_JITTER_DEG,
    FOUNDATION_JITTER_MM,
    IDLE_RECHECK_S,
    JITTER_DEG,
    JITTER_MM,
    MAX_PLAYERS,
    MAX_ROUND_S,
    MIN_PLAYERS,
    MIN_TAKE_BACK_FRAMES,
    RACE_OFFSET_FRAMES,
    REACH_SHARE,
    ROUND_TAIL_S,
    STUCK_PAUSE_S,
    TAKE_BACK_DELAY_S,
    THINK_S,
    SimulationSettings,
    frames_in,
)
from simulator.picture import HAND_RETREAT_S, table_scene
from simulator.scene import Scene


@dataclass
class Motion:
    """One seat's hand carrying cards from one place to another."""

    seat: int
    cards: tuple[Card, ...]
    face_up: bool
    start: int
    pickup: int
    release: int
    source: tuple[float, float, float]  # x, y, angle
    target: tuple[float, float, float]
    on_pickup: Callable[[], None] | None = None
    on_release: Callable[[], None] | None = None
    # Set for a card on its way to a foundation: other seats may race it for the place.
    pile: str | None = None
    # A rejected foundation card on its way back to its owner's layout.
    returning: bool = False
    # Where the hand reaches from: where it was when this motion began (set then).
    reach_from: tuple[float, float] | None = None


@dataclass(frozen=True)
class FrameState:
    """One frame of the round: its index, its own time, what happened in it and (rendered
    footage only) what the camera sees."""

    frame: int
    t: float
    events: list[Event]
    scene: Scene | None


@dataclass
class Slot:
    """A foundation place in the centre: the cards lying there, with who owns them."""

    cards: list[tuple[int, Card]] = field(default_factory=list)
    reserved: bool = False


class RoundSimulation:
    def __init__(self, settings: SimulationSettings) -> None:
        if not MIN_PLAYERS <= settings.players <= MAX_PLAYERS:
            raise ValueError(
                f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {settings.players}"
            )
        self.settings = settings
        self.fps = settings.fps
        self.think_frames = tuple(max(1, round(s * self.fps)) for s in THINK_S)
        self.rng = random.Random(settings.seed)
        self.geometry = TableGeometry(settings.players)
        pile_size = settings.options.nerts_pile_size
        self.bots = []
        for seat in range(settings.players):
            deck = full_deck()
            self.rng.shuffle(deck)
            layout = PlayerLayout.deal(deck, pile_size)
            self.bots.append(SeatBot(seat, layout, random.Random(self.rng.random())))
        backs = settings.backs or tuple(f"back{seat}" for seat in range(settings.players))
        self.start = RoundStart(
            0, 0.0, 1, tuple(SeatInfo(s, backs[s]) for s in range(settings.players)), pile_size
        )
        self.referee = RoundReferee(self.start, settings.options)
        self.slots = {f"F{i}": Slot() for i in range(len(self.geometry.slots))}
        self.motions: list[Motion] = []
        self.busy_until = [0] * settings.players
        self.next_decision = [
            int(self.rng.uniform(*FIRST_DECISION_S) * self.fps) for _ in self.bots
        ]
        self.in_transit: set[tuple[int, Card]] = set()
        # Where each foundation card came from, to return it there if it is rejected.
        self.return_spots: dict[tuple[int, Card], Spot] = {}
        self.jitter: dict[tuple[int, Card], tuple[float, float, float]] = {}
        self.pending_calls: dict[int, int] = {}
        self.false_called: set[int] = set()
        self.stuck_resume: int | None = None
        self.call_frame: int | None = None
        self.frame = 0
        self.frames_played = 0
        self._events: list[Event] = []

    # ---- the loop --------------------------------------------------------------------------

    def frames(self, with_scenes: bool = True) -> Iterator[FrameState]:
        limit = self.settings.seconds if self.settings.seconds is not None else MAX_ROUND_S
        last_frame = frames_in(limit, self.fps)
        while self.frame < last_frame:
            self._events = [self.start] if self.frame == 0 else []
            self._run_scheduled()
            self._check_calls()
            self._check_stuck()
            self._judge()
            if self.referee.ended is None and self.call_frame is None:
                self._decide()
            scene = self.scene() if with_scenes else None
            yield FrameState(self.frame, self.frame / self.fps, self._events, scene)
            self.frames_played = self.frame + 1
            if self._over():
                return
            self.frame += 1

    def _over(self) -> bool:
        if self.referee.ended is not None:
            return True
        if self.call_frame is None:
            return False
        tail = self.settings.options.in_air_grace_s + ROUND_TAIL_S
        return not self.motions and self.frame >= self.call_frame + tail * self.fps

    def _emit(self, event_type: type, **keys: object) -> None:
        self._events.append(event_type(self.frame, self.frame / self.fps, **keys))

    def _run_scheduled(self) -> None:
        for motion in list(self.motions):
            if motion.pickup == self.frame and motion.on_pickup is not None:
                motion.on_pickup()
            if motion.release == self.frame:
                for card in motion.cards:
                    self.in_transit.discard((motion.seat, card))
                if motion.on_release is not None:
                    motion.on_release()
        retreat = int(HAND_RETREAT_S * self.fps)
        self.motions = [m for m in self.motions if m.release + retreat > self.frame]

    def _check_calls(self) -> None:
        grace = self.settings.options.in_air_grace_s
        over = self.call_frame is not None and (self.frame - self.call_frame) / self.fps > grace
        for seat, frame in sorted(self.pending_calls.items()):
            if frame == self.frame:
                del self.pending_calls[seat]
                if not over:  # nobody calls once the round has ended
                    self._emit(NertsCall, seat=seat)

    def _check_stuck(self) -> None:
        if self.stuck_resume is not None:
            if self.frame == self.stuck_resume:
                self.stuck_resume = None
                for bot in self.bots:
                    bot.layout.rotate_stuck()
                    bot.turns_without_progress = 0
                    bot.waiting = False
            return
        if self.call_frame is not None or self.motions or self.pending_calls:
            return
        piles = self.referee.piles
        free = self._free_pile_ids()
        if all(b.waiting and b.foundation_play(piles, free) is None for b in self.bots):
            self._emit(Stuck)
            self.stuck_resume = self.frame + int(STUCK_PAUSE_S * self.fps)

    def _judge(self) -> None:
        for event in self.referee.referee_frame(self._events):
            if isinstance(event, NertsCall) and event.valid and self.call_frame is None:
                self.call_frame = self.frame
                self._hurry_motions()
            rejected = not (isinstance(event, Play) and event.verdict and event.verdict.stays)
            if isinstance(event, Play) and rejected and self.call_frame is None:
                self._take_back(event)
        for bot in self.bots:
            bot.notice_foundations(self.referee.piles)

    def _hurry_motions(self) -> None:
        """After a valid call, cards already on their way are put down within the grace time."""
        # A frame inside the grace, short of its very end: the card surely counts.
        grace = math.ceil(self.settings.options.in_air_grace_s * self.fps) - 1
        latest = self.frame + max(2, grace)
        for motion in self.motions:
            if motion.release > latest:
                motion.release = latest
                if motion.pickup > self.frame:  # not lifted yet: it is lifted next frame at once
                    motion.pickup = min(motion.pickup, latest - 1)
                motion.start = min(motion.start, motion.pickup)

    # ---- decisions -------------------------------------------------------------------------

    def _free_pile_ids(self) -> list[str]:
        return [
            pile_id
            for pile_id, slot in self.slots.items()
            if not slot.cards and not slot.reserved and pile_id not in self.referee.piles
        ]

    def _decide(self) -> None:
        if self.stuck_resume is not None:
            return
        order = list(range(len(self.bots)))
        self.rng.shuffle(order)
        for seat in order:
            if self.busy_until[seat] > self.frame or self.next_decision[seat] > self.frame:
                continue
            bot = self.bots[seat]
            if self.rng.random() < self.settings.race_rate and self._join_race(seat):
                continue
            free = self._free_pile_ids()
            decision: Decision | None = None
            if self.rng.random() < self.settings.mistake_rate:
                decision = bot.mistaken_play(self.referee.piles, free)
            decision = decision or bot.decide(self.referee.piles, free)
            self._maybe_false_call(seat)
            if decision is None:
                self.next_decision[seat] = self.frame + int(IDLE_RECHECK_S * self.fps)
                continue
            release = self.frame + max(2, round(bot.move_seconds() * self.fps))
            if isinstance(decision, FoundationPlay):
                self._start_foundation_play(seat, decision, release)
                self._race(seat, decision, release)
            else:
                self._start_layout_move(seat, decision, release)

    def _maybe_false_call(self, seat: int) -> None:
        left = len(self.bots[seat].layout.nerts)
        hurried = self.rng.random() < self.settings.mistake_rate
        if hurried and 0 < left <= FALSE_CALL_MAX_LEFT and seat not in self.false_called:
            self.false_called.add(seat)
            self.pending_calls[seat] = self.frame + 1

    def _join_race(self, seat: int) -> bool:
        """Sends the same card as a play already on its way to the same place, if this seat can."""
        soonest = self.frame + int(FASTEST_RACE_S * self.fps)
        for motion in self.motions:
            if motion.pile is None or motion.seat == seat or motion.release < soonest:
                continue
            spot = self.bots[seat].racing_spot(motion.cards[0])
            if spot is not None and self._raceable(motion.cards[0], motion.pile):
                release = motion.release + self.rng.randint(*RACE_OFFSET_FRAMES)
                rival = FoundationPlay(spot, motion.cards[0], motion.pile)
                self._start_foundation_play(seat, rival, release)
                return True
        return False

    def _raceable(self, card: Card, pile_id: str) -> bool:
        """Whether a card on its way to `pile_id` goes there rightly, as the pile lies now (or
        lost a race for its place): another seat races a play for the place, and does not copy
        a hurried player's mistake."""
        pile = self.referee.piles.get(pile_id)
        if pile is not None and pile.complete:  # set aside: its place takes a new pile's Ace
            pile = None
        return why_illegal(pile, card) is None or (pile is not None and pile.took_place_of(card))

    def _race(self, seat: int, play: FoundationPlay, release: int) -> None:
        raceable = self._raceable(play.card, play.pile)
        for other in range(len(self.bots)):
            if other == seat or self.busy_until[other] > self.frame:
                continue
            if self.rng.random() >= self.settings.race_rate:
                continue
            spot = self.bots[other].racing_spot(play.card)
            if spot is not None and raceable:
                offset = self.rng.randint(*RACE_OFFSET_FRAMES)
                rival = FoundationPlay(spot, play.card, play.pile)
                self._start_foundation_play(other, rival, release + offset)

    # ---- motions ---------------------------------------------------------------------------

    def _schedule(self, motion: Motion) -> None:
        self.motions.append(motion)
        self.busy_until[motion.seat] = motion.release
        self.next_decision[motion.seat] = motion.release + self.rng.randint(*self.think_frames)
        for card in motion.cards:
            self.in_transit.add((motion.seat, card))

    def _carry(
        self,
        seat: int,
        cards: tuple[Card, ...],
        face_up: bool,
        frames: tuple[int, int],
        places: tuple[tuple[float, float, float], tuple[float, float, float]],
        *,
        on_pickup: Callable[[], None],
        on_release: Callable[[], None],
        **flags: Any,
    ) -> None:
        """Schedules a hand carrying `cards` between `places` over `frames` (start, release)."""
        start, release = frames
        pickup = start + max(1, int((release - start) * REACH_SHARE))
        motion = Motion(
            seat, cards, face_up, start, pickup, release, *places, on_pickup, on_release, **flags
        )
        self._schedule(motion)

    def _start_foundation_play(self, seat: int, play: FoundationPlay, release: int) -> None:
        layout = self.bots[seat].layout
        source = self._spot_position(seat, play.spot)
        card = layout.take(play.spot)
        slot = self.slots[play.pile]
        slot.reserved = True
        target = self._slot_position(play.pile, seat)

        def pickup() -> None:
            if play.spot == NERTS:
                self._nerts_changed(seat)

        def land() -> None:
            slot.reserved = False
            slot.cards.append((seat, card))
            self._land_jitter(seat, card, FOUNDATION_JITTER_MM, FOUNDATION_JITTER_DEG)
            self._emit(Play, seat=seat, card=card, pile=play.pile)

        self._carry(
            seat,
            (card,),
            True,
            (self.frame, release),
            (source, target),
            on_pickup=pickup,
            on_release=land,
            pile=play.pile,
        )
        self.return_spots[(seat, card)] = play.spot

    def _take_back(self, play: Play) -> None:
        seat, card = play.seat, play.card
        slot = self.slots[play.pile]
        spot = self.return_spots.pop((seat, card), WASTE)
        if spot == NERTS and seat not in self.false_called:
            self.pending_calls.pop(seat, None)  # its last card comes back: no call yet
        start = self.frame + int(self.rng.uniform(*TAKE_BACK_DELAY_S) * self.fps)
        release = start + max(
            MIN_TAKE_BACK_FRAMES, round(self.bots[seat].move_seconds() * self.fps)
        )
        lying = self._slot_position(play.pile, seat)

        def lift() -> None:
            if (seat, card) in slot.cards:
                slot.cards.remove((seat, card))
            self._emit(TakeBack, seat=seat, card=card, pile=play.pile)

        def put_back() -> None:
            self.bots[seat].layout.put_back(spot, card)
            self._land_jitter(seat, card, JITTER_MM, JITTER_DEG)
            if spot == NERTS:
                self._nerts_changed(seat)

        destination = self._spot_position(seat, spot)
        self._carry(
            seat,
            (card,),
            True,
            (start, release),
            (lying, destination),
            on_pickup=lift,
            on_release=put_back,
            returning=True,
        )
        self.in_transit.discard((seat, card))  # it lies on the pile until lifted

    def _start_layout_move(self, seat: int, decision: LayoutMove, release: int) -> None:
        move = decision.move
        layout = self.bots[seat].layout
        frame_of_seat = self.geometry.seats[seat]
        stock = (*self.geometry.stock(seat), frame_of_seat.angle)
        waste = (*self.geometry.waste(seat), frame_of_seat.angle)
        face_up = move.kind is not MoveKind.TURN_STOCK
        if move.kind is MoveKind.TURN_STOCK and len(layout.stock) >= CARDS_TURNED:
            cards, source, target = tuple(layout.stock[-CARDS_TURNED:]), stock, waste
        elif move.kind is MoveKind.TURN_STOCK:  # short: the waste turns over as the stock
            cards, source, target = tuple(layout.waste[-CARDS_TURNED:]), waste, stock
        else:
            assert move.source is not None and move.target is not None
            if move.source.place is Place.WORK:
                cards = tuple(layout.work[move.source.index][-move.count :])
            else:
                cards = (layout.take(move.source),)
                layout.put_back(move.source, cards[0])
            source = self._spot_position(seat, move.source, below=move.count - 1)
            target_pile = layout.work[move.target]
            depth = 0 if move.kind is MoveKind.SLIDE_UNDER else len(target_pile)
            x, y = self.geometry.work(seat, move.target, depth, len(target_pile) + move.count)
            target = (x, y, frame_of_seat.angle)
        from_nerts = move.source == NERTS
        layout.apply(move)

        def pickup() -> None:
            if from_nerts:
                self._nerts_changed(seat)

        def land() -> None:
            for card in cards:
                self._land_jitter(seat, card, JITTER_MM, JITTER_DEG)

        self._carry(
            seat,
            cards,
            face_up,
            (self.frame, release),
            (source, target),
            on_pickup=pickup,
            on_release=land,
        )

    def _nerts_changed(self, seat: int) -> None:
        left = len(self.bots[seat].layout.nerts)
        self._emit(NertsCount, seat=seat, remaining=left)
        if left == 0 and seat not in self.pending_calls:
            # Once the last card is down: a player calls with empty hands.
            down = max((m.release for m in self.motions if m.seat == seat), default=self.frame)
            delay = self.rng.uniform(*CALL_DELAY_S)
            self.pending_calls[seat] = down + max(1, int(delay * self.fps))

    def _land_jitter(self, seat: int, card: Card, mm: float, degrees: float) -> None:
        self.jitter[(seat, card)] = (
            self.rng.gauss(0, mm),
            self.rng.gauss(0, mm),
            self.rng.gauss(0, degrees),
        )

    # ---- positions -------------------------------------------------------------------------

    def _spot_position(self, seat: int, spot: Spot, below: int = 0) -> tuple[float, float, float]:
        layout = self.bots[seat].layout
        angle = self.geometry.seats[seat].angle
        if spot.place is Place.NERTS:
            return (*self.geometry.nerts(seat), angle)
        if spot.place is Place.WASTE:
            return (*self.geometry.waste(seat), angle)
        pile = layout.work[spot.index]
        depth = max(0, len(pile) - 1 - below)
        return (*self.geometry.work(seat, spot.index, depth, max(1, len(pile))), angle)

    def _slot_position(self, pile_id: str, seat: int) -> tuple[float, float, float]:
        x, y = self.geometry.slot(int(pile_id[1:]))
        return x, y, self.geometry.seats[seat].angle

    def scene(self) -> Scene:
        """The table as the camera sees it now: every card lying or carried, every hand."""
        return table_scene(self)
