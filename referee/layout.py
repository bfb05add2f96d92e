"""One player's own area, for bots and the simulator: Nerts pile, work piles, stock and waste.

Like a chess board: a mutable `PlayerLayout` with value-type `Move`s, `legal_moves()` and
`apply()`. Foundation plays take a card off the layout with `take()`; the round referee judges
where it lands. Lists hold cards bottom first, so `[-1]` is the top (the exposed card).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from referee.cards import Card
from referee.errors import RefereeInputError
from referee.numbers import plain_number
from referee.options import DEFAULT_NERTS_PILE_SIZE

WORK_PILES = 4
CARDS_TURNED = 3


class Place(enum.Enum):
    NERTS = "nerts"
    WASTE = "waste"
    WORK = "work"


@dataclass(frozen=True)
class Spot:
    """Where a card lies in a layout: the Nerts pile, the waste, or work pile `index`."""

    place: Place
    index: int = 0

    def __str__(self) -> str:
        return f"work{self.index}" if self.place is Place.WORK else self.place.value

    @classmethod
    def parse(cls, text: str) -> Spot:
        index = plain_number(text[4:]) if text.startswith("work") else None
        # Written as str() writes it ('work1', not 'work01'), so that parse and str agree.
        if index is not None and index < WORK_PILES and text == f"work{index}":
            return cls(Place.WORK, index)
        if text in (Place.NERTS.value, Place.WASTE.value):
            return cls(Place(text))
        raise RefereeInputError(
            f"not a layout spot: {text!r} (nerts, waste, work0..work{WORK_PILES - 1})"
        )


NERTS = Spot(Place.NERTS)
WASTE = Spot(Place.WASTE)


class MoveKind(enum.Enum):
    TO_WORK = "to_work"  # the top of the Nerts pile or the waste onto a work pile
    RUN = "run"  # a work-pile card, with every card on it, onto another work pile
    SLIDE_UNDER = "slide_under"  # shortcut: a card slid under a pile's base card
    TURN_STOCK = "turn_stock"  # three from stock to waste, or recycle the waste when short


@dataclass(frozen=True)
class Move:
    kind: MoveKind
    source: Spot | None = None
    target: int | None = None
    # For RUN: how many cards move (the card at depth -count and all above it).
    count: int = 1

    def __str__(self) -> str:
        if self.kind is MoveKind.TURN_STOCK:
            return "turn"
        return f"{self.kind.value} {self.source}>work{self.target} x{self.count}"


TURN = Move(MoveKind.TURN_STOCK)


def builds_on(card: Card, below: Card) -> bool:
    """Work piles build down in alternating colours: a red 9 on a black 10."""
    return card.rank == below.rank - 1 and card.is_red != below.is_red


class PlayerLayout:
    def __init__(
        self,
        nerts: Sequence[Card],
        work: Sequence[Sequence[Card]],
        stock: Sequence[Card],
        waste: Sequence[Card] = (),
    ) -> None:
        self.nerts = list(nerts)
        self.work = [list(pile) for pile in work]
        self.stock = list(stock)
        self.waste = list(waste)

    @classmethod
    def deal(
        cls, deck: Sequence[Card], nerts_pile_size: int = DEFAULT_NERTS_PILE_SIZE
    ) -> PlayerLayout:
        """Deals a shuffled deck: Nerts pile, one card on each work pile, the rest as stock."""
        if len(deck) < nerts_pile_size + WORK_PILES:
            raise RefereeInputError(f"a deck of {len(deck)} cards is too small to deal")
        work_end = nerts_pile_size + WORK_PILES
        work = [[card] for card in deck[nerts_pile_size:work_end]]
        return cls(deck[:nerts_pile_size], work, deck[work_end:])

    def copy(self) -> PlayerLayout:
        return PlayerLayout(self.nerts, self.work, self.stock, self.waste)

    @property
    def card_count(self) -> int:
        return len(self.nerts) + sum(map(len, self.work)) + len(self.stock) + len(self.waste)

    def top(self, spot: Spot) -> Card | None:
        pile = self._pile(spot)
        return pile[-1] if pile else None

    def exposed(self) -> list[tuple[Spot, Card]]:
        """Every card that may be played to a foundation, with where it lies."""
        spots = [NERTS, WASTE, *(Spot(Place.WORK, i) for i in range(len(self.work)))]
        return [(spot, card) for spot in spots if (card := self.top(spot)) is not None]

    def take(self, spot: Spot) -> Card:
        """Takes the exposed card at `spot` off the layout (a foundation play)."""
        pile = self._pile(spot)
        if not pile:
            raise RefereeInputError(f"nothing to take from {spot}")
        return pile.pop()

    def put_back(self, spot: Spot, card: Card) -> None:
        """Returns a late or illegal foundation card to where it came from."""
        self._pile(spot).append(card)

    def fits(self, card: Card, target: int) -> bool:
        pile = self.work[target]
        return not pile or builds_on(card, pile[-1])

    def legal_moves(self) -> list[Move]:
        moves: list[Move] = []
        empty = [i for i, pile in enumerate(self.work) if not pile]
        for spot in (NERTS, WASTE):
            card = self.top(spot)
            if card is None:
                continue
            moves += [
                Move(MoveKind.TO_WORK, spot, i) for i in range(len(self.work)) if self.fits(card, i)
            ]
            if empty:
                moves += [
                    Move(MoveKind.SLIDE_UNDER, spot, i)
                    for i, pile in enumerate(self.work)
                    if pile and builds_on(pile[0], card)
                ]
        for source, pile in enumerate(self.work):
            for count in range(1, len(pile) + 1):
                if count > 1 and not builds_on(pile[-count + 1], pile[-count]):
                    break
                moves += [
                    Move(MoveKind.RUN, Spot(Place.WORK, source), target, count)
                    for target in range(len(self.work))
                    if target != source
                    and self.fits(pile[-count], target)
                    and (self.work[target] or count < len(pile))
                ]
        if self.stock or self.waste:
            moves.append(TURN)
        return moves

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves()

    def apply(self, move: Move) -> None:
        if not self.is_legal(move):
            raise RefereeInputError(f"illegal layout move: {move}")
        if move.kind is MoveKind.TURN_STOCK:
            self.turn_stock()
            return
        assert move.source is not None and move.target is not None
        source = self._pile(move.source)
        target = self.work[move.target]
        if move.kind is MoveKind.TO_WORK:
            target.append(source.pop())
        elif move.kind is MoveKind.SLIDE_UNDER:
            target.insert(0, source.pop())
        else:
            moved = source[-move.count :]
            del source[-move.count :]
            target.extend(moved)

    def turn_stock(self) -> None:
        """Three cards from stock to waste; with fewer left, they go on the waste, which turns
        over as the new stock."""
        if len(self.stock) >= CARDS_TURNED:
            packet = self.stock[-CARDS_TURNED:]
            del self.stock[-CARDS_TURNED:]
            self.waste.extend(reversed(packet))
            return
        self.waste.extend(reversed(self.stock))
        self.stock = list(reversed(self.waste))
        self.waste = []

    def rotate_stuck(self) -> None:
        """Everyone stuck: the waste turns over under the stock, then its top card goes under."""
        self.stock = list(reversed(self.waste)) + self.stock
        self.waste = []
        if self.stock:
            self.stock.insert(0, self.stock.pop())

    def _pile(self, spot: Spot) -> list[Card]:
        if spot.place is Place.NERTS:
            return self.nerts
        if spot.place is Place.WASTE:
            return self.waste
        if not 0 <= spot.index < len(self.work):
            raise RefereeInputError(f"no work pile {spot.index} (0..{len(self.work) - 1})")
        return self.work[spot.index]
