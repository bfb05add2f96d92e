"""Foundation piles: an Ace starts one; same suit, one rank up; a King completes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from referee.cards import Card, Rank, Suit
from referee.events import IllegalReason


class Placed(NamedTuple):
    """A card that stays on a pile: its owner, the frame it landed in, whether a joker."""

    seat: int
    card: Card
    frame: int
    joker: bool = False


@dataclass
class FoundationPile:
    pile_id: str
    suit: Suit
    top: Rank
    # Frame in which the current top rank landed: a same-frame duplicate is a tie, a later one late.
    top_frame: int
    # Every card that stays, bottom first; ties put two cards at one rank.
    cards: list[Placed] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.top == Rank.KING

    def holds_top(self, card: Card) -> bool:
        """Whether `card` is the rank and suit that already took the top place."""
        return card.suit == self.suit and card.rank == self.top

    def took_place_of(self, card: Card) -> bool:
        """Whether a card of `card`'s rank and suit already took its place on this pile, at
        the top or under cards played on it since: `card` lost the race for that place."""
        return card.suit == self.suit and card.rank <= self.top

    def place(self, seat: int, card: Card, frame: int, joker: bool = False) -> None:
        if card.rank != self.top:
            self.top, self.top_frame = card.rank, frame
        self.cards.append(Placed(seat, card, frame, joker))

    def remove(self, seat: int, card: Card) -> Placed | None:
        """Takes a staying top card back off the pile (a player undoing a play): the card
        taken, None if absent. The top is then the card below, with the frame it landed in."""
        if not self.holds_top(card):
            return None
        for index in range(len(self.cards) - 1, -1, -1):
            if self.cards[index][:2] == (seat, card):
                removed = self.cards.pop(index)
                break
        else:
            return None
        if self.cards and self.cards[-1].card.rank != self.top:
            below = self.cards[-1]
            self.top, self.top_frame = below.card.rank, below.frame
        return removed

    @property
    def empty(self) -> bool:
        return not self.cards


def why_illegal(pile: FoundationPile | None, card: Card) -> IllegalReason | None:
    """Why `card` may not go on `pile` (None: a new pile), or None when it is the next card."""
    if pile is None:
        return None if card.rank == Rank.ACE else IllegalReason.NOT_AN_ACE
    if card.suit != pile.suit:
        return IllegalReason.WRONG_SUIT
    if pile.complete or card.rank != pile.top + 1:
        return IllegalReason.WRONG_RANK
    return None
