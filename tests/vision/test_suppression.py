"""Which overlapping detections the card detector keeps: face-down cards may overlap more."""

from __future__ import annotations

import numpy as np

from vision.onnx_models import _box_overlaps, _with_overlapping_backs

CARD = (0.0, 0.0, 60.0, 90.0)
"""A card's box (left, top, width, height)."""
SHIFTED = (18.0, 0.0, 60.0, 90.0)
"""The same card moved 18 px sideways: it overlaps `CARD` 0.54 (42 of 78 columns)."""
IOU_MAX = 0.5
FACE_DOWN_OVERLAP = (0.6, 0.6)


def _kept(face_down: list[bool], scores: list[float], chosen: list[int]) -> list[int]:
    return _with_overlapping_backs(
        np.array([CARD, SHIFTED]),
        np.array(scores),
        np.array(face_down),
        np.array(chosen, int),
        iou_max=IOU_MAX,
        face_down_overlap=FACE_DOWN_OVERLAP,
    ).tolist()


def test_the_overlap_of_the_two_boxes() -> None:
    overlap = _box_overlaps(np.array(CARD), np.array([SHIFTED, CARD]))
    assert np.allclose(overlap, [42 / 78, 1.0])
    assert _box_overlaps(np.array(CARD), np.zeros((0, 4))).shape == (0,)


def test_two_face_down_cards_spread_overlapping_are_both_kept() -> None:
    assert _kept([True, True], [0.9, 0.7], [0]) == [0, 1]


def test_a_face_down_card_under_a_face_up_one_stays_suppressed() -> None:
    assert _kept([False, True], [0.9, 0.7], [0]) == [0]
    assert _kept([True, False], [0.9, 0.7], [0]) == [0]


def test_a_weak_face_down_card_stays_suppressed() -> None:
    assert _kept([True, True], [0.9, FACE_DOWN_OVERLAP[1] - 0.01], [0]) == [0]


def test_a_twice_found_face_down_card_is_kept_once() -> None:
    boxes = np.array([CARD, CARD])
    kept = _with_overlapping_backs(
        boxes,
        np.array([0.9, 0.8]),
        np.array([True, True]),
        np.array([0]),
        iou_max=IOU_MAX,
        face_down_overlap=FACE_DOWN_OVERLAP,
    )
    assert kept.tolist() == [0]
