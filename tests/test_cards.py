from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.cards import Card, Rank, Suit, card_order, full_deck
from referee.errors import InvalidCardError

cards = st.builds(Card, st.sampled_from(Rank), st.sampled_from(Suit))


@given(cards)
def test_parse_str_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) == card


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [("10H", Rank.TEN, Suit.HEARTS), ("QS", Rank.QUEEN, Suit.SPADES), ("ac", Rank.ACE, Suit.CLUBS)],
)
def test_parse_examples(text: str, rank: Rank, suit: Suit) -> None:
    assert Card.parse(text) == Card(rank, suit)


# The long s, a letter Python capitalises to an S, names no suit.
@pytest.mark.parametrize(
    "text", ["", "1H", "11S", "10X", "H10", "JOKER", "KHH", "0C", "A\u017f", "10\u017f"]
)
def test_bad_cards_name_the_input(text: str) -> None:
    with pytest.raises(InvalidCardError, match=repr(text)):
        Card.parse(text)


def test_bad_card_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="'ZZ'"):
        Card.parse("ZZ")


def test_colours() -> None:
    assert Card.parse("5H").is_red and Card.parse("5D").is_red
    assert not Card.parse("5S").is_red and not Card.parse("5C").is_red


def test_full_deck_is_52_distinct_cards() -> None:
    deck = full_deck()
    assert len(deck) == 52 == len(set(deck))
    assert str(deck[0]) == "AS" and str(deck[-1]) == "KC"


def test_card_names_are_listed_by_rank_then_suit() -> None:
    names = ["KS", "10H", "2C", "AS", "10C", "JD"]
    assert sorted(names, key=card_order) == ["AS", "2C", "10C", "10H", "JD", "KS"]
