"""Photos taken close, a card filling the frame: looked at again from further away."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from simulator.faces import builtin_design
from vision.close_ups import STEP_BACK, in_photo, stepped_back, taken_close, without_pieces
from vision.detections import CardDetection
from vision.identify import CardReader
from vision.onnx_models import LETTERBOX_GREY, RawCard

TABLE_BGR = (40, 90, 140)


def close_up(card: str) -> np.ndarray:
    """A 960 x 720 photo of `card` (the built-in design) filling all but 40 px of its height."""
    face = builtin_design().faces[card][:, :, :3]
    photo = np.full((720, 960, 3), TABLE_BGR, np.uint8)
    height = 680
    width = round(face.shape[1] * height / face.shape[0])
    left = (960 - width) // 2
    photo[20 : 20 + height, left : left + width] = cv2.resize(
        face, (width, height), interpolation=cv2.INTER_AREA
    )
    return photo


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader()


@pytest.mark.parametrize("card", ["7H", "AS", "10D", "2S"])
def test_a_card_filling_the_photo_is_named_from_further_away(reader: CardReader, card: str) -> None:
    photo = close_up(card)
    reader.step_back = False
    try:
        assert [found.card for found in reader.read(photo) if found.card] == []
    finally:
        reader.step_back = True
    (found,) = reader.read(photo)
    assert found.card == card and found.face_up
    # Its corners are the photo's, not the shrunk frame's: the card spans 680 px of 720.
    assert 600 < np.ptp(found.quad[:, 1]) < 740


def test_the_photo_is_shrunk_into_the_middle_of_a_grey_frame_and_found_cards_put_back() -> None:
    photo = np.full((720, 960, 3), 200, np.uint8)
    frame, corner, scale = stepped_back(photo)
    assert frame.shape == photo.shape and scale == pytest.approx(STEP_BACK)
    assert corner.tolist() == [320, 240] and frame[0, 0].tolist() == [LETTERBOX_GREY] * 3
    assert frame[360, 480].tolist() == [200] * 3
    square = np.array([[320, 240], [640, 240], [640, 480], [320, 480]], np.float32)
    (card,) = in_photo([RawCard(square, True, 0.9)], corner, scale)
    assert card.quad.tolist() == [[0, 0], [960, 0], [960, 720], [0, 720]]


def test_a_photo_is_taken_close_when_a_card_is_large_or_none_is_named() -> None:
    photo = np.zeros((720, 1280, 3), np.uint8)

    def card(length: float, name: str | None) -> CardDetection:
        quad = np.array([[0, 0], [length * 0.7, 0], [length * 0.7, length], [0, length]])
        return CardDetection(quad.astype(np.float32), True, 0.9, name, 0.9)

    assert taken_close(photo, [])
    assert taken_close(photo, [card(100, None)] * 2)  # found in pieces, none named
    assert taken_close(photo, [card(100, None)] * 5 + [card(0.2 * 1280, None)])  # large pieces
    assert not taken_close(photo, [card(100, None)] * 3)  # a spread of backs
    assert not taken_close(photo, [card(200, "AS")])
    assert taken_close(photo, [card(200, "AS"), card(0.6 * 1280, "KC")])


def _card(left: float, top: float, length: float, name: str | None, up: bool) -> CardDetection:
    quad = np.array([[0, 0], [0.7, 0], [0.7, 1], [0, 1]]) * length + [left, top]
    return CardDetection(quad.astype(np.float32), up, 0.9, name, 0.9 if name else 0.0)


def test_pieces_of_a_named_card_found_from_further_away_are_dropped() -> None:
    card = _card(200, 20, 680, "KC", True)
    court = _card(300, -200, 400, None, False)  # drawn out beyond the photo's top edge
    pips = _card(250, 300, 200, "4C", True)
    beside = _card(720, 100, 300, None, False)  # mostly outside the card: a card of its own
    twin = _card(210, 30, 680, None, True)  # as large: not a piece
    kept = without_pieces([card, court, pips, beside, twin], (960, 720))
    assert kept == [card, beside, twin]
