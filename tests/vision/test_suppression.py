"""Which overlapping detections are kept: surely found cards may overlap more, and a card found
face down within face-up cards found is a stray report."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.detections import CardDetection
from vision.geometry import overlap_of_smaller
from vision.merging import DUPLICATE_OVERLAP, without_backs_over_faces, without_duplicates
from vision.onnx_models import _box_overlaps, _with_sure_overlaps

CARD = (0.0, 0.0, 60.0, 90.0)
"""A card's box (left, top, width, height)."""
SHIFTED = (18.0, 0.0, 60.0, 90.0)
"""The same card moved 18 px sideways: it overlaps `CARD` 0.54 (42 of 78 columns)."""
SURE_OVERLAP = (0.6, 0.6)


def _kept(
    scores: list[float], chosen: list[int], boxes: tuple[tuple[float, ...], ...] = (CARD, SHIFTED)
) -> list[int]:
    kept = _with_sure_overlaps(
        np.array(boxes), np.array(scores), np.array(chosen, int), SURE_OVERLAP
    )
    return [int(index) for index in kept]


def test_the_overlap_of_the_two_boxes() -> None:
    overlap = _box_overlaps(np.array(CARD), np.array([SHIFTED, CARD]))
    assert np.allclose(overlap, [42 / 78, 1.0])
    assert _box_overlaps(np.array(CARD), np.zeros((0, 4))).shape == (0,)


def test_two_sure_cards_overlapping_are_both_kept() -> None:
    assert _kept([0.9, 0.7], [0]) == [0, 1]


def test_a_weak_card_stays_suppressed() -> None:
    assert _kept([0.9, SURE_OVERLAP[1] - 0.01], [0]) == [0]


def test_a_twice_found_card_is_kept_once() -> None:
    assert _kept([0.9, 0.8], [0], (CARD, CARD)) == [0]


def test_each_card_added_counts_against_the_next() -> None:
    """The third box overlaps `CARD` 0.38 but `SHIFTED`, added before it, 0.74."""
    boxes = (CARD, SHIFTED, (27.0, 0.0, 60.0, 90.0))
    assert _kept([0.9, 0.8, 0.7], [0], boxes) == [0, 1]
    assert _kept([0.9, 0.5, 0.7], [0], boxes) == [0, 2]


def _detection(x: float, y: float, face_up: bool, width: float = 63.0) -> CardDetection:
    corners = np.array([[0, 0], [width, 0], [width, 88], [0, 88]], np.float32)
    return CardDetection(corners + np.array([x, y], np.float32), face_up, 0.8)


def test_a_card_found_face_down_within_face_up_cards_found_is_dropped() -> None:
    fan = [_detection(100 + 15 * i, 100, True) for i in range(5)]  # 123 px across
    inside = _detection(140, 100, False)  # wholly within the fan's cards
    mostly = _detection(196, 100, False, width=40)  # 27 of its 40 px within them: 0.675
    beside = _detection(400, 100, False)
    kept = without_backs_over_faces([*fan, inside, mostly, beside])
    assert kept == [*fan, mostly, beside]
    assert without_backs_over_faces([inside, beside]) == [inside, beside]  # no face found


def _face_up(left: float, name: str, score: float) -> CardDetection:
    quad = np.array([[left, 0], [left + 60, 0], [left + 60, 90], [left, 90]], np.float32)
    return CardDetection(quad, True, score, name, card_score=1.0)


def test_a_card_named_twice_in_one_place_is_kept_once_at_its_surest() -> None:
    """Found whole and by its index corner, a card is named twice: the surer stays. The same
    name further off (overlapping a third of the smaller) is another card of a second deck."""
    weaker, surer = _face_up(18, "7H", 0.8), _face_up(0, "7H", 0.9)  # overlap 0.7
    beside = _face_up(40, "7H", 0.95)  # overlaps the surer one 20 of 60 columns
    other = _face_up(10, "8H", 0.7)  # another name, wholly overlapping: its own card
    kept = without_duplicates([weaker, surer, beside, other])
    assert [(card.card, card.score) for card in kept] == [("7H", 0.95), ("7H", 0.9), ("8H", 0.7)]


def test_unnamed_cards_overlapping_much_are_all_kept() -> None:
    """Only a shared name says two detections are one card: face-down cards squared up on a
    pile, or face-up cards whose index is covered, overlap as much and are each a card."""
    backs = [replace(_detection(100 + 20 * i, 100, False), score=0.9 - 0.1 * i) for i in range(2)]
    unread = [
        replace(_face_up(400 + 20 * i, "7H", 0.9 - 0.1 * i), card=None, card_score=0.0)
        for i in range(2)
    ]
    assert overlap_of_smaller(backs[0].quad, backs[1].quad) > DUPLICATE_OVERLAP
    assert without_duplicates([backs[1], backs[0]]) == backs
    assert without_duplicates([unread[1], unread[0]]) == unread
