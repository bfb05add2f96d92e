"""Bots that play one seat's layout by the rules of `referee/`, at human speed.

A bot only decides; the timeline animates what it decided and tells it the outcome.
Policy, in order: a card to a foundation (Nerts pile first), the Nerts pile's top onto a work
pile, a whole work pile onto another (to make a space), the waste onto a work pile, turn the
stock. A bot that has turned through its whole stock without a move is stuck until the
foundations change.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.cards import Card, Rank
from referee.foundations import FoundationPile, why_illegal
from referee.layout import CARDS_TURNED, NERTS, TURN, WASTE, Move, MoveKind, PlayerLayout, Spot

FASTEST_MOVE_S = 0.4
SLOWEST_MOVE_S = 2.0
"""Human timing: a seat's typical time for one move is drawn from this range."""
MOVE_TIME_SPREAD = 0.25
"""Each move takes the seat's typical time, give or take this fraction."""


@dataclass(frozen=True)
class FoundationPlay:
    spot: Spot
    card: Card
    pile: str


@dataclass(frozen=True)
class LayoutMove:
    move: Move


Decision = FoundationPlay | LayoutMove


class SeatBot:
    def __init__(self, seat: int, layout: PlayerLayout, rng: random.Random) -> None:
        self.seat = seat
        self.layout = layout
        self.rng = rng
        self.seconds_per_move = rng.uniform(FASTEST_MOVE_S, SLOWEST_MOVE_S)
        self.turns_without_progress = 0
        # True when the last decision found nothing to do (stuck, or no move at all).
        self.waiting = False
        self.foundation_tops: frozenset[tuple[str, int]] = frozenset()

    def move_seconds(self) -> float:
        spread = self.rng.uniform(1 - MOVE_TIME_SPREAD, 1 + MOVE_TIME_SPREAD)
        return max(FASTEST_MOVE_S * 0.75, self.seconds_per_move * spread)

    @property
    def stuck(self) -> bool:
        """Turned through the whole stock twice (and a little more) without any other move. Once
        is not enough: three at a time, a pass begun mid-stock shows other cards than one begun
        at a fresh stock, and every pass from a fresh stock shows the same ones."""
        cycle = (len(self.layout.stock) + len(self.layout.waste)) // CARDS_TURNED + 2
        return self.turns_without_progress > 2 * cycle

    def notice_foundations(self, piles: Mapping[str, FoundationPile]) -> None:
        """New cards in the centre may unblock a stuck bot: it looks through its stock again."""
        tops = frozenset((pile_id, int(pile.top)) for pile_id, pile in piles.items())
        if tops != self.foundation_tops:
            self.foundation_tops = tops
            self.turns_without_progress = 0

    def decide(
        self, piles: Mapping[str, FoundationPile], free_pile_ids: Sequence[str]
    ) -> Decision | None:
        """The next move, or None when stuck (or only turning would be possible and it is)."""
        self.waiting = False
        play = self.foundation_play(piles, free_pile_ids)
        if play is not None:
            self.turns_without_progress = 0
            return play
        move = self.freeing_move(piles, free_pile_ids) or self.layout_move()
        if move is None or (move == TURN and self.stuck):
            self.waiting = True
            return None
        self.turns_without_progress = self.turns_without_progress + 1 if move == TURN else 0
        return LayoutMove(move)

    def foundation_play(
        self, piles: Mapping[str, FoundationPile], free_pile_ids: Sequence[str]
    ) -> FoundationPlay | None:
        for spot, card in self.layout.exposed():
            if card.rank == Rank.ACE and free_pile_ids:
                return FoundationPlay(spot, card, free_pile_ids[0])
            for pile_id, pile in piles.items():
                if why_illegal(pile, card) is None:
                    return FoundationPlay(spot, card, pile_id)
        return None

    def mistaken_play(
        self, piles: Mapping[str, FoundationPile], free_pile_ids: Sequence[str]
    ) -> FoundationPlay | None:
        """An illegal foundation play, as a hurried player makes one now and then."""
        options = [
            FoundationPlay(spot, card, pile_id)
            for spot, card in self.layout.exposed()
            for pile_id, pile in piles.items()
            # A complete pile is set aside: an Ace there starts a new pile, no mistake; a card
            # whose place a card of its rank and suit took is a lost race, no mistake either.
            if why_illegal(pile, card) is not None
            and not pile.took_place_of(card)
            and not pile.complete
        ]
        options += [
            FoundationPlay(spot, card, free_pile_ids[0])
            for spot, card in self.layout.exposed()
            if free_pile_ids and card.rank != Rank.ACE
        ]
        return self.rng.choice(options) if options else None

    def freeing_move(
        self, piles: Mapping[str, FoundationPile], free_pile_ids: Sequence[str]
    ) -> Move | None:
        """Part of a work pile moved onto another, where the card it uncovers goes to a
        foundation (the rules let a card move with every card on top of it)."""
        work = self.layout.work
        for move in self.layout.legal_moves():
            if move.kind is not MoveKind.RUN or move.source is None:
                continue
            pile = work[move.source.index]
            if move.count >= len(pile):
                continue
            uncovered = pile[-move.count - 1]
            if (uncovered.rank == Rank.ACE and free_pile_ids) or any(
                why_illegal(foundation, uncovered) is None for foundation in piles.values()
            ):
                return move
        return None

    def layout_move(self) -> Move | None:
        moves = self.layout.legal_moves()
        if not moves:
            return None
        work = self.layout.work
        for move in moves:  # the Nerts pile first: emptying it is the point of the game
            if move.source == NERTS and move.kind is MoveKind.TO_WORK and work[move.target or 0]:
                return move
        for move in moves:
            if move.source == NERTS:
                return move
        if self.layout.nerts:
            for move in moves:  # a whole pile onto another makes a space for the Nerts card
                whole = move.source is not None and move.count == len(work[move.source.index])
                if move.kind is MoveKind.RUN and whole:
                    return move
        for move in moves:
            if move.source == WASTE and move.target is not None and work[move.target]:
                return move
        if not self.layout.nerts:
            for move in moves:
                if move.source == WASTE:
                    return move
        return TURN if TURN in moves else None

    def racing_spot(self, card: Card) -> Spot | None:
        """Where this bot has `card` exposed, if it does (to race another seat for a place)."""
        for spot, exposed in self.layout.exposed():
            if exposed == card:
                return spot
        return None
