"""Photos taken close, a card filling most of the frame: the card detector learnt cards up to
about a third of a rendered frame long (and up to two thirds in the edje photos), so it is
shown the photo shrunk into the middle of a frame of its own size, as if taken from further
away."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.detections import CardDetection
from vision.geometry import card_length, overlap_of_smaller
from vision.onnx_models import LETTERBOX_GREY, RawCard

CLOSE_UP_CARD_SHARE = 0.6
"""A photo in which a card found is at least this share of the photo's long side long is
looked at again from further away (`STEP_BACK`): the edje photos' cards, found well, are up to
about 0.6 of it (their labelled boxes up to 0.7)."""
STEP_BACK = 3.0
"""How many times smaller the photo is shown when looked at from further away. On 64 photos of
single train-deck cards filling 80-100% of the frame's height, turned up to 15 degrees (tuning
renders): 36 named at their own size, 57 from 2 times smaller, 56 from 2.5, 58 from 3, 57
from 4, with 2-3 wrong names each."""


CLOSE_UP_PIECES_MAX = 2
PIECE_SHARE_MIN = 0.2
"""A photo in which no card is named, and at most `CLOSE_UP_PIECES_MAX` are found or one is
at least `PIECE_SHARE_MIN` of its long side long, is looked at again from further away too: a
card too large is found in pieces, taken for backs. On the tuning renders of single train-deck
cards filling the frame, the photos where none was named held pieces 0.28-0.40 of the long side
long, or one or two small ones; twelve spreads of 10-60 backs (count spreads, tuning seeds)
held cards 0.08-0.09 long, none named: not looked at again."""


def taken_close(image: np.ndarray, found: list[CardDetection]) -> bool:
    """Whether a photo may hold cards too large for the detector: one found is at least
    `CLOSE_UP_CARD_SHARE` of it long, or none is named and the cards found look like pieces
    of one (`PIECE_SHARE_MIN`)."""
    long_side = max(image.shape[:2])
    longest = max((card_length(card.quad) for card in found), default=0.0)
    pieces = len(found) <= CLOSE_UP_PIECES_MAX or longest >= PIECE_SHARE_MIN * long_side
    return longest >= CLOSE_UP_CARD_SHARE * long_side or (named_count(found) == 0 and pieces)


def stepped_back(image: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The photo `STEP_BACK` times smaller in the middle of a grey frame of its own size, with
    the shrunk photo's top-left corner in that frame and the scale back to the photo."""
    height, width = image.shape[:2]
    small = cv2.resize(
        image,
        (max(1, round(width / STEP_BACK)), max(1, round(height / STEP_BACK))),
        interpolation=cv2.INTER_AREA,
    )
    frame = np.full_like(image, LETTERBOX_GREY)
    top, left = (height - small.shape[0]) // 2, (width - small.shape[1]) // 2
    frame[top : top + small.shape[0], left : left + small.shape[1]] = small
    return frame, np.array([left, top], np.float32), width / small.shape[1]


def in_photo(cards: list[RawCard], corner: np.ndarray, scale: float) -> list[RawCard]:
    """Cards found in a `stepped_back` frame, placed in the photo itself."""
    return [replace(card, quad=(card.quad - corner) * scale) for card in cards]


PIECE_WITHIN_MIN = 0.8
"""A card found from further away lying at least this share within a named card found there
is a piece of it (a close card's court picture or pips, found as a card of its own): no
card can be seen that lies under another whole."""


def without_pieces(found: list[CardDetection], size: tuple[int, int]) -> list[CardDetection]:
    """The cards found from further away in a photo of `size` (width, height), less the pieces
    of named cards (`PIECE_WITHIN_MIN`, of the part within the photo: a piece's outline is
    often drawn out beyond it)."""
    width, height = size
    photo = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    named = [card for card in found if card.card is not None]

    def piece(card: CardDetection) -> bool:
        area, shown = cv2.intersectConvexConvex(card.quad.astype(np.float32), photo)
        return area > 0 and any(
            other is not card
            and card_length(card.quad) < card_length(other.quad)
            and overlap_of_smaller(other.quad, shown.reshape(-1, 2)) >= PIECE_WITHIN_MIN
            for other in named
        )

    return [card for card in found if not piece(card)]


PIECES_MIN = 3
"""A photo in which no card is named and at least this many are found is looked at again from
further away too, and that reading kept where one card found there, at least
`PIECE_SHARE_MIN` of the photo's long side long, holds this many of the first reading's cards
(each at least `PIECE_WITHIN_MIN` within it): they were pieces of it. A back whose pattern is
a lattice, checks or dots, filling much of the photo, was found as 12-545 face-down cards,
from further away as the 1-2 cards it was (in one case, 5 and 2), each holding 3-278 of them;
on 18 tuning spreads of 10-60 backs (seed 2: unlike backs, pushed close, all published
designs) no card found from further away was that long. The second look costs a photo of
face-down cards only about as much again (0.09 s became 0.18 s on a 2-core laptop-class CPU)."""


def may_hold_pieces(found: list[CardDetection]) -> bool:
    """Whether the cards found may be pieces of cards too large for the detector: none is
    named and there are `PIECES_MIN` or more."""
    return named_count(found) == 0 and len(found) >= PIECES_MIN


def pieces_found(
    found: list[CardDetection], further: list[CardDetection], size: tuple[int, int]
) -> bool:
    """Whether the cards `found` in a photo of `size` (width, height), none named, were pieces
    of a card found `further` away (`PIECES_MIN`)."""
    if named_count(found) > 0:
        return False
    long_side = max(size)

    def within(whole: CardDetection) -> int:
        length = card_length(whole.quad)
        return sum(
            card_length(card.quad) < length
            and overlap_of_smaller(whole.quad, card.quad) >= PIECE_WITHIN_MIN
            for card in found
        )

    return any(
        within(card) >= PIECES_MIN
        for card in further
        if card_length(card.quad) >= PIECE_SHARE_MIN * long_side
    )


def named_count(found: list[CardDetection]) -> int:
    return sum(card.card is not None for card in found)
