"""A back reference as a player gives it, made into one card's back seen square-on.

A reference may be the back's design file, a photo cropped to the card, or a photo of one card
lying on the table. The card detector tells which: an image that is itself one card is found
as a card filling it when it is shown small on a plain ground, and is used as it is; in any
other image the card found surely is cut out along its corners (a photo's table and its
perspective would otherwise be taken for the back's colour and pattern).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np

from vision.geometry import (
    RECTIFIED_SIZE,
    card_length,
    intersection_over_union,
    overlap_of_smaller,
    rectify,
)
from vision.markers import on_a_marker, table_markers
from vision.onnx_models import LETTERBOX_GREY, RawCard

GROUND_SCALE = 3
"""An image is shown in the middle of a plain ground this many times its width and height,
so that a card filling it looks as large to the detector as the cards it learnt on."""
GROUND_LONG_SIDE_PX = 1248
"""A larger image is shrunk before it is put on the ground, so that the ground is at most this
long (the detector sees it 416 px long anyway): a 12-megapixel photo on a ground nine times
its size would take 300 MB."""
CARD_ITSELF_IOU = 0.85
"""Overlap (intersection over union) with the whole image from which a card found on the
ground is the image itself: a design file or a crop to the card's edges."""
CARD_FOUND_SCORE_MIN = 0.6
"""Detector score from which a card found in a reference is cut out of it. On tuning photos
of one card on the table under harsh light (the 35 designs of decks/backs; `models/cards.md`,
session 27) every one with the card about 280 px long in a 1280x720 photo is cut to the card,
and 103 of 105 with it about 155 px long (0.55-0.8 tried there)."""
RIVAL_SCORE_MARGIN = 0.2
"""A card found is not cut out when another, apart from it, scores within this of it: the
reference holds several cards or is a pattern of card-like motifs (which the detector finds
at up to 0.74 in some design files), and which one is meant is unsure."""
RIVAL_IOU_MAX = 0.3
"""Detections overlapping less than this (intersection over union) are apart."""
PART_INSIDE_SHARE = 0.85
"""Cards found lying at least this share inside a larger card found (`PART_AREA_MAX`) that
scores from `CARD_FOUND_SCORE_MIN` and within `RIVAL_SCORE_MARGIN` of the best are parts of
that card, not other cards, where two or more of them lie apart: on a back of big checks the
detector may find each half of the card besides the whole, and the halves, apart from each
other, made the reference unsure."""
PART_AREA_MAX = 0.75
"""A part is at most this share of its card's area: the same card found twice, as in both
views, differs far less, and is left to the best score."""
IMAGE_VIEW_LENGTH_MAX = 0.31
"""A card found in the image itself counts only up to this share of the image's long side:
the detector learnt cards up to 300 px long in 960 px renders, and places a longer one poorly
(on tuning phone close-ups, the card 490 px long in a 960x1280 photo, 5 of 70 were cut to a
wrong box; taking such cards from the ground, 1)."""
GROUND_VIEW_LENGTH_MIN = 0.12
"""A card found on the ground counts only from this share of the image's long side: there the
image is a third as large, and a shorter card smaller than any the detector learnt (37 px in
960 px renders, 0.04)."""
OFF_PHOTO_SHARE_MAX = 0.05
"""A card found running further than this share of its length off the photo is not cut out:
its cut would repeat the photo's edge where the card is missing."""
CUT_LENGTH_PX = 2 * RECTIFIED_SIZE[1]
"""A photo is shrunk (by area) until the card found in it is about this long before it is
rectified: the warp samples without averaging, and a fine pattern would alias."""

Detector = Callable[[np.ndarray], list[RawCard]]
"""A card detector: the cards (and index corners, which are left out here) in a BGR image."""


class ReferenceSource(Enum):
    """What a reference was taken to be, and so what of it is the back."""

    AS_GIVEN = "the image shows one card"
    CUT_OUT = "the card found in the photo"
    UNSURE = "the image as given"


@dataclass(frozen=True)
class BackImage:
    """A reference's back, and how it was found."""

    image: np.ndarray
    """BGR, the back alone where it was found, else the image as given."""
    source: ReferenceSource
    score: float = 0.0
    """The detector's score of the best card it found (0 where none), cut out or not."""
    quad: np.ndarray | None = None
    """Where the card cut out lay in the image (4 x 2 pixels), if one was."""
    unsure_why: str = ""
    """Why an `UNSURE` reference is used as given, for the user."""


def back_image(image: np.ndarray, detector: Detector) -> BackImage:
    """The back that a reference image (BGR, 8 bits) shows, as `ReferenceSource` says."""
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"a back reference must be BGR, 8 bits; got {image.dtype} {image.shape}")
    height, width = image.shape[:2]
    whole = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    on_ground = _on_ground(image, detector)
    if any(intersection_over_union(quad, whole) >= CARD_ITSELF_IOU for quad, _ in on_ground):
        return BackImage(image, ReferenceSource.AS_GIVEN)
    # Each view only for the cards of the sizes the detector learnt there.
    longest = max(height, width)
    found = sorted(
        [
            (quad, score)
            for quad, score in on_ground
            if card_length(quad) >= GROUND_VIEW_LENGTH_MIN * longest
        ]
        + [
            (card.quad, card.score)
            for card in _cards(detector, image)
            if card_length(card.quad) <= IMAGE_VIEW_LENGTH_MAX * longest
        ],
        key=lambda card: -card[1],
    )
    markers = table_markers(image)  # a photo taken on the referee's table may show one
    found = [(quad, score) for quad, score in found if not on_a_marker(quad, markers)]
    found = _without_parts(found)
    quad, score = found[0] if found else (whole, 0.0)
    if score < CARD_FOUND_SCORE_MIN:
        why = "no card found clearly in it"
        return BackImage(image, ReferenceSource.UNSURE, score, unsure_why=why)
    if any(
        other_score >= score - RIVAL_SCORE_MARGIN
        and intersection_over_union(other, quad) < RIVAL_IOU_MAX
        for other, other_score in found[1:]
    ):
        why = "several cards found in it, none clearly the one meant"
        return BackImage(image, ReferenceSource.UNSURE, score, unsure_why=why)
    if _off_photo(quad, width, height) > OFF_PHOTO_SHARE_MAX * card_length(quad):
        why = "the card found in it runs off the photo"
        return BackImage(image, ReferenceSource.UNSURE, score, unsure_why=why)
    return BackImage(_cut_out(image, quad), ReferenceSource.CUT_OUT, score, quad)


def _without_parts(found: list[tuple[np.ndarray, float]]) -> list[tuple[np.ndarray, float]]:
    """The cards `found` (best first) less those that are parts of a larger card found surely
    (`PART_INSIDE_SHARE`): where it holds two or more lying apart, as a card's halves do. A
    single card inside a larger box may be the card meant, the box the card and its shadow."""
    if not found:
        return found
    floor = max(found[0][1] - RIVAL_SCORE_MARGIN, CARD_FOUND_SCORE_MIN)
    parts: set[int] = set()
    for whole, score in found:
        if score < floor:
            continue
        area = cv2.contourArea(whole.astype(np.float32))
        inside = [
            k
            for k, (quad, _) in enumerate(found)
            if cv2.contourArea(quad.astype(np.float32)) <= PART_AREA_MAX * area
            and overlap_of_smaller(quad, whole) >= PART_INSIDE_SHARE
        ]
        if any(
            intersection_over_union(found[i][0], found[j][0]) < RIVAL_IOU_MAX
            for i in inside
            for j in inside
            if i < j
        ):
            parts.update(inside)
    return [card for k, card in enumerate(found) if k not in parts]


def _on_ground(image: np.ndarray, detector: Detector) -> list[tuple[np.ndarray, float]]:
    """The cards found in `image` shown in the middle of a plain ground (`GROUND_SCALE`),
    each quad in the image's own pixels, and its score."""
    height, width = image.shape[:2]
    shrink = min(1.0, GROUND_LONG_SIDE_PX / (GROUND_SCALE * max(height, width)))
    if shrink < 1.0:
        small = (max(1, round(width * shrink)), max(1, round(height * shrink)))
        image = cv2.resize(image, small, interpolation=cv2.INTER_AREA)
    small_height, small_width = image.shape[:2]
    ground_height, ground_width = GROUND_SCALE * small_height, GROUND_SCALE * small_width
    ground = np.full((ground_height, ground_width, 3), LETTERBOX_GREY, np.uint8)
    left, top = (ground_width - small_width) // 2, (ground_height - small_height) // 2
    ground[top : top + small_height, left : left + small_width] = image
    offset = np.array([left, top], np.float32)
    to_image = np.array([width / small_width, height / small_height], np.float32)
    return [((card.quad - offset) * to_image, card.score) for card in _cards(detector, ground)]


def _cards(detector: Detector, image: np.ndarray) -> list[RawCard]:
    """Whole cards only: an index corner found alone is no back."""
    return [card for card in detector(image) if not card.index_corner]


def _off_photo(quad: np.ndarray, width: int, height: int) -> float:
    """How far (pixels) the quad's furthest corner lies outside a `width` x `height` photo."""
    beyond = np.maximum(-quad, quad - np.array([width, height], np.float32))
    return float(max(0.0, beyond.max()))


def _cut_out(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card at `quad`, rectified, from the photo shrunk first by area (`CUT_LENGTH_PX`)."""
    scale = min(1.0, CUT_LENGTH_PX / max(card_length(quad), 1.0))
    if scale < 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return rectify(image, quad * np.float32(scale))
