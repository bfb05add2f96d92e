"""Scores: a round's points per seat, and who (if anyone) has won the game."""

from __future__ import annotations

from collections.abc import Mapping

NERTS_CARD_PENALTY = 2


def round_score(foundation_cards: int, nerts_left: int) -> int:
    """+1 for each own card on the foundations, -2 for each card left in the Nerts pile."""
    return foundation_cards - NERTS_CARD_PENALTY * nerts_left


def game_winner(totals: Mapping[int, int], target: int) -> int | None:
    """The winning seat: the highest total once it reaches the target; a tie at the top plays on."""
    if not totals:
        return None
    best = max(totals.values())
    leaders = [seat for seat, total in totals.items() if total == best]
    return leaders[0] if best >= target and len(leaders) == 1 else None
