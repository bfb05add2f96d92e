"""The count keeps only card-sized face-down detections."""

from __future__ import annotations

import numpy as np

from vision.count import _card_sized
from vision.detections import CardDetection


def _card(x: float, scale: float = 1.0) -> CardDetection:
    quad = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float32) * scale + [x, 0]
    return CardDetection(quad, False, 0.9)


def test_pieces_of_cards_and_boxes_around_two_are_not_counted() -> None:
    cards = [_card(100.0 * i) for i in range(5)]
    piece, pair = _card(600, scale=0.6), _card(800, scale=1.5)
    kept = _card_sized([*cards, piece, pair])
    assert kept == cards


def test_nothing_found_counts_nothing() -> None:
    assert _card_sized([]) == []
