"""The picture of a simulated round: where every card lies or is carried, and the hands.

`table_scene` draws nothing itself: it poses the cards and hands of a `RoundSimulation`'s
frame as a `Scene`, which `simulator/render.py` renders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.cards import Card
from referee.layout import CARDS_TURNED, PlayerLayout
from simulator.geometry import WORK_FAN_MM
from simulator.scene import CardPose, HandPose, Scene

if TYPE_CHECKING:  # the simulation imports this module to draw its frames
    from simulator.timeline import Motion, RoundSimulation

LIFT_MM = 35.0
"""How high a carried card rises at the middle of its way."""
HAND_RETREAT_S = 0.35
"""How long a hand takes to withdraw to its rest after placing a card."""
PILE_TURN_OVER_S = 1.0
"""How long a complete foundation lies face up, its King on top, before a player turns it over
and sets it aside (RULES.md)."""
STACK_STEP_MM = 0.4
"""Offset between the top cards of a squared pile (Nerts pile, stock), so its edge shows."""
STACK_CARDS_DRAWN = 3
"""The top cards of a squared pile that are drawn (a Nerts pile, the stock, a foundation
turned over): those under them never show."""


def table_scene(sim: RoundSimulation) -> Scene:
    """The table as the camera sees it in `sim`'s frame: every card lying or carried, and
    each seat's hand (a seat's newest motion owns it)."""
    cards: list[CardPose] = []
    for seat, bot in enumerate(sim.bots):
        cards += _seat_cards(sim, seat, bot.layout)
    for pile_id, slot in sim.slots.items():
        pile = sim.referee.piles.get(pile_id)
        turn_over = None if pile is None or not pile.complete else pile.top_frame
        turned = turn_over is not None and sim.frame >= turn_over + PILE_TURN_OVER_S * sim.fps
        shown = slot.cards[-STACK_CARDS_DRAWN:] if turned else slot.cards
        x, y = sim.geometry.slot(int(pile_id[1:]))
        for owner, card in shown:
            if (owner, card) in sim.in_transit:
                continue
            cards.append(
                _pose(sim, owner, card, (x, y, sim.geometry.seats[owner].angle), face_up=not turned)
            )
    hands: dict[int, HandPose] = {}
    for motion in sim.motions:  # oldest first: a seat's newest motion owns its one hand
        if sim.frame < motion.start:  # not begun (a take-back to come): the hand is elsewhere
            continue
        if motion.reach_from is None:  # it reaches from where the hand is, not from rest
            held = hands.get(motion.seat)
            rest = sim.geometry.rest(motion.seat)
            motion.reach_from = (held.x, held.y) if held is not None else (rest[0], rest[1])
        carried, hand = _motion_poses(sim, motion)
        cards += carried
        hands[motion.seat] = hand
    return Scene(tuple(cards), tuple(hands[seat] for seat in sorted(hands)))


def _pose(
    sim: RoundSimulation,
    seat: int,
    card: Card,
    at: tuple[float, float, float],
    *,
    face_up: bool = True,
) -> CardPose:
    """`seat`'s `card` lying at `at` (x, y in mm, turned degrees), as it landed (its jitter)."""
    x, y, angle = at
    dx, dy, da = sim.jitter.get((seat, card), (0.0, 0.0, 0.0))
    return CardPose(str(card), seat, x + dx, y + dy, angle + da, face_up)


def _seat_cards(sim: RoundSimulation, seat: int, layout: PlayerLayout) -> list[CardPose]:
    geometry, angle = sim.geometry, sim.geometry.seats[seat].angle
    poses: list[CardPose] = []

    def stack(cards: list[Card], at: tuple[float, float], top_face_up: bool) -> None:
        visible = [c for c in cards[-STACK_CARDS_DRAWN:] if (seat, c) not in sim.in_transit]
        for i, card in enumerate(visible):
            face_up = top_face_up and i == len(visible) - 1
            y = at[1] - STACK_STEP_MM * i
            poses.append(_pose(sim, seat, card, (at[0], y, angle), face_up=face_up))

    stack(layout.nerts, geometry.nerts(seat), True)
    stack(layout.stock, geometry.stock(seat), False)
    waste = [c for c in layout.waste[-CARDS_TURNED:] if (seat, c) not in sim.in_transit]
    for i, card in enumerate(waste):
        x, y = geometry.waste(seat, len(waste) - 1 - i)
        poses.append(_pose(sim, seat, card, (x, y, angle)))
    for index, pile in enumerate(layout.work):
        for depth, card in enumerate(pile):
            if (seat, card) not in sim.in_transit:
                x, y = geometry.work(seat, index, depth, len(pile))
                poses.append(_pose(sim, seat, card, (x, y, angle)))
    return poses


def _motion_poses(sim: RoundSimulation, motion: Motion) -> tuple[list[CardPose], HandPose]:
    rest = sim.geometry.rest(motion.seat)
    if sim.frame >= motion.release:  # placed: the hand withdraws
        retreat = HAND_RETREAT_S * sim.fps
        u = _ease(min(1.0, (sim.frame - motion.release) / retreat))
        x, y = _lerp(motion.target[:2], rest, u)
        return [], HandPose(motion.seat, x, y)
    if sim.frame < motion.pickup:  # reaching for the card, which still lies there
        u = _ease((sim.frame - motion.start) / max(1, motion.pickup - motion.start))
        x, y = _lerp(motion.reach_from or rest, motion.source[:2], u)
        # A rejected card being fetched still lies on its pile and is drawn there.
        carried = [
            _carried(sim, motion, card, i, motion.source, lift=0.0)
            for i, card in enumerate(motion.cards)
            if (motion.seat, card) in sim.in_transit
        ]
        return carried, HandPose(motion.seat, x, y)
    u = _ease((sim.frame - motion.pickup) / max(1, motion.release - motion.pickup))
    x, y = _lerp(motion.source[:2], motion.target[:2], u)
    angle = motion.source[2] + (motion.target[2] - motion.source[2]) * u
    lift = LIFT_MM * 4 * u * (1 - u) + 2.0 * (1 - u)
    carried = [
        _carried(sim, motion, card, i, (x, y, angle), lift=lift)
        for i, card in enumerate(motion.cards)
    ]
    return carried, HandPose(motion.seat, x, y)


def _carried(
    sim: RoundSimulation,
    motion: Motion,
    card: Card,
    index: int,
    at: tuple[float, float, float],
    *,
    lift: float,
) -> CardPose:
    # A run stays fanned as it is carried, toward the player like on the work pile.
    inward = sim.geometry.seats[motion.seat].inward
    step = WORK_FAN_MM * index
    return CardPose(
        str(card),
        motion.seat,
        at[0] - inward[0] * step,
        at[1] - inward[1] * step,
        at[2],
        motion.face_up,
        lift,
    )


def _ease(u: float) -> float:
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


def _lerp(a: tuple[float, ...], b: tuple[float, ...], u: float) -> tuple[float, float]:
    return a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u
