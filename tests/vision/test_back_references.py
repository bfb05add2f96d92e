"""Back references: a photo of a card on the table is cut to the card, a card alone is kept."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
import pytest

from simulator.backs import back_from_spec
from tests.vision.renders import photo_of_one_card
from vision.back_references import (
    CARD_FOUND_SCORE_MIN,
    CARD_ITSELF_IOU,
    CUT_LENGTH_PX,
    GROUND_LONG_SIDE_PX,
    GROUND_VIEW_LENGTH_MIN,
    IMAGE_VIEW_LENGTH_MAX,
    OFF_PHOTO_SHARE_MAX,
    RIVAL_SCORE_MARGIN,
    BackImage,
    ReferenceSource,
    back_image,
)
from vision.backs import BackMatcher, _on_white
from vision.geometry import RECTIFIED_SIZE, card_length, intersection_over_union, rectify
from vision.identify import CardReader
from vision.markers import TABLE_MARKER_DICTIONARY
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


class _PaintedCards:
    """A detector that finds each card painted in one of `scores`' colours (BGR) wherever the
    image is shown, shrunk or on the ground: the bounding box of that colour's pixels. It
    records the long side of every image it is given."""

    def __init__(self, scores: dict[tuple[int, int, int], float]) -> None:
        self.scores = scores
        self.sides_seen: list[int] = []

    def __call__(self, image: np.ndarray) -> list[RawCard]:
        self.sides_seen.append(max(image.shape[:2]))
        cards = []
        for colour, score in self.scores.items():
            rows, columns = np.nonzero(np.all(np.abs(image.astype(int) - colour) <= 8, axis=2))
            if rows.size:
                box = _quad(columns.min(), rows.min(), columns.max() + 1, rows.max() + 1)
                cards.append(RawCard(box, False, score))
        return cards


class _ByView:
    """A detector that finds `in_image` in an image of `shape` itself and `on_ground` on its
    ground (given in the image's pixels: a small image lies, unshrunk, at (its width, its
    height) on a ground three times its size)."""

    def __init__(
        self,
        in_image: list[RawCard],
        on_ground: list[RawCard],
        shape: tuple[int, int] = (300, 400),
    ) -> None:
        self.in_image, self.on_ground, self.shape = in_image, on_ground, shape

    def __call__(self, image: np.ndarray) -> list[RawCard]:
        height, width = self.shape
        if image.shape[:2] == self.shape:
            return self.in_image
        assert image.shape[:2] == (3 * height, 3 * width)
        where = np.array([width, height], np.float32)
        return [RawCard(card.quad + where, False, card.score) for card in self.on_ground]


RED, GREEN = (0, 0, 255), (0, 255, 0)


def _quad(left: float, top: float, right: float, bottom: float) -> np.ndarray:
    return np.array([[left, top], [right, top], [right, bottom], [left, bottom]], np.float32)


def _painted(*boxes: tuple[tuple[int, int, int], tuple[int, int, int, int]]) -> np.ndarray:
    """A 300 x 400 grey-blue image with each (colour, (left, top, right, bottom)) painted."""
    image = np.full((300, 400, 3), (200, 150, 120), np.uint8)
    for colour, (left, top, right, bottom) in boxes:
        image[top:bottom, left:right] = colour
    return image


def test_an_image_that_is_one_card_is_used_as_given_from_the_overlap_threshold() -> None:
    # A card filling all but a margin: its overlap with the whole image just over and under.
    for overlap, expected in (
        (CARD_ITSELF_IOU + 0.01, "AS_GIVEN"),
        (CARD_ITSELF_IOU - 0.01, "CUT_OUT"),
    ):
        inset = (1 - overlap**0.5) / 2
        box = (
            round(400 * inset),
            round(300 * inset),
            round(400 * (1 - inset)),
            round(300 * (1 - inset)),
        )
        back = back_image(_painted((RED, box)), _PaintedCards({RED: 0.9}))
        assert back.source.name == expected, overlap


def test_a_card_is_cut_out_from_the_score_threshold_and_only_without_a_rival() -> None:
    card, apart, overlapping = (40, 40, 103, 128), (250, 150, 313, 238), (60, 60, 123, 148)
    image = _painted((RED, card))
    sure = back_image(image, _PaintedCards({RED: CARD_FOUND_SCORE_MIN}))
    assert sure.source is ReferenceSource.CUT_OUT and sure.quad is not None
    assert np.array_equal(sure.quad, _quad(*card))
    unsure = back_image(image, _PaintedCards({RED: CARD_FOUND_SCORE_MIN - 0.01}))
    assert unsure.source is ReferenceSource.UNSURE and "no card" in unsure.unsure_why
    near = CARD_FOUND_SCORE_MIN + RIVAL_SCORE_MARGIN
    two = _painted((RED, card), (GREEN, apart))
    rival = back_image(two, _PaintedCards({RED: near + 0.01, GREEN: CARD_FOUND_SCORE_MIN + 0.02}))
    assert rival.source is ReferenceSource.UNSURE and "several" in rival.unsure_why
    weaker = back_image(two, _PaintedCards({RED: near + 0.01, GREEN: CARD_FOUND_SCORE_MIN - 0.01}))
    assert weaker.source is ReferenceSource.CUT_OUT
    # A box overlapping the card is another reading of the same card, not a rival.
    again = _painted((GREEN, overlapping), (RED, card))
    back = back_image(again, _PaintedCards({RED: near + 0.01, GREEN: near}))
    assert back.source is ReferenceSource.CUT_OUT and back.quad is not None
    assert np.array_equal(back.quad, _quad(*card))


def test_halves_of_a_card_found_besides_it_are_its_parts_not_rival_cards() -> None:
    # A back of big checks: on the ground each half of the card is found, in the image the
    # whole card; the halves lie apart from each other and score alike.
    image = np.full((300, 400, 3), 90, np.uint8)
    whole = _quad(100, 60, 170, 160)
    halves = [_quad(100, 60, 170, 112), _quad(100, 108, 170, 160)]

    def found(whole_score: float) -> BackImage:
        on_ground = [RawCard(halves[0], False, 0.83), RawCard(halves[1], False, 0.81)]
        detector = _ByView([RawCard(whole, False, whole_score)], on_ground)
        return back_image(image, detector)

    back = found(0.82)
    assert back.source is ReferenceSource.CUT_OUT and back.quad is not None
    assert np.array_equal(back.quad, whole)
    # Scored far under its parts, the whole is no surer than they are.
    unsure = found(0.83 - RIVAL_SCORE_MARGIN - 0.01)
    assert unsure.source is ReferenceSource.UNSURE and "several" in unsure.unsure_why


def test_one_card_inside_a_larger_box_is_still_the_card_cut_out() -> None:
    # The box may be the card and its shadow: a part needs another part apart from it.
    image = np.full((300, 400, 3), 90, np.uint8)
    card, box = _quad(100, 60, 160, 145), _quad(90, 50, 180, 170)
    for box_score in (CARD_FOUND_SCORE_MIN - 0.01, 0.7):
        detector = _ByView([RawCard(box, False, box_score)], [RawCard(card, False, 0.78)])
        back = back_image(image, detector)
        assert back.source is ReferenceSource.CUT_OUT and back.quad is not None
        assert np.array_equal(back.quad, card)


@pytest.mark.parametrize("shape", [(300, 400), (400, 300)])
def test_each_view_counts_for_the_card_sizes_the_detector_learnt_there(
    shape: tuple[int, int],
) -> None:
    image = np.full((*shape, 3), 90, np.uint8)
    longest = max(shape)
    side = longest * IMAGE_VIEW_LENGTH_MAX
    small = _quad(10, 10, 10 + 0.7 * side, 10 + side)
    large = small * 1.2
    assert card_length(small) <= IMAGE_VIEW_LENGTH_MAX * longest < card_length(large)
    assert card_length(small) >= GROUND_VIEW_LENGTH_MIN * longest
    # A large card is taken from the ground even where the image's own view scores higher.
    in_image, on_ground = RawCard(large + 3, False, 0.95), RawCard(large, False, 0.8)
    back = back_image(image, _ByView([in_image], [on_ground], shape))
    assert back.quad is not None and np.allclose(back.quad, large, atol=0.01)
    tiny = small * (GROUND_VIEW_LENGTH_MIN * 0.9 / IMAGE_VIEW_LENGTH_MAX)
    in_image, on_ground = RawCard(small, False, 0.8), RawCard(tiny, False, 0.95)
    back = back_image(image, _ByView([in_image], [on_ground], shape))
    assert back.quad is not None and np.allclose(back.quad, small, atol=0.01)


@pytest.mark.parametrize("edge", ["left", "top", "right", "bottom"])
def test_a_card_running_off_the_photo_is_not_cut_out(edge: str) -> None:
    image = np.full((300, 400, 3), 90, np.uint8)
    allowed = OFF_PHOTO_SHARE_MAX * 88  # of a card 88 px long
    centred = np.roll(_quad(168, 106, 231, 194), 1, axis=0)  # corners listed from another one
    for off, expected in ((allowed - 0.4, ReferenceSource.CUT_OUT), (allowed + 0.6, "unsure")):
        move = {
            "left": (-168 - off, 0),
            "top": (0, -106 - off),
            "right": (400 - 231 + off, 0),
            "bottom": (0, 300 - 194 + off),
        }[edge]
        card = centred + np.array(move, np.float32)
        back = back_image(image, _ByView([RawCard(card, False, 0.9)], []))
        if expected == "unsure":
            assert back.source is ReferenceSource.UNSURE and "off the photo" in back.unsure_why
        else:
            assert back.source is expected


def test_only_a_bgr_image_of_8_bits_is_taken() -> None:
    for image in (
        np.zeros((50, 40), np.uint8),
        np.zeros((50, 40, 4), np.uint8),
        np.zeros((50, 40, 3), np.uint16),
    ):
        with pytest.raises(ValueError, match="BGR, 8 bits"):
            back_image(image, _PaintedCards({}))


def test_a_large_photo_is_shrunk_by_area_before_the_card_is_cut_and_put_on_the_ground() -> None:
    # One-pixel stripes (in red) on a card 8 times the cut's length: sampled without averaging
    # they would alias into bands; averaged they are an even dark red.
    image = np.full((8 * CUT_LENGTH_PX + 400, 6 * CUT_LENGTH_PX + 400, 3), (255, 0, 0), np.uint8)
    left, top, bottom = 200, 200, 200 + 8 * CUT_LENGTH_PX
    right = left + round(8 * CUT_LENGTH_PX * 63 / 88)
    image[top:bottom, left:right] = 0
    image[top:bottom, left:right:2, 2] = 255
    detector = _PaintedCards({(0, 0, 128): 0.9})
    back = back_image(image, detector)
    assert back.source is ReferenceSource.CUT_OUT
    inside = back.image[5:-5, 5:-5].astype(int)
    assert np.abs(inside[:, :, 2] - 127).max() <= 3 and inside[:, :, :2].max() <= 3
    # The photo itself, and a ground no larger than the limit (not 9 times the photo).
    assert sorted(detector.sides_seen) == [GROUND_LONG_SIDE_PX, max(image.shape[:2])]


def test_a_table_marker_in_the_photo_is_not_taken_for_the_card() -> None:
    image = _painted((RED, (40, 40, 103, 128)))
    side, left, top = 70, 250, 120
    rim = round(side * 7 / 55)
    image[top - rim : top + side + rim, left - rim : left + side + rim] = 250
    dictionary = cv2.aruco.getPredefinedDictionary(TABLE_MARKER_DICTIONARY)
    image[top : top + side, left : left + side] = cv2.aruco.generateImageMarker(
        dictionary, 0, side
    )[..., None]
    # The detector takes the marker (its black pixels) for a card, surer than of the card.
    back = back_image(image, _PaintedCards({RED: 0.7, (0, 0, 0): 0.9}))
    assert back.source is ReferenceSource.CUT_OUT and back.quad is not None
    assert np.array_equal(back.quad, _quad(40, 40, 103, 128))
