"""Index readings merged into the cards found (`vision/merging.py`), built by hand: a corner
names the card it belongs to, a surer name wins, a corner of no card is a card of its own, a
turned reading beyond a card's length is another card, a back's corner gets no name."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import CardDetection
from vision.geometry import (
    CARD_CORNERS_MM,
    INDEX_WINDOW_MM,
    card_window,
)
from vision.identify import _names_a_card
from vision.merging import own_windows, with_index_readings
from vision.reading_settings import (
    FAINT_CORNER_READ_MIN,
    FAINT_CORNER_SCORE,
)


def _card(x: float, name: str | None = None, card_score: float = 0.0) -> CardDetection:
    """A face-up card at 2 px/mm, upright, its top-left corner at (x, 50)."""
    quad = CARD_CORNERS_MM * 2 + np.array([x, 50], np.float32)
    return CardDetection(quad, True, 0.9, name, card_score)


def _reading(
    card: CardDetection, corner: int, name: str, score: float
) -> tuple[CardDetection, np.ndarray]:
    window = card_window(card.quad, corner, INDEX_WINDOW_MM)
    quad = np.roll(card.quad, -2 * corner, axis=0)
    return CardDetection(quad, True, 0.8, name, score), window


def test_an_index_corner_names_the_unnamed_card_it_belongs_to() -> None:
    cards = [_card(100), _card(130)]  # fanned 15 mm apart
    reading, window = _reading(cards[1], 1, "9C", 0.9)
    merged = with_index_readings(cards, [(reading, window)], INDEX_WINDOW_MM)
    assert [c.card for c in merged] == [None, "9C"]
    # The corner it was read at comes first.
    assert merged[1].quad[0] == pytest.approx(cards[1].quad[2])


def test_the_more_confident_name_of_one_corner_wins() -> None:
    named = _card(100, "6C", 0.95)
    reading, window = _reading(named, 0, "9C", 0.7)
    assert [c.card for c in with_index_readings([named], [(reading, window)], INDEX_WINDOW_MM)] == [
        "6C"
    ]
    reading, window = _reading(named, 0, "5C", 0.99)
    assert [c.card for c in with_index_readings([named], [(reading, window)], INDEX_WINDOW_MM)] == [
        "5C"
    ]


def test_an_index_corner_of_no_found_card_is_a_card_of_its_own() -> None:
    cards = [_card(100, "2H", 0.9)]
    hidden = _card(400)
    reading, window = _reading(hidden, 0, "KD", 0.8)
    merged = with_index_readings(cards, [(reading, window)], INDEX_WINDOW_MM)
    assert [c.card for c in merged] == ["2H", "KD"]
    assert merged[1].quad == pytest.approx(hidden.quad)


def _turned_reading(
    corner: np.ndarray, name: str, score: float
) -> tuple[CardDetection, np.ndarray]:
    """A reading of an index corner at `corner`, upside down (the card's bottom-right index):
    its outline implied as a poker card's, 2 px/mm."""
    quad = corner - CARD_CORNERS_MM * 2
    return CardDetection(quad, True, 0.8, name, score), card_window(quad, 0, INDEX_WINDOW_MM)


def test_two_index_corners_of_a_card_larger_than_implied_are_one_card_spanning_both() -> None:
    """A card 30% larger than a poker card, its top-left and bottom-right indices read on
    their own: each implies a poker card at its corner, and the two overlap too little to be
    one card by overlap; they are one card by where and which way they lie."""
    real = CARD_CORNERS_MM * 2 * 1.3 + np.array([100, 50], np.float32)
    top_left = CARD_CORNERS_MM * 2 + real[0]
    first = (CardDetection(top_left, True, 0.8, "QD", 0.9), card_window(top_left, 0))
    opposite = _turned_reading(real[2], "QD", 0.95)
    merged = with_index_readings([], [first, opposite], INDEX_WINDOW_MM)
    assert [(c.card, c.card_score) for c in merged] == [("QD", 0.95)]
    assert merged[0].quad == pytest.approx(np.roll(real, -2, axis=0), abs=1e-3)
    # Another name there, or one not turned half round (a second deck's card), is another card.
    other = _turned_reading(real[2], "QH", 0.95)
    assert len(with_index_readings([], [first, other], INDEX_WINDOW_MM)) == 2
    upright = CARD_CORNERS_MM * 2 + real[2]
    beside = (CardDetection(upright, True, 0.8, "QD", 0.95), card_window(upright, 0))
    assert len(with_index_readings([], [first, beside], INDEX_WINDOW_MM)) == 2
    # A second deck's QD turned half round, lying over part of the first: two cards.
    for share in (0.5, 0.7):
        over = _turned_reading(top_left[0] + (top_left[2] - top_left[0]) * share, "QD", 0.95)
        assert len(with_index_readings([], [first, over], INDEX_WINDOW_MM)) == 2


def test_an_opposite_corner_inside_a_card_found_whole_is_its_other_index() -> None:
    """A turned reading of its name 0.9 of the way across a card found whole is its other
    index: one card, spanning both corners, the detector's score kept."""
    whole = _card(100, "5H", 0.7)
    far = whole.quad[0] + (whole.quad[2] - whole.quad[0]) * 0.9
    (merged,) = with_index_readings([whole], [_turned_reading(far, "5H", 0.9)], INDEX_WINDOW_MM)
    spanned = whole.quad[0] + (whole.quad - whole.quad[0]) * 0.9
    assert merged.quad == pytest.approx(np.roll(spanned, -2, axis=0))
    assert (merged.card, merged.card_score, merged.score) == ("5H", 0.9, whole.score)


def test_readings_of_one_card_merge_at_either_corner_whichever_came_first() -> None:
    card = _card(100)
    first = _reading(card, 1, "9C", 0.8)
    second = _reading(card, 0, "9C", 0.9)
    merged = with_index_readings([card], [first, second], INDEX_WINDOW_MM)
    assert [(c.card, c.card_score) for c in merged] == [("9C", 0.9)]
    assert merged[0].quad[0] == pytest.approx(card.quad[0])
    # A window found twice is one card, also when no whole card was found.
    hidden = _card(400)
    twice = [_reading(hidden, 0, "KD", 0.8), _reading(hidden, 0, "KD", 0.85)]
    assert [c.card for c in with_index_readings([], twice, INDEX_WINDOW_MM)] == ["KD"]


def test_a_faint_index_corner_names_a_card_only_when_read_surely() -> None:
    sure, unsure = _card(100, "7D", FAINT_CORNER_READ_MIN), _card(100, "7D", 0.84)
    assert _names_a_card(sure, FAINT_CORNER_SCORE - 0.01)
    assert not _names_a_card(unsure, FAINT_CORNER_SCORE - 0.01)
    assert _names_a_card(unsure, FAINT_CORNER_SCORE)
    assert not _names_a_card(_card(100), 0.99)


def test_an_index_corner_names_an_unnamed_card_whatever_score_it_carries() -> None:
    """A card with no name has no name's confidence to keep against a reading: identify
    leaves `card_score` 0 on unnamed cards, but one carrying a score is named all the same."""
    unnamed = _card(100, None, 0.9)
    reading, window = _reading(unnamed, 0, "9C", 0.5)
    merged = with_index_readings([unnamed], [(reading, window)], INDEX_WINDOW_MM)
    assert [(c.card, c.card_score) for c in merged] == [("9C", 0.5)]


def test_a_turned_reading_of_its_name_beyond_a_cards_length_is_another_card() -> None:
    """Its other index lies across the card's width and down its length: a reading of the
    name turned half round as far across but twice as far down (`OPPOSITE_CORNER_SPAN`) is
    a second deck's card, not a corner of this one."""
    whole = _card(100, "5H", 0.7)
    first, across, _, down = whole.quad
    far = first + (across - first) + (down - first) * 2.0
    merged = with_index_readings([whole], [_turned_reading(far, "5H", 0.9)], INDEX_WINDOW_MM)
    assert [(c.card, c.card_score) for c in merged] == [("5H", 0.7), ("5H", 0.9)]
    assert merged[0].quad == pytest.approx(whole.quad)
    # 1.5 of its length down, the same reading is its other index: one card spanning both.
    near = first + (across - first) + (down - first) * 1.5
    (spanning,) = with_index_readings([whole], [_turned_reading(near, "5H", 0.9)], INDEX_WINDOW_MM)
    assert spanning.quad[0] == pytest.approx(near)


def test_an_index_reading_over_a_face_down_cards_corner_is_a_card_of_its_own() -> None:
    """A back has no index windows: an index read over its corner is a face-up card lying on
    it, not the back's name."""
    back = CardDetection(_card(100).quad, False, 0.9)
    assert own_windows(back, INDEX_WINDOW_MM) == ()
    reading, window = _reading(back, 0, "9C", 0.8)
    merged = with_index_readings([back], [(reading, window)], INDEX_WINDOW_MM)
    assert [(c.card, c.face_up) for c in merged] == [(None, False), ("9C", True)]
    assert merged[0].quad == pytest.approx(back.quad)
