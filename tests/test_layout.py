from __future__ import annotations

import random
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import Card, full_deck
from referee.errors import RefereeInputError
from referee.layout import (
    NERTS,
    TURN,
    WASTE,
    Move,
    MoveKind,
    Place,
    PlayerLayout,
    Spot,
    builds_on,
)


def cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


def test_deal() -> None:
    layout = PlayerLayout.deal(full_deck())
    assert len(layout.nerts) == 13 and [len(p) for p in layout.work] == [1, 1, 1, 1]
    assert len(layout.stock) == 35 and layout.waste == [] and layout.card_count == 52


def test_builds_down_in_alternating_colours() -> None:
    assert builds_on(Card.parse("9H"), Card.parse("10S"))
    assert not builds_on(Card.parse("9C"), Card.parse("10S"))
    assert not builds_on(Card.parse("8H"), Card.parse("10S"))


def test_turn_three_then_recycle_when_short() -> None:
    layout = PlayerLayout([], [[], [], [], []], cards("AS 2S 3S 4S 5S"))
    layout.turn_stock()
    # The top three are turned over as a packet: the third from the top shows.
    assert [str(c) for c in layout.waste] == ["5S", "4S", "3S"] and layout.stock == cards("AS 2S")
    layout.turn_stock()
    # Fewer than three: they go on the waste, which turns over as the new stock.
    assert layout.waste == [] and [str(c) for c in layout.stock] == ["AS", "2S", "3S", "4S", "5S"]


def test_rotate_stuck_moves_top_card_to_bottom() -> None:
    layout = PlayerLayout([], [[], [], [], []], cards("AS"), cards("2S 3S 4S"))
    layout.rotate_stuck()
    assert [str(c) for c in layout.stock] == ["AS", "4S", "3S", "2S"]
    assert layout.waste == []


def test_moves_runs_and_slide_under() -> None:
    layout = PlayerLayout(cards("9D"), [cards("10S 9H"), cards("10C"), [], cards("8C")], [])
    moves = set(layout.legal_moves())
    assert Move(MoveKind.TO_WORK, NERTS, 2) in moves  # an empty pile takes any card
    assert Move(MoveKind.TO_WORK, NERTS, 1) in moves  # red 9 on black 10
    assert Move(MoveKind.RUN, Spot(Place.WORK, 3), 0) in moves  # black 8 on red 9
    assert Move(MoveKind.RUN, Spot(Place.WORK, 0), 2, 1) in moves  # split a pile into a space
    assert Move(MoveKind.SLIDE_UNDER, NERTS, 3) in moves  # red 9 under the black 8
    assert Move(MoveKind.RUN, Spot(Place.WORK, 0), 2, 2) not in moves  # whole pile: pointless
    layout.apply(Move(MoveKind.SLIDE_UNDER, NERTS, 3))
    assert layout.work[3] == cards("9D 8C") and layout.nerts == []


def test_run_moves_together() -> None:
    layout = PlayerLayout([], [cards("JD 10S 9H"), cards("JH"), [], []], [])
    layout.apply(Move(MoveKind.RUN, Spot(Place.WORK, 0), 1, 2))
    assert layout.work[0] == cards("JD") and layout.work[1] == cards("JH 10S 9H")


def test_illegal_move_is_refused() -> None:
    layout = PlayerLayout(cards("9C"), [cards("10S"), [], [], []], [])
    with pytest.raises(RefereeInputError, match="illegal layout move"):
        layout.apply(Move(MoveKind.TO_WORK, NERTS, 0))


def test_take_and_exposed() -> None:
    layout = PlayerLayout(cards("2H AH"), [cards("5S"), [], [], []], [], cards("3D"))
    assert [(str(s), str(c)) for s, c in layout.exposed()] == [
        ("nerts", "AH"),
        ("waste", "3D"),
        ("work0", "5S"),
    ]
    assert layout.take(NERTS) == Card.parse("AH") and layout.top(NERTS) == Card.parse("2H")
    with pytest.raises(RefereeInputError, match="nothing to take from work1"):
        layout.take(Spot(Place.WORK, 1))


def test_spot_round_trip() -> None:
    for spot in (NERTS, WASTE, Spot(Place.WORK, 3)):
        assert Spot.parse(str(spot)) == spot


@pytest.mark.parametrize(
    "text", ["work", "work-1", "work\u00b2", "Work1", "", "work01", "work4", "work99"]
)
def test_a_spot_not_in_the_layout_is_named(text: str) -> None:
    with pytest.raises(RefereeInputError, match=f"not a layout spot: {text!r}"):
        Spot.parse(text)


@given(st.integers(0, 2**32), st.integers(1, 200))
@settings(max_examples=60, deadline=None)
def test_random_legal_play_conserves_cards(seed: int, steps: int) -> None:
    rng = random.Random(seed)
    deck = full_deck()
    rng.shuffle(deck)
    layout = PlayerLayout.deal(deck)
    taken: list[Card] = []
    for _ in range(steps):
        if rng.random() < 0.1 and layout.exposed():
            spot, _card = rng.choice(layout.exposed())
            taken.append(layout.take(spot))
        moves = layout.legal_moves()
        if moves:
            layout.apply(rng.choice(moves))
        for pile in layout.work:
            assert all(builds_on(a, b) for b, a in pairwise(pile))
    everything = layout.nerts + layout.stock + layout.waste + taken
    everything += [c for pile in layout.work for c in pile]
    assert sorted(map(str, everything)) == sorted(map(str, deck))
    assert TURN in layout.legal_moves() or not (layout.stock or layout.waste)


def test_a_deck_of_just_the_nerts_pile_and_one_card_a_work_pile_deals() -> None:
    deck = full_deck()[:17]
    layout = PlayerLayout.deal(deck)
    assert layout.nerts == deck[:13] and layout.work == [[card] for card in deck[13:]]
    assert layout.stock == [] and layout.waste == []
    with pytest.raises(RefereeInputError, match=r"^a deck of 16 cards is too small to deal$"):
        PlayerLayout.deal(deck[:16])


def test_a_stack_that_is_no_run_does_not_move_as_one() -> None:
    """Under the 8D lies a 4H, not a black 9: only the 8D moves (into a space); the 4H with
    it is no run, though the 4H alone would fit the black 5."""
    layout = PlayerLayout([], [cards("9S 4H 8D"), cards("5C"), [], []], [])
    runs = [(m.target, m.count) for m in layout.legal_moves() if m.source == Spot(Place.WORK, 0)]
    assert runs == [(2, 1), (3, 1)]
    with pytest.raises(RefereeInputError, match="illegal layout move"):
        layout.apply(Move(MoveKind.RUN, Spot(Place.WORK, 0), 1, 2))


def test_a_work_pile_past_the_last_is_named() -> None:
    layout = PlayerLayout([], [[], [], [], []], [])
    with pytest.raises(RefereeInputError, match=r"^no work pile 4 \(0\.\.3\)$"):
        layout.take(Spot(Place.WORK, 4))
