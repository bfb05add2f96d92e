"""Photos taken close, a card filling the frame: looked at again from further away."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.count as count_module
from nerts.cli import main
from simulator.backs import back_from_spec
from simulator.faces import builtin_design
from vision.backs import BackMatcher
from vision.close_ups import (
    STEP_BACK,
    in_photo,
    may_hold_pieces,
    pieces_found,
    stepped_back,
    taken_close,
    without_pieces,
)
from vision.count import count_backs
from vision.count_settings import DECK_CARDS_MAX
from vision.detections import CardDetection
from vision.geometry import intersection_over_union
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


def two_backs_close(
    spec: str, size: tuple[int, int], card_px: int
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Two cards of the back `spec` (its design file, as printed) side by side, each `card_px`
    wide, in a photo of `size` (width, height); and their quads."""
    back = back_from_spec(spec).image[:, :, :3]
    width, height = size
    photo = np.full((height, width, 3), TABLE_BGR, np.uint8)
    card = cv2.resize(back, (card_px, round(card_px * back.shape[0] / back.shape[1])))
    top = (height - card.shape[0]) // 2
    quads = []
    for left in (width // 2 - card_px - 20, width // 2 + 20):
        photo[top : top + card.shape[0], left : left + card_px] = card
        right, bottom = left + card_px, top + card.shape[0]
        quads.append(np.array([[left, top], [right, top], [right, bottom], [left, bottom]]))
    return photo, quads


def test_backs_photographed_close_are_counted_from_further_away(reader: CardReader) -> None:
    """At their own size the lattice of these two cards is found as 235 cards."""
    references = {
        name: back_from_spec(name).image[:, :, :3] for name in ("red:lattice", "blue:dots")
    }
    photo, _ = two_backs_close("red:lattice", (640, 480), 270)
    counted = count_backs(photo, reader, BackMatcher(references))
    assert counted.counts == {"red:lattice": 2, "blue:dots": 0}
    assert not counted.beyond_decks and not counted.parts_uncounted


def test_backs_photographed_close_are_found_from_further_away(reader: CardReader) -> None:
    photo, quads = two_backs_close("red:lattice", (640, 480), 270)
    reader.step_back = False
    try:
        assert len(reader.read(photo)) == 16  # pieces of the lattice
    finally:
        reader.step_back = True
    found = sorted(reader.read(photo), key=lambda card: float(card.quad[:, 0].min()))
    assert [card.face_up for card in found] == [False, False]
    assert all(
        intersection_over_union(card.quad, quad) > 0.8
        for card, quad in zip(found, quads, strict=True)
    )


def test_cards_found_are_pieces_where_one_found_further_away_holds_three() -> None:
    size = (960, 720)
    whole = _card(200, 20, 600, None, False)
    pieces = [_card(250 + 100 * i, 100, 90, None, False) for i in range(3)]
    assert may_hold_pieces(pieces) and pieces_found(pieces, [whole], size)
    assert not pieces_found(pieces[:2], [whole], size)  # two: may be cards on a card
    assert not pieces_found(pieces, [_card(200, 20, 150, None, False)], size)  # not so long
    named = [*pieces[:2], _card(450, 100, 90, "7H", True)]
    assert not may_hold_pieces(named) and not pieces_found(named, [whole], size)


def test_a_count_of_more_cards_than_a_deck_holds_is_doubted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where counting from further away does not help, the count is said to be wrong."""
    photo, reference = tmp_path / "close.png", tmp_path / "lattice.png"
    cv2.imwrite(str(photo), two_backs_close("red:lattice", (640, 480), 270)[0])
    cv2.imwrite(str(reference), back_from_spec("red:lattice").image[:, :, :3])
    monkeypatch.setattr(count_module, "_taken_close", lambda counted, image: False)
    assert main(["count", str(photo), "--backs", f"red={reference}", "--json", "--strict"]) == 3
    out, err = capsys.readouterr()
    counted = json.loads(out)["red"]
    assert counted > DECK_CARDS_MAX
    assert err.splitlines()[0] == (
        f"warning: {counted} cards counted for red, more than a deck holds (54 with jokers): the "
        "photo is likely taken so close that the backs' pattern was found as cards, or on a "
        "patterned cloth whose checks were; photograph the spread from further away, on a plain "
        "surface"
    )
