"""Cards as value types: `Card.parse("10H")` and `str(card)` round trip."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from referee.errors import InvalidCardError


def _ascii_upper(text: str) -> str:
    """Lower-case letters read as capitals, ASCII ones only: other letters that Python
    capitalises to a suit's (the long s, U+017F, to 'S') are no card name."""
    return text.upper() if text.isascii() else text


class Rank(enum.IntEnum):
    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        try:
            return _RANKS_BY_SYMBOL[_ascii_upper(text)]
        except KeyError:
            raise InvalidCardError(f"not a rank: {text!r} (expected one of A 2-10 J Q K)") from None

    def __str__(self) -> str:
        return self.symbol


_RANK_SYMBOLS = {
    rank: symbol
    for rank, symbol in zip(
        Rank, ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"], strict=True
    )
}
_RANKS_BY_SYMBOL = {symbol: rank for rank, symbol in _RANK_SYMBOLS.items()}


class Suit(enum.Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @classmethod
    def parse(cls, text: str) -> Suit:
        try:
            return cls(_ascii_upper(text))
        except ValueError:
            raise InvalidCardError(f"not a suit: {text!r} (expected S, H, D or C)") from None

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Card:
    """A standard card: "10H" is the ten of hearts."""

    rank: Rank
    suit: Suit
    # Kept because long logs write every card's text, and each enum look-up costs a Python call.
    _text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_text", f"{self.rank.symbol}{self.suit.value}")

    @property
    def is_red(self) -> bool:
        return self.suit.is_red

    @classmethod
    def parse(cls, text: str) -> Card:
        known = _CARDS_BY_TEXT.get(text) if isinstance(text, str) else None
        if known is not None:
            return known
        if not isinstance(text, str) or not 2 <= len(text) <= 3:
            raise InvalidCardError(f"not a card: {text!r} (expected e.g. '10H', 'QS', 'AC')")
        try:
            return cls(Rank.parse(text[:-1]), Suit.parse(text[-1]))
        except InvalidCardError as error:
            raise InvalidCardError(f"not a card: {text!r} ({error})") from None

    def __str__(self) -> str:
        return self._text


def full_deck() -> list[Card]:
    """The 52 cards in a fixed order (suits S H D C, ranks A..K)."""
    return [Card(rank, suit) for suit in Suit for rank in Rank]


# Logs name the same 52 cards over and over: parse each spelling once.
_CARDS_BY_TEXT = {str(card): card for card in full_deck()}


def card_order(name: str) -> tuple[int, str]:
    """A card name's place when names are listed: by rank, then by the suit's letter."""
    card = Card.parse(name)
    return int(card.rank), card.suit.value
