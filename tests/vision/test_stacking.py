"""Which of two overlapping cards lies on top: the one whose outline is sharper inside the other."""

from __future__ import annotations

import pytest

from tests.vision.renders import CARD_W, card_quad, draw_back, table
from vision.stacking import cards_above, stacking_leans


@pytest.mark.parametrize("turn", [0.0, 6.0, -9.0])
def test_the_card_laid_last_is_on_top_of_the_one_it_covers(turn: float) -> None:
    for top_first in (False, True):
        image = table()
        under, over = card_quad(40, 40, turn), card_quad(80, 48, -turn)
        draw_back(image, under, (150, 60, 20))
        draw_back(image, over, (30, 40, 170))
        quads = [over, under] if top_first else [under, over]
        above = cards_above(2, stacking_leans(quads, image))
        top, bottom = (0, 1) if top_first else (1, 0)
        assert above[bottom] == {top}
        assert above[top] == set()


def test_a_row_of_cards_each_laid_on_the_last_is_stacked_in_that_order() -> None:
    image = table(160, 520)
    quads = [card_quad(20 + 40 * n, 30 + (n % 2) * 3, (-1) ** n * 4.0) for n in range(8)]
    colours = [(150, 60, 20), (30, 40, 170), (40, 140, 40)]
    for n, quad in enumerate(quads):
        draw_back(image, quad, colours[n % 3])
    above = cards_above(len(quads), stacking_leans(quads, image))
    for n in range(len(quads) - 1):
        assert n + 1 in above[n] and n not in above[n + 1]


def test_cards_apart_or_barely_touching_are_not_judged() -> None:
    image = table()
    quads = [card_quad(20, 40), card_quad(200, 40), card_quad(200 + CARD_W - 1, 40)]
    for quad in quads:
        draw_back(image, quad, (150, 60, 20))
    assert stacking_leans(quads, image) == {}
    assert cards_above(3, {}) == [set(), set(), set()]


def test_only_surely_told_pairs_are_kept_when_asked() -> None:
    leans = {(0, 1): 0.5, (1, 2): -0.1, (0, 2): -0.3}
    assert cards_above(3, leans) == [{2}, {0, 2}, set()]
    assert cards_above(3, leans, sure=0.2) == [{2}, {0}, set()]


def test_a_pair_leaning_neither_way_puts_neither_on_top() -> None:
    assert cards_above(2, {(0, 1): 0.0}) == [set(), set()]
    # A lean exactly as sure as asked is kept; one just under it is not.
    assert cards_above(2, {(0, 1): -0.25}, sure=0.25) == [{1}, set()]
    assert cards_above(2, {(0, 1): 0.2499}, sure=0.25) == [set(), set()]
