"""The bare table as the count sees it: a card-sized patch of it, matched as if it were one
more back, tells detections on the table between cards from cards."""

from __future__ import annotations

import numpy as np

from tests.vision.renders import CARD_H, CARD_W, card_quad, draw_back
from vision.backs import BackMatcher
from vision.count import _matched, _table_not_card
from vision.count_settings import TABLE_FAR_FROM_BACK_MIN, TABLE_NEARER_FACTOR
from vision.detections import CardDetection
from vision.geometry import uncovered
from vision.table_colours import (
    BARE_TABLE_MARGIN_SHARE,
    BARE_TABLE_SEARCH_WIDTH_PX,
    bare_table_quad,
)

PALE_TABLE = (228, 222, 214)
"""A pale blue-grey cloth (BGR), near the white of the cards' rims."""


def _pale_table(height: int, width: int) -> np.ndarray:
    rng = np.random.default_rng(3)
    image = np.full((height, width, 3), PALE_TABLE, np.int16)
    return np.clip(image + rng.integers(-6, 7, image.shape), 0, 255).astype(np.uint8)


def test_a_patch_of_bare_table_is_found_nearest_the_cards() -> None:
    cards = [CardDetection(card_quad(20 + 70 * n, 0), False, 0.9) for n in range(3)]
    quad = bare_table_quad((300, 260, 3), cards)
    assert quad is not None
    # Upright, a card's size, corners in a card's order (from the top left, clockwise).
    assert np.allclose(quad[1] - quad[0], [CARD_W, 0], atol=0.01)
    assert np.allclose(quad[3] - quad[0], [0, CARD_H], atol=0.01)
    # Right below the cards' middle, clear of them by the margin: searched at a scale where a
    # card is 32 px wide, each pixel there 2 px here, to within about three of them.
    margin, search_px = BARE_TABLE_MARGIN_SHARE * CARD_W, CARD_W / BARE_TABLE_SEARCH_WIDTH_PX
    assert abs(quad.mean(axis=0)[0] - (90 + CARD_W / 2)) <= search_px
    assert CARD_H + margin <= quad[0, 1] <= CARD_H + margin + 3 * search_px


def test_no_patch_where_no_card_sized_bare_table_shows() -> None:
    cards = [CardDetection(card_quad(20 + 70 * n, 0), False, 0.9) for n in range(3)]
    assert bare_table_quad((CARD_H + 20, 260, 3), cards) is None  # a strip under the cards
    assert bare_table_quad((300, 500, 3), []) is None


def test_a_detection_on_the_table_between_columns_of_cards_is_not_counted() -> None:
    """Columns of cards laid a card's width apart on a pale cloth: the detector finds 'cards'
    in the gaps, whose colour (the cloth) the cards' white rims share."""
    image = _pale_table(300, 420)
    red = (40, 40, 190)
    columns = (20, 20 + 2 * CARD_W)
    quads = [card_quad(x, y) for x in columns for y in (10, 10 + CARD_H + 4)]
    for quad in quads:
        draw_back(image, quad, red)
    reference = _pale_table(CARD_H, CARD_W)
    draw_back(reference, card_quad(0, 0), red)
    cards = [CardDetection(quad, False, 0.9) for quad in quads]
    gaps = [CardDetection(card_quad(20 + CARD_W, y), False, 0.7) for y in (10, 10 + CARD_H + 4)]
    found = [*cards, *gaps]
    whole = [uncovered(card.quad, []) for card in found]
    counted = _matched(found, whole, image, BackMatcher({"red": reference}))
    assert [card.quad.tolist() for card in counted] == [card.quad.tolist() for card in cards]
    assert {card.back for card in counted} == {"red"}


def test_a_plain_back_the_colour_of_the_table_is_still_counted() -> None:
    """Cards as plain as the cloth and of its colour lie much nearer the table than their
    reference, taken in a slightly bluer light, but near enough that."""
    image = _pale_table(300, 420)
    quads = [card_quad(20 + 70 * n, 10) for n in range(4)]
    cards = [CardDetection(quad, False, 0.9) for quad in quads]
    bluer = _pale_table(CARD_H, CARD_W).astype(np.int16) + np.array([19, 0, -19], np.int16)
    reference = bluer.clip(0, 255).astype(np.uint8)
    whole = [uncovered(card.quad, []) for card in cards]
    assert len(_matched(cards, whole, image, BackMatcher({"cloth": reference}))) == 4


def test_only_a_detection_far_from_every_back_and_much_nearer_the_table_is_table() -> None:
    far = TABLE_FAR_FROM_BACK_MIN
    assert _table_not_card(far / TABLE_NEARER_FACTOR, far)
    assert not _table_not_card(far / TABLE_NEARER_FACTOR + 0.01, far)  # not near enough
    assert not _table_not_card(0.0, far - 0.01)  # near its back: a back the table's colour
