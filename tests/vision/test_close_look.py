"""The card detector's input at its own size and closer, and when `identify` looks closer."""

from __future__ import annotations

import numpy as np
import pytest

from models import CARDS_ONNX, CORNERS_ONNX
from vision.geometry import CARD_CORNERS_MM, CARD_HEIGHT_MM, card_length, card_window
from vision.identify import CardReader
from vision.onnx_models import (
    CORNER_WINDOW_MM,
    DETECTION_SCORE_MIN,
    LETTERBOX_GREY,
    CardDetector,
    RawCard,
)
from vision.reading_settings import CLOSE_LOOK_CARD_PX, CLOSE_LOOK_SIDE

PHOTO = np.zeros((720, 1280, 3), np.uint8)


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader()


def test_the_card_detector_sees_its_own_square_or_pads_a_closer_look_to_its_stride() -> None:
    detector = CardDetector(CARDS_ONNX)
    assert detector.resizable and detector.own_side == 416
    tensor, scale, pad = detector.letterbox(PHOTO)
    # 1280 x 720 shrunk to 416 x 234, centred in the 416 square it was trained on.
    assert tensor.shape == (1, 3, 416, 416) and scale == 416 / 1280 and pad.tolist() == [0, 91]
    tensor, scale, pad = detector.letterbox(PHOTO, 640)
    # 640 x 360, padded to 384 rows: the next multiple of the stride, 32.
    assert tensor.shape == (1, 3, 384, 640) and scale == 0.5 and pad.tolist() == [0, 12]


def test_a_photo_goes_in_as_rgb_planes_from_0_to_1() -> None:
    photo = np.full((720, 1280, 3), (10, 20, 30), np.uint8)  # blue, green, red
    tensor, _, pad = CardDetector(CARDS_ONNX).letterbox(photo)
    assert tensor.dtype == np.float32 and tensor.flags.c_contiguous
    rgb = np.array([30, 20, 10], np.float32) / np.float32(255)
    assert np.array_equal(tensor[0, :, int(pad[1]) + 100, 200], rgb)
    assert np.array_equal(
        tensor[0, :, 0, 0], np.array([LETTERBOX_GREY] * 3, np.float32) / np.float32(255)
    )


def test_a_photo_a_pixel_high_still_goes_in() -> None:
    tensor, scale, _ = CardDetector(CARDS_ONNX).letterbox(np.zeros((1, 5000, 3), np.uint8))
    assert tensor.shape == (1, 3, 416, 416) and scale == 416 / 5000


def test_an_export_of_one_size_takes_no_other() -> None:
    detector = CardDetector(CORNERS_ONNX)
    assert not detector.resizable
    assert detector.letterbox(PHOTO)[0].shape == (1, 3, 416, 416)
    with pytest.raises(ValueError, match="inputs only"):
        detector.letterbox(PHOTO, 640)


def _corner_of_card(length_px: float, x: float, score: float) -> RawCard:
    card = CARD_CORNERS_MM * (length_px / CARD_HEIGHT_MM) + np.array([x, 100], np.float32)
    return RawCard(card_window(card, 0, CORNER_WINDOW_MM), True, score, index_corner=True)


def test_a_card_length_is_the_mean_of_its_long_sides() -> None:
    card = CARD_CORNERS_MM * 2 + np.array([10, 20], np.float32)
    assert card_length(card) == pytest.approx(2 * CARD_HEIGHT_MM)
    assert card_length(np.roll(card, 1, axis=0)) == pytest.approx(2 * CARD_HEIGHT_MM)


def test_identify_looks_closer_where_sure_index_corners_imply_small_cards(
    reader: CardReader,
) -> None:
    boxed = reader.detector.letterbox(PHOTO)
    # In the 416 px input a card is 416 / 1280 of its length in the photo.
    small = CLOSE_LOOK_CARD_PX / boxed[1] - 10
    large = CLOSE_LOOK_CARD_PX / boxed[1] + 10
    sure = DETECTION_SCORE_MIN
    corners = [_corner_of_card(small, x, sure) for x in (100, 300, 500)]
    assert reader._card_search_side(corners, boxed) == CLOSE_LOOK_SIDE
    # The median decides: one large card among small ones changes nothing, two of three do.
    mostly_small = [*corners[:2], _corner_of_card(large, 700, sure)]
    assert reader._card_search_side(mostly_small, boxed) == CLOSE_LOOK_SIDE
    mostly_large = [corners[0], *(_corner_of_card(large, x, sure) for x in (700, 900))]
    assert reader._card_search_side(mostly_large, boxed) is None
    # Faint corners, which may be anything, and no corners at all say nothing of the cards' size.
    assert reader._card_search_side([_corner_of_card(small, 100, sure / 2)], boxed) is None
    assert reader._card_search_side([], boxed) is None
