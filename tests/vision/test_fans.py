"""Cards fanned over one another, as hands and Nerts work piles lie: found by their index
corners, and by looking under the cards named."""

from __future__ import annotations

import numpy as np

from models import CARDS_ONNX
from simulator.scene import CardPose
from tests.vision.renders import on_felt
from vision.count_settings import COUNT_IOU_MAX
from vision.identify import CardReader
from vision.onnx_models import DETECTION_IOU_MAX
from vision.reading_settings import (
    CARD_IOU_MAX,
    CORNER_IOU_MAX,
    FAN_LOOKS_MM,
    SURE_CARD_IOU_MAX,
    SURE_CARD_SCORE_MIN,
)

FAN = ["3S", "8D", "JC", "5H", "QD", "9S", "4C"]


def _fan(gap_mm: float) -> np.ndarray:
    poses = [CardPose(card, 0, 150 + gap_mm * i, 150, 0.0, True) for i, card in enumerate(FAN)]
    return on_felt(poses)


def test_the_index_corner_detector_names_cards_fanned_under_others(
    float_detectors: CardReader,
) -> None:
    """A hand fanned 22 mm apart shows little more than each card's index strip. (At 18 mm
    this design's suit, printed beside the rank, is half covered: a half spade reads as a
    club as readily, so that fan tested guesses.)"""
    reader = float_detectors
    fan = _fan(22.0)
    assert reader.corner_detector is not None
    assert len(reader.corner_detector(fan)) >= 4
    without = CardReader(CARDS_ONNX, corners_model=None)
    # Without the looks under fans and the card detector's looser suppression of sure
    # cards, which find some of the same cards other ways.
    reader.sure_overlap = without.sure_overlap = None
    try:
        named_with = _names(reader, fan, ()) & set(FAN)
        named_without = _names(without, fan, ()) & set(FAN)
    finally:
        reader.sure_overlap = (SURE_CARD_IOU_MAX, SURE_CARD_SCORE_MIN)
    assert named_without < named_with and len(named_with - named_without) >= 2


def test_index_corners_of_a_tight_fan_are_not_suppressed_as_one(reader: CardReader) -> None:
    """Seven cards fanned 12 mm apart: their windows overlap by half, so suppression at the
    card detector's overlap kept every other one."""
    fan = _fan(12.0)
    assert reader.corner_detector is not None
    assert reader.corner_detector.iou_max == CORNER_IOU_MAX
    kept = reader.corner_detector(fan)
    assert len(kept) >= len(FAN)
    assert len(reader.corner_detector(fan, iou_max=DETECTION_IOU_MAX)) < len(kept)
    # The card detector keeps its own, and the count the one its filters were tuned with.
    assert reader.detector.iou_max == CARD_IOU_MAX
    assert DETECTION_IOU_MAX == COUNT_IOU_MAX < CARD_IOU_MAX < CORNER_IOU_MAX


def _work_pile(gap_mm: float) -> np.ndarray:
    """Six cards fanned downward, as a Nerts work pile: each shows a strip above the next."""
    poses = [CardPose(card, 0, 300, 60 + gap_mm * i, 0.0, True) for i, card in enumerate(FAN[:6])]
    return on_felt(poses)


def _names(
    reader: CardReader, photo: np.ndarray, looks: tuple[tuple[float, float], ...]
) -> set[str]:
    reader.fan_looks_mm = looks
    try:
        return {card.card for card in reader.read(photo) if card.card}
    finally:
        reader.fan_looks_mm = FAN_LOOKS_MM


def test_looking_under_a_work_pile_names_the_cards_both_detectors_missed(
    float_detectors: CardReader,
) -> None:
    reader = float_detectors
    # 24 mm apart: at 20 the top 9S is named from its far corner (session 24's cuts), and the
    # looks, taken beside the corner a card is named from, never reach the QD under it.
    pile = _work_pile(24.0)
    assert _names(reader, pile, ()) == {"3S", "JC", "5H", "9S"}
    assert _names(reader, pile, FAN_LOOKS_MM) == set(FAN[:6])


def test_looking_left_under_a_hand_fan_names_a_card_both_detectors_missed(
    reader: CardReader,
) -> None:
    fan = _fan(15.0)
    without = _names(reader, fan, ())
    assert _names(reader, fan, FAN_LOOKS_MM) - without == {"JC"}
