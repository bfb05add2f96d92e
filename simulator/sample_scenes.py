"""A hand-built, realistic mid-round table for benchmarks, tests and looking at frames.

Not the game's layout authority (the timeline is): this only places plausible piles per seat
so that rendering cost and looks can be judged on a full table.
"""

from __future__ import annotations

import math

import numpy as np

from simulator.faces import ALL_CARDS, RANKS, SUITS
from simulator.geometry import WORK_FAN_MM, TableGeometry, table_for_seats
from simulator.scene import CardPose, HandPose, Scene


def seat_layout(
    seat: int, n_seats: int, table_mm: tuple[float, float], rng: np.random.Generator
) -> list[CardPose]:
    """Nerts pile, four fanned work piles, stock and waste for one seat, in painting order."""
    frame = TableGeometry(n_seats, table_mm).seats[seat]
    anchor, right, inward = (np.array(v) for v in (frame.anchor, frame.right, frame.inward))
    base_angle = frame.angle
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    cards: list[CardPose] = []

    def place(card: str, along: float, depth: float, face_up: bool, jitter: float = 1.5) -> None:
        x, y = anchor + right * along + inward * depth
        cards.append(
            CardPose(
                card,
                seat,
                float(x + rng.normal(0, jitter)),
                float(y + rng.normal(0, jitter)),
                base_angle + float(rng.normal(0, 2.0)),
                face_up,
            )
        )

    for i in range(13):  # Nerts pile: face down, top card face up
        place(deck.pop(), -300.0, 110.0 + i * 0.2, i == 12, jitter=1.0)
    for column in range(4):
        for depth in range(3):  # fanned toward the player
            place(deck.pop(), -180.0 + column * 80.0, 150.0 - depth * WORK_FAN_MM, True, 0.8)
    for _ in range(10):
        place(deck.pop(), 180.0, 110.0, False, 0.8)
    for i in range(3):
        place(deck.pop(), 260.0 + i * 12.0, 110.0, True, 0.8)
    return cards


def foundation_cards(
    n_seats: int, table_mm: tuple[float, float], count: int, rng: np.random.Generator
) -> list[CardPose]:
    """Foundation piles in the middle of the table, Ace upward, at natural small angles."""
    cards = []
    piles = max(1, count // 4)
    cols = math.ceil(math.sqrt(piles * 1.6))
    for i in range(count):
        pile = i % piles
        level = i // piles
        cx = table_mm[0] / 2 + (pile % cols - (cols - 1) / 2) * 95.0
        cy = table_mm[1] / 2 + (pile // cols - (math.ceil(piles / cols) - 1) / 2) * 120.0
        suit = SUITS[pile % len(SUITS)]
        rank = RANKS[level % len(RANKS)]
        cards.append(
            CardPose(
                rank + suit,
                int(rng.integers(n_seats)),
                cx + float(rng.normal(0, 4)),
                cy + float(rng.normal(0, 4)),
                float(rng.normal(0, 8)),
                True,
            )
        )
    return cards


def full_table(n_seats: int = 4, foundation: int = 40, seed: int = 0) -> Scene:
    """Every seat's layout plus `foundation` centre cards, no hands."""
    rng = np.random.default_rng(seed)
    table_mm = table_for_seats(n_seats)
    cards: list[CardPose] = []
    for seat in range(n_seats):
        cards += seat_layout(seat, n_seats, table_mm, rng)
    cards += foundation_cards(n_seats, table_mm, foundation, rng)
    return Scene(tuple(cards), ())


def playing_frames(n_frames: int, n_seats: int = 4, seed: int = 0) -> list[Scene]:
    """A busy stretch of play: each seat's hand carries a card to the centre, again and again."""
    table_mm = table_for_seats(n_seats)
    seats = TableGeometry(n_seats).seats
    base = full_table(n_seats, seed=seed)
    rng = np.random.default_rng(seed + 1)
    centre = np.array(table_mm) / 2
    period = 24  # frames per trip
    scenes = []
    landed: list[CardPose] = []
    for frame in range(n_frames):
        hands, carried = [], []
        for seat in range(n_seats):
            phase = (frame + seat * 7) % period
            start = np.array(seats[seat].anchor) + np.array(seats[seat].inward) * 150.0
            target = centre + np.array([(seat - 1.5) * 60.0, (seat % 2 - 0.5) * 80.0])
            t = min(1.0, phase / (period * 0.7))
            t = t * t * (3 - 2 * t)
            pos = start + (target - start) * t
            card = ALL_CARDS[(frame // period * 5 + seat * 11) % 52]
            if phase < period * 0.7:
                carried.append(
                    CardPose(
                        card,
                        seat,
                        float(pos[0]),
                        float(pos[1]),
                        seats[seat].angle * (1 - t),
                        True,
                        lift=30.0 * (1 - t) + 5,
                    )
                )
            elif phase == period - 1:
                landed.append(
                    CardPose(
                        card,
                        seat,
                        float(target[0] + rng.normal(0, 3)),
                        float(target[1] + rng.normal(0, 3)),
                        float(rng.normal(0, 8)),
                        True,
                    )
                )
            hands.append(HandPose(seat, float(pos[0]), float(pos[1])))
        scenes.append(Scene(base.cards + tuple(landed) + tuple(carried), tuple(hands)))
    return scenes
