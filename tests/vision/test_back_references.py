"""Back references: a photo of a card on the table is cut to the card, a card alone is kept."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from simulator.backs import back_from_spec
from tests.vision.renders import photo_of_one_card
from vision.back_references import (
    CARD_FOUND_SCORE_MIN,
    CARD_ITSELF_IOU,
    CUT_LENGTH_PX,
    GROUND_LONG_SIDE_PX,
    GROUND_SCALE,
    RIVAL_SCORE_MARGIN,
    ReferenceSource,
    back_image,
)
from vision.backs import BackMatcher, _on_white
from vision.geometry import RECTIFIED_SIZE, intersection_over_union, rectify
from vision.identify import CardReader
from vision.onnx_models import RawCard


@cache
def _reader() -> CardReader:
    return CardReader()


@pytest.mark.parametrize("angle", [0.0, 35.0, 120.0])
def test_a_photo_of_a_card_on_the_table_is_cut_to_the_card(angle: float) -> None:
    photo, truth = photo_of_one_card("blue:dots", angle)
    back = back_image(photo, _reader().detector)
    assert back.source is ReferenceSource.CUT_OUT and back.score >= CARD_FOUND_SCORE_MIN
    assert back.quad is not None and intersection_over_union(back.quad, truth) > 0.9
    assert back.image.shape[:2] == RECTIFIED_SIZE[::-1]


def test_the_cut_card_is_matched_to_its_own_back_and_the_photo_is_not() -> None:
    photo, _ = photo_of_one_card("blue:dots", 35.0)
    designs = {spec: _on_white(back_from_spec(spec).image) for spec in ("blue:dots", "brown:dots")}
    matcher = BackMatcher(designs)
    cut = back_image(photo, _reader().detector).image
    assert matcher.match(cut)[0] == "blue:dots"
    assert matcher.match(photo)[0] == "brown:dots"  # the wood, taken for the back


@pytest.mark.parametrize("spec", ["red:lattice", "blue:dots", "black:checks"])
def test_a_design_file_and_a_crop_to_the_card_are_used_as_given(spec: str) -> None:
    photo, truth = photo_of_one_card(spec, 20.0)
    for reference in (_on_white(back_from_spec(spec).image), rectify(photo, truth)):
        back = back_image(reference, _reader().detector)
        assert back.source is ReferenceSource.AS_GIVEN and back.image is reference


def test_an_image_without_a_card_is_used_as_given_and_said_unsure() -> None:
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)
    back = back_image(noise, _reader().detector)
    assert back.source is ReferenceSource.UNSURE and back.image is noise and back.quad is None


class _Detector:
    """Finds the given cards (quads in the image's own pixels) wherever the image is shown:
    on the plain ground (perhaps shrunk first), moved and scaled to where the image lies."""

    def __init__(self, image_shape: tuple[int, ...], cards: list[tuple[np.ndarray, float]]):
        self.height, self.width = image_shape[:2]
        self.cards = cards
        self.sides_seen: list[int] = []

    def __call__(self, image: np.ndarray) -> list[RawCard]:
        self.sides_seen.append(max(image.shape[:2]))
        if image.shape[:2] == (self.height, self.width):
            return [RawCard(quad, False, score) for quad, score in self.cards]
        small = np.array([image.shape[1], image.shape[0]], np.float32) / GROUND_SCALE
        scale = small / np.array([self.width, self.height], np.float32)
        offset = small * ((GROUND_SCALE - 1) // 2)
        return [RawCard(quad * scale + offset, False, score) for quad, score in self.cards]


def _quad(left: float, top: float, right: float, bottom: float) -> np.ndarray:
    return np.array([[left, top], [right, top], [right, bottom], [left, bottom]], np.float32)


def test_the_rules_at_their_thresholds() -> None:
    image = np.full((200, 100, 3), 200, np.uint8)
    side = (CARD_ITSELF_IOU + 0.001) ** 0.5  # a centred box just this share of the image
    inner = _quad(50 * (1 - side), 100 * (1 - side), 50 * (1 + side), 100 * (1 + side))
    itself = _Detector(image.shape, [(inner, 0.5)])
    assert back_image(image, itself).source is ReferenceSource.AS_GIVEN
    smaller = _quad(*(inner[0] + 2), *(inner[2] - 2))
    found = _Detector(image.shape, [(smaller, CARD_FOUND_SCORE_MIN)])
    back = back_image(image, found)
    assert back.source is ReferenceSource.CUT_OUT and back.score == CARD_FOUND_SCORE_MIN
    unsure = _Detector(image.shape, [(smaller, CARD_FOUND_SCORE_MIN - 0.01)])
    assert back_image(image, unsure).source is ReferenceSource.UNSURE
    # A second card apart from the first, nearly as sure: which is meant is unsure.
    best, apart = _quad(2, 2, 40, 60), _quad(50, 120, 90, 180)
    near = CARD_FOUND_SCORE_MIN + RIVAL_SCORE_MARGIN
    rival = _Detector(image.shape, [(best, near + 0.01), (apart, CARD_FOUND_SCORE_MIN + 0.02)])
    assert back_image(image, rival).source is ReferenceSource.UNSURE
    weaker = _Detector(image.shape, [(best, near + 0.01), (apart, CARD_FOUND_SCORE_MIN - 0.01)])
    assert back_image(image, weaker).source is ReferenceSource.CUT_OUT
    # A box overlapping the card is another reading of the same card, not a rival.
    shifted = _quad(4, 4, 42, 62)
    again = _Detector(image.shape, [(best, near + 0.01), (shifted, near)])
    back = back_image(image, again)
    assert back.source is ReferenceSource.CUT_OUT and back.quad is not None
    assert np.array_equal(back.quad, best)


def test_a_large_photo_is_shrunk_by_area_before_the_card_is_cut() -> None:
    # One-pixel stripes on a card 8 times the cut's length: sampled without averaging they
    # would alias into bands; averaged they are an even grey.
    image = np.zeros((8 * CUT_LENGTH_PX + 400, 6 * CUT_LENGTH_PX + 400, 3), np.uint8)
    image[:, ::2] = 255
    card = _quad(200, 200, 200 + 8 * CUT_LENGTH_PX * 63 / 88, 200 + 8 * CUT_LENGTH_PX)
    detector = _Detector(image.shape, [(card, 0.9)])
    back = back_image(image, detector)
    assert back.source is ReferenceSource.CUT_OUT
    # The photo itself, and a ground no larger than the limit (not 9 times the photo).
    assert sorted(detector.sides_seen) == [GROUND_LONG_SIDE_PX, max(image.shape[:2])]
    assert np.abs(back.image.astype(int) - 127).max() <= 2
