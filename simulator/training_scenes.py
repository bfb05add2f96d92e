"""Random table scenes for recognition training: the situations the referee must read.

Cards at every angle, fanned work piles, tidy and messy stacks, overlapping face-down spreads
(the end-of-round count), hands partly covering cards, a card carried above the table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from simulator.faces import ALL_CARDS
from simulator.geometry import table_for_seats
from simulator.sample_scenes import foundation_cards, seat_layout
from simulator.scene import CARD_HEIGHT_MM, CARD_WIDTH_MM, CardPose, HandPose, Scene


@dataclass(frozen=True)
class SceneMix:
    """How random training scenes are composed."""

    cards_per_area: float = 1.2
    """Cards per square of table a card's length on a side (88 x 88 mm, more than a card's own
    area): about how crowded the view is."""
    max_cards: int = 90
    pile_weights: tuple[float, float, float, float, float] = (0.3, 0.25, 0.15, 0.2, 0.1)
    """Relative frequency of: fanned pile, stack, face-down spread, single card, nerts pile."""
    hand_fan_weight: float = 0.15
    """Relative frequency, beside `pile_weights`, of a face-up hand fanned sideways; with 0 the
    scenes are exactly those of renders made before hand fans."""
    tight_fan_share: float = 0.0
    """Share of hand fans laid `TIGHT_FAN_STEP_MM` apart and stepped down the card as well, as
    bridge hands are often photographed: a strip narrower than the index window shows of each
    card. With 0 the scenes are exactly those of renders made before tight fans."""
    face_down_single_share: float = 0.3
    max_hands: int = 2
    hand_probability: float = 0.5
    carried_probability: float = 0.2
    game_layout_probability: float = 0.5
    """In views wide enough for a whole table: share showing every seat's Nerts layout."""
    close_up_width_mm: float = 600.0
    upright_share: float = 0.5
    """Share of piles near a seat's upright orientation; the rest at any angle."""
    count_spread_probability: float = 0.15
    """Share of scenes that are an end-of-round count: many face-down cards in overlapping
    rows across the view, the scene the detector is weakest on without them."""
    count_spread_across_share: float = 0.7
    """Share of count spreads whose cards lie long side across the row (the usual way)."""


class _Dealer:
    """Hands out distinct cards per seat (each seat has its own 52-card deck)."""

    def __init__(self, n_seats: int, rng: np.random.Generator) -> None:
        self.rng = rng
        self.decks = [list(rng.permutation(ALL_CARDS)) for _ in range(n_seats)]

    def draw(self, seat: int | None = None) -> tuple[str, int] | None:
        seats = [s for s, deck in enumerate(self.decks) if deck]
        if not seats:
            return None
        if seat is None or not self.decks[seat]:
            seat = int(self.rng.choice(seats))
        return str(self.decks[seat].pop()), seat


def _placed(drawn: tuple[str, int], at: np.ndarray, angle: float, face_up: bool) -> CardPose:
    """The `drawn` card (name, seat) lying at `at` (mm), turned `angle` degrees."""
    return CardPose(drawn[0], drawn[1], float(at[0]), float(at[1]), angle, face_up)


UPRIGHT_TURN_DEG = 4.0
"""Standard deviation of an upright pile's turn away from its seat's way up, in degrees."""


def _pile_angle(rng: np.random.Generator, mix: SceneMix) -> float:
    if rng.random() < mix.upright_share:
        return float(rng.choice([0.0, 90.0, 180.0, -90.0]) + rng.normal(0, UPRIGHT_TURN_DEG))
    return float(rng.uniform(-180, 180))


def _along(angle: float) -> np.ndarray:
    """Unit vector pointing from a card's top toward its bottom, in table coordinates."""
    a = math.radians(angle)
    return np.array([math.sin(a), math.cos(a)])


def _sideways(angle: float) -> np.ndarray:
    """Unit vector along a card's width (left to right when upright), in table coordinates."""
    a = math.radians(angle)
    return np.array([math.cos(a), -math.sin(a)])


HAND_FAN_STEP_MM = (9.0, 26.0)
"""Range of the sideways step between the cards of a hand fan."""
TIGHT_FAN_STEP_MM = (5.0, 9.0)
"""Range of the sideways step of a tight fan (`SceneMix.tight_fan_share`)."""
TIGHT_FAN_DROP = (-0.6, 0.6)
"""Range of a tight fan's step down the card, as a share of its sideways step."""
HAND_FAN_CARDS = (3, 14)
"""Cards in a hand fan: at least the first, fewer than the second (numpy's `integers`)."""
HAND_FAN_TURN_DEG = 5.0
"""Most a hand fan turns from one card to the next, either way, in degrees."""
LAID_TURN_DEG = 1.5
"""Standard deviation of a fanned card's turn away from its fan's, in degrees."""
HAND_FAN_JITTER_MM = 1.0
"""Standard deviation of a hand-fan card's place away from its step, in mm."""
FANNED_STEP_MM = (12.0, 26.0)
"""Range of the step down the card between the cards of a fanned work pile."""
FANNED_CARDS = (2, 7)
"""Cards in a fanned work pile (as `HAND_FAN_CARDS`)."""
FANNED_JITTER_MM = 0.8
"""Standard deviation of a work-pile card's place away from its step, in mm."""
STACK_CARDS = (1, 9)
"""Cards in a stack (as `HAND_FAN_CARDS`)."""
STACK_MESS_DEG = (1.0, 12.0)
"""Range of a stack's untidiness: each card turned with this standard deviation in degrees,
and moved with half of it in mm."""
SPREAD_STEP_MM = (8.0, 40.0)
"""Range of the step between the cards of a face-down spread pushed into a row or heap."""
SPREAD_CARDS = (4, 16)
"""Cards in such a spread (as `HAND_FAN_CARDS`)."""
SPREAD_JITTER_MM, SPREAD_TURN_DEG = 6.0, 15.0
"""Standard deviations of a spread card's place (mm) and turn (degrees)."""
NERTS_PILE_CARDS = (2, 14)
"""Cards in a Nerts pile, its top card face up (as `HAND_FAN_CARDS`)."""
NERTS_PILE_JITTER_MM, NERTS_PILE_TURN_DEG = 0.7, 1.0
"""Standard deviations of a Nerts pile card's place (mm) and turn (degrees): a tidy pile."""


def _hand_fan(
    dealer: _Dealer, at: np.ndarray, angle: float, rng: np.random.Generator, tight_share: float
) -> list[CardPose]:
    """Face-up cards laid side by side, each covering all but a strip of the last one with
    its index, turning a little from card to card: a hand spread on the table (as bridge
    deals are photographed); a share of them tight, each step also a little down the card."""
    seat = int(rng.integers(len(dealer.decks)))
    step, turn = rng.uniform(*HAND_FAN_STEP_MM), rng.uniform(-HAND_FAN_TURN_DEG, HAND_FAN_TURN_DEG)
    drop = 0.0
    # Drawn only when asked for, so that renders made before tight fans stay reproducible.
    if tight_share > 0 and rng.random() < tight_share:
        step = rng.uniform(*TIGHT_FAN_STEP_MM)
        drop = step * rng.uniform(*TIGHT_FAN_DROP)
    cards = []
    for i in range(int(rng.integers(*HAND_FAN_CARDS))):
        drawn = dealer.draw(seat)
        if drawn is None:
            break
        card_angle = angle + turn * i + float(rng.normal(0, LAID_TURN_DEG))
        bend = angle + turn * i / 2
        pos = at + step * i * _sideways(bend) + drop * i * _along(bend)
        pos = pos + rng.normal(0, HAND_FAN_JITTER_MM, 2)
        cards.append(_placed(drawn, pos, card_angle, True))
    return cards


def _fanned(
    dealer: _Dealer, at: np.ndarray, angle: float, rng: np.random.Generator
) -> list[CardPose]:
    seat = int(rng.integers(len(dealer.decks)))
    step = rng.uniform(*FANNED_STEP_MM) * _along(angle)
    cards = []
    for i in range(int(rng.integers(*FANNED_CARDS))):
        drawn = dealer.draw(seat)
        if drawn is None:
            break
        pos = at + step * i + rng.normal(0, FANNED_JITTER_MM, 2)
        cards.append(_placed(drawn, pos, angle + float(rng.normal(0, LAID_TURN_DEG)), True))
    return cards


def _stack(
    dealer: _Dealer, at: np.ndarray, angle: float, rng: np.random.Generator
) -> list[CardPose]:
    messy = rng.uniform(*STACK_MESS_DEG)
    cards = []
    for _ in range(int(rng.integers(*STACK_CARDS))):
        drawn = dealer.draw()
        if drawn is None:
            break
        pos = at + rng.normal(0, messy * 0.5, 2)
        cards.append(_placed(drawn, pos, angle + float(rng.normal(0, messy)), True))
    return cards


def _spread(
    dealer: _Dealer, at: np.ndarray, angle: float, rng: np.random.Generator
) -> list[CardPose]:
    """Face-down cards pushed into a rough row or heap, as when a round's centre is counted."""
    direction = np.array([math.cos(math.radians(angle)), -math.sin(math.radians(angle))])
    step = rng.uniform(*SPREAD_STEP_MM)
    cards = []
    for i in range(int(rng.integers(*SPREAD_CARDS))):
        drawn = dealer.draw()
        if drawn is None:
            break
        pos = at + direction * step * i + rng.normal(0, SPREAD_JITTER_MM, 2)
        cards.append(_placed(drawn, pos, angle + float(rng.normal(0, SPREAD_TURN_DEG)), False))
    return cards


def _single(
    dealer: _Dealer, at: np.ndarray, angle: float, rng: np.random.Generator, face_down_share: float
) -> list[CardPose]:
    drawn = dealer.draw()
    if drawn is None:
        return []
    return [_placed(drawn, at, angle, bool(rng.random() >= face_down_share))]


def _nerts_pile(
    dealer: _Dealer, at: np.ndarray, angle: float, rng: np.random.Generator
) -> list[CardPose]:
    seat = int(rng.integers(len(dealer.decks)))
    count = int(rng.integers(*NERTS_PILE_CARDS))
    cards = []
    for i in range(count):
        drawn = dealer.draw(seat)
        if drawn is None:
            break
        pos = at + rng.normal(0, NERTS_PILE_JITTER_MM, 2)
        turn = angle + float(rng.normal(0, NERTS_PILE_TURN_DEG))
        cards.append(_placed(drawn, pos, turn, i == count - 1))
    return cards


COUNT_SPREAD_SQUARE_SHARE = 0.7
"""Share of count spreads whose rows run along the view's sides; the rest at any angle."""
COUNT_STEP_SHARE = (0.2, 1.1)
"""Range of the step between a count row's cards, as a share of their length along the row:
from mostly covered to apart."""
COUNT_ROW_STEP_SHARE = (0.5, 1.15)
"""Range of the step between count rows, as a share of a card's length across the row."""
COUNT_ROW_FILL = (0.5, 0.95)
"""Range of how much of the view's longer side a count row covers."""
COUNT_ROWS = (1, 7)
"""Rows of a count spread (as `HAND_FAN_CARDS`)."""
COUNT_JITTER_MM, COUNT_TURN_DEG = 3.0, 8.0
"""Standard deviations of a counted card's place (mm) and turn (degrees) in its row."""


def _count_spread(
    dealer: _Dealer, table_mm: tuple[float, float], rng: np.random.Generator, across_share: float
) -> list[CardPose]:
    """Face-down cards of every seat in rows across the view, as players spread them for the
    count: mostly (`across_share`) long side across the row, sides overlapping; otherwise long
    side along the row, ends overlapping. Rows lie anything from overlapping to apart."""
    width, height = table_mm
    square = rng.random() < COUNT_SPREAD_SQUARE_SHARE
    angle = float(rng.choice([0.0, 90.0])) if square else float(rng.uniform(0, 180))
    along = _sideways(angle)
    across = np.array([-along[1], along[0]])
    across_row = bool(rng.random() < across_share)
    length_along, length_across = (
        (CARD_WIDTH_MM, CARD_HEIGHT_MM) if across_row else (CARD_HEIGHT_MM, CARD_WIDTH_MM)
    )
    step = length_along * rng.uniform(*COUNT_STEP_SHARE)
    row_step = length_across * rng.uniform(*COUNT_ROW_STEP_SHARE)
    per_row = max(2, int(rng.uniform(*COUNT_ROW_FILL) * max(width, height) / step))
    rows = int(rng.integers(*COUNT_ROWS))
    centre = np.array([width, height]) / 2
    origin = centre - along * step * (per_row - 1) / 2 - across * row_step * (rows - 1) / 2
    # At `angle` a card's width runs along the row (`_sideways`); either way up, as backs need
    # not be symmetric.
    base_turn = angle + (0.0 if across_row else 90.0)
    cards: list[CardPose] = []
    for row in range(rows):
        for column in range(per_row):
            drawn = dealer.draw()
            if drawn is None:
                return cards
            pos = origin + along * step * column + across * row_step * row
            pos = pos + rng.normal(0, COUNT_JITTER_MM, 2)
            turn = (
                base_turn + float(rng.choice([0.0, 180.0])) + float(rng.normal(0, COUNT_TURN_DEG))
            )
            cards.append(_placed(drawn, pos, turn, False))
    return cards


FOUNDATION_CARDS = (4, 48)
"""Cards on the foundations of a mid-round layout (as `HAND_FAN_CARDS`)."""


def _game_layout(
    table_mm: tuple[float, float],
    layout_mm: tuple[float, float],
    n_seats: int,
    rng: np.random.Generator,
) -> list[CardPose]:
    """Every seat's piles and some foundations, as mid-round, centred in the view."""
    cards: list[CardPose] = []
    for seat in range(n_seats):
        cards += seat_layout(seat, n_seats, layout_mm, rng)
    cards += foundation_cards(n_seats, layout_mm, int(rng.integers(*FOUNDATION_CARDS)), rng)
    dx, dy = (table_mm[0] - layout_mm[0]) / 2, (table_mm[1] - layout_mm[1]) / 2
    return [replace(c, x=c.x + dx, y=c.y + dy) for c in cards]


CARRIED_LIFT_MM = (5.0, 60.0)
"""Range of a carried card's height above the table."""
CARRIED_FACE_UP_SHARE = 0.8
"""Share of carried cards face up (on their way to a foundation)."""


def random_scene(
    table_mm: tuple[float, float],
    n_seats: int,
    rng: np.random.Generator,
    mix: SceneMix | None = None,
) -> Scene:
    """A random arrangement of piles over the table, maybe with hands and a carried card."""
    mix = mix or SceneMix()
    width, height = table_mm
    dealer = _Dealer(n_seats, rng)
    # Squared on purpose: `cards_per_area` counts per square of a card's length.
    card_area = CARD_HEIGHT_MM * CARD_HEIGHT_MM
    target = min(mix.max_cards, max(1, int(mix.cards_per_area * width * height / card_area)))
    # A zero-weight maker at the end leaves every draw of the others unchanged.
    weights = np.array([*mix.pile_weights, mix.hand_fan_weight])
    weights /= weights.sum()
    makers: list[Callable[[np.ndarray, float], list[CardPose]]] = [
        lambda at, a: _fanned(dealer, at, a, rng),
        lambda at, a: _stack(dealer, at, a, rng),
        lambda at, a: _spread(dealer, at, a, rng),
        lambda at, a: _single(dealer, at, a, rng, mix.face_down_single_share),
        lambda at, a: _nerts_pile(dealer, at, a, rng),
        lambda at, a: _hand_fan(dealer, at, a, rng, mix.tight_fan_share),
    ]
    cards: list[CardPose] = []
    layout_mm = table_for_seats(n_seats)
    fits = width >= layout_mm[0] and height >= layout_mm[1] * 0.9
    # Drawn only when asked for, so that renders made before count spreads stay reproducible.
    if mix.count_spread_probability > 0 and rng.random() < mix.count_spread_probability:
        cards = _count_spread(dealer, table_mm, rng, mix.count_spread_across_share)
        target = 0
    elif fits and rng.random() < mix.game_layout_probability:
        cards = _game_layout(table_mm, layout_mm, n_seats, rng)
        target = 0
    while len(cards) < target:
        at = np.array([rng.uniform(0, width), rng.uniform(0, height)])
        added = makers[int(rng.choice(len(makers), p=weights))](at, _pile_angle(rng, mix))
        if not added:
            break
        cards += added
    hands: list[HandPose] = []
    # In a close-up a forearm would fill the view; one hand at most there.
    max_hands = mix.max_hands if width >= mix.close_up_width_mm else 1
    if rng.random() < mix.hand_probability:
        for _ in range(int(rng.integers(1, max_hands + 1))):
            hand = HandPose(
                int(rng.integers(n_seats)),
                float(rng.uniform(0, width)),
                float(rng.uniform(0, height)),
            )
            hands.append(hand)
            if rng.random() < mix.carried_probability:
                drawn = dealer.draw(hand.seat)
                if drawn is not None:
                    cards.append(
                        CardPose(
                            drawn[0],
                            drawn[1],
                            hand.x,
                            hand.y,
                            _pile_angle(rng, mix),
                            bool(rng.random() < CARRIED_FACE_UP_SHARE),
                            lift=float(rng.uniform(*CARRIED_LIFT_MM)),
                        )
                    )
    return Scene(tuple(cards), tuple(hands))
