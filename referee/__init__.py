"""The rules of Nerts as a pure library: cards, foundations, verdicts, rounds, scoring, the game.

No I/O, no clock, no OpenCV. It consumes table events (`referee.events`) and returns verdicts and
derived events as values. The simulator's bots play by the same rules (`referee.layout`).
"""

from referee.cards import Card, Rank, Suit, full_deck
from referee.errors import EventError, InvalidCardError, RefereeInputError
from referee.event_parsing import event_from_dict
from referee.events import Event
from referee.game import GameReferee
from referee.options import RuleOptions

__all__ = [
    "Card",
    "Event",
    "EventError",
    "GameReferee",
    "InvalidCardError",
    "Rank",
    "RefereeInputError",
    "RuleOptions",
    "Suit",
    "event_from_dict",
    "full_deck",
]
