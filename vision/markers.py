"""The ArUco markers at the corners of the referee's play area: card-sized squares with a
white rim that the card detector can take for cards, so detections on them are dropped."""

from __future__ import annotations

import cv2
import numpy as np

from vision.detections import CardDetection
from vision.geometry import overlap_of_smaller

TABLE_MARKER_DICTIONARY = cv2.aruco.DICT_4X4_50
"""The markers' dictionary: the ones the simulator's table shows (`simulator/table.py`, a test
keeps the two the same) and the project's calibration uses."""
MARKER_WITH_RIM = (55.0 + 2 * 7.0) / 55.0
"""A printed marker's side, white rim included, over its black square's (55 mm, 7 mm rims)."""
ON_MARKER_SHARE = 0.5
"""A detection lying this much (of itself, or of the marker) on a marker is the marker (a card
on a marker covers far more; chosen when first written, not tuned)."""


def table_markers(image: np.ndarray) -> list[np.ndarray]:
    """The quads (4 x 2, image pixels) of the markers in `image`, white rim included."""
    dictionary = cv2.aruco.getPredefinedDictionary(TABLE_MARKER_DICTIONARY)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(image)
    if ids is None:
        return []
    quads = []
    for square in corners:
        points = square.reshape(4, 2).astype(np.float32)
        centre = points.mean(axis=0)
        quads.append(centre + (points - centre) * np.float32(MARKER_WITH_RIM))
    return quads


def on_a_marker(quad: np.ndarray, markers: list[np.ndarray]) -> bool:
    """Whether a detection's `quad` is one of the `markers` (`table_markers`)."""
    return any(overlap_of_smaller(quad, marker) >= ON_MARKER_SHARE for marker in markers)


def off_markers(cards: list[CardDetection], image: np.ndarray) -> list[CardDetection]:
    """The `cards` that are not one of the table's markers."""
    markers = table_markers(image)
    return [card for card in cards if not on_a_marker(card.quad, markers)]
