"""The referee's table markers are found and the detections lying on them dropped."""

from __future__ import annotations

import cv2
import numpy as np

from vision.detections import CardDetection
from vision.markers import MARKER_WITH_RIM, TABLE_MARKER_DICTIONARY, off_markers, table_markers


def _table_with_marker(left: int, top: int, side: int) -> np.ndarray:
    """A grey table with one printed marker (id 2): its black square `side` px at (left, top)
    in a white rim, as printed (7 mm around 55 mm)."""
    table = np.full((400, 600, 3), 90, np.uint8)
    rim = round(side * 7 / 55)
    table[top - rim : top + side + rim, left - rim : left + side + rim] = 250
    dictionary = cv2.aruco.getPredefinedDictionary(TABLE_MARKER_DICTIONARY)
    square = cv2.aruco.generateImageMarker(dictionary, 2, side)
    table[top : top + side, left : left + side] = square[..., None]
    return table


def _card(left: float, top: float, width: float, height: float) -> CardDetection:
    quad = np.array(
        [[left, top], [left + width, top], [left + width, top + height], [left, top + height]],
        np.float32,
    )
    return CardDetection(quad, False, 0.8)


def test_the_marker_is_found_with_its_rim() -> None:
    [quad] = table_markers(_table_with_marker(100, 120, 110))
    width, height = np.ptp(quad, axis=0)
    assert abs(width - 110 * MARKER_WITH_RIM) < 4 and abs(height - 110 * MARKER_WITH_RIM) < 4
    assert np.allclose(quad.mean(axis=0), (100 + 55, 120 + 55), atol=2)


def test_a_detection_on_a_marker_is_dropped_and_the_cards_beside_it_kept() -> None:
    table = _table_with_marker(100, 120, 110)
    on_marker = _card(90, 105, 130, 140)
    beside = _card(240, 100, 126, 176)  # touching the rim, a card's width from the square
    over_a_corner = _card(195, 215, 126, 176)  # a quarter of the marker under it
    kept = off_markers([on_marker, beside, over_a_corner], table)
    assert kept == [beside, over_a_corner]
    # Without a marker in the photo nothing is dropped.
    plain = np.full_like(table, 90)
    assert off_markers([on_marker, beside], plain) == [on_marker, beside]
