"""Index corners read on their own merged into the cards found whole, and one name kept per
card: a card is often found twice, whole and by its index corner."""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from vision.detections import CardDetection
from vision.geometry import card_window, intersection_over_union, overlap_of_smaller, uncovered

SAME_WINDOW_IOU = 0.6
"""An index corner found on its own is a whole card's own corner when their index windows
overlap this much: the windows of cards fanned 15 mm apart overlap far less (about 0.25).
Chosen on the val renders and edje train photos (0.3-0.9): 0.5 named 311 of 392 val cards
with 29 wrong names, 0.6 313 with 29 (0.7: 314 with 31), edje train 496 of 527 with both."""
OPPOSITE_CORNER_SPAN = (0.8, 1.6)
"""An index corner read on its own that is not a face-up card's own window, but names it, is
that card's opposite corner where it lies, in the card's outline, between these shares of the
outline's width and of its length from the card's index corner (and turned half round): the
card then spans both corners. An outline implied from an index window is a poker card's, and
the detector's outline of a card can be a part of it; designs differ (a bridge card is 10%
narrower; an index printed a fifth larger implies a card a fifth too large, 0.83 of it), so
the two corners of one card in a real photo were taken for two cards (edje photos: a QD and a
9H listed twice, overlapping 0.46; the QD's corner lay at 1.31 and 1.13 of the detector's
outline, which held part of the card). A second deck's card of that name, turned half round
with its index there, overlaps the first by (1 - |share - 1|) squared: 0.64 at 0.8 or 1.2,
0.16 at 1.6; below 0.8 (a card half over the other) it is never taken for it, and above 1.2
it is, a rare lie (two decks' same card turned opposite ways, apart along the diagonal)
traded for a card larger than implied listed once. Spanning a detector's outline to a corner
inside it (tuning val renders, seeds 9, 10 and 12, and edje train photos: one wrong name
fewer, otherwise alike) measures the card better than keeping it."""
OPPOSITE_TURN_COS_MAX = -0.8
"""Two index corners of one card face opposite ways: the cosine of the angle between their
outlines' first edges is at most this (the edges of cards fanned 15 mm apart run alike)."""
DUPLICATE_OVERLAP = 0.5
"""Two face-up detections with the same name overlapping this much are one card (chosen when
first written, not tuned: two cards of one name overlap so only in a two-deck game)."""
FACE_DOWN_UNDER_FACES_MAX = 0.8
"""A card found face down that lies at least this share within face-up cards found is a
stray report (the card detector takes a hand fan's middle, or a face-up card found again,
for a back) and is dropped. On 120 tuning val renders (seeds 7, 9 and 10; 809 face-down cards
found, 102 reports of no face-down card: on no card, on a face-up one, or twice) 0.8 dropped 15
such reports and no face-down card found; 0.7 dropped 19, and 1 card found."""


def without_duplicates(cards: list[CardDetection]) -> list[CardDetection]:
    kept: list[CardDetection] = []
    for card in sorted(cards, key=lambda c: -c.confidence):
        twin = next(
            (
                k
                for k in kept
                if card.card
                and k.card == card.card
                and overlap_of_smaller(k.quad, card.quad) > DUPLICATE_OVERLAP
            ),
            None,
        )
        if twin is None:
            kept.append(card)
    return kept


def without_backs_over_faces(cards: list[CardDetection]) -> list[CardDetection]:
    """The `cards` less those found face down lying mostly within face-up cards found
    (`FACE_DOWN_UNDER_FACES_MAX`)."""
    faces = [card.quad for card in cards if card.face_up]
    return [
        card
        for card in cards
        if card.face_up or 1 - float(uncovered(card.quad, faces).mean()) < FACE_DOWN_UNDER_FACES_MAX
    ]


def with_index_readings(
    cards: list[CardDetection],
    readings: list[tuple[CardDetection, np.ndarray]],
    window_mm: tuple[float, float],
) -> list[CardDetection]:
    """`cards` with index corners read on their own, each a (reading, window quad): a face-up
    card whose own index window it is (a card found whole, or by an earlier reading) takes
    the more confident of the two names; a card of that name whose opposite corner it is
    (`OPPOSITE_CORNER_SPAN`) spans both corners; otherwise the reading is a card of its own,
    its outline implied by the window."""
    cards = list(cards)
    own = [own_windows(card, window_mm) for card in cards]
    for reading, window in readings:
        read_window = IndexWindow.of(window)
        same = next(
            (
                (number, corner)
                for number, windows in enumerate(own)
                for corner, own_window in enumerate(windows)
                if own_window.overlaps(read_window, SAME_WINDOW_IOU)
            ),
            None,
        )
        if same is None:
            spanned = _spanning_opposite_corner(cards, reading)
            if spanned is None:
                cards.append(reading)
                own.append(own_windows(reading, window_mm))
            else:
                number, card = spanned
                cards[number] = card
                own[number] = own_windows(card, window_mm)
            continue
        number, corner = same
        card = cards[number]
        if card.card is None or reading.card_score > card.card_score:
            # The read corner comes first, so the quad says where the index is.
            quad = np.roll(card.quad, -2 * corner, axis=0)
            cards[number] = replace(
                card, quad=quad, card=reading.card, card_score=reading.card_score
            )
            own[number] = (own[number][corner], own[number][1 - corner])
    return cards


def _spanning_opposite_corner(
    cards: list[CardDetection], reading: CardDetection
) -> tuple[int, CardDetection] | None:
    """The face-up card of `cards` named as `reading` whose opposite corner `reading` is (its
    quad's first corner is the card's named index corner), with its outline spanning both
    corners and the more confident name's corner first (its detection score kept); None if
    there is none."""
    corner = reading.quad[0]
    for number, card in enumerate(cards):
        if not (card.face_up and card.card == reading.card):
            continue
        first, across, _, down = card.quad
        width, length = across - first, down - first
        turned = reading.quad[1] - corner
        cosine = float(np.dot(width, turned)) / max(
            float(np.linalg.norm(width) * np.linalg.norm(turned)), 1e-9
        )
        if cosine > OPPOSITE_TURN_COS_MAX:
            continue
        try:
            along_width, along_length = np.linalg.solve(
                np.column_stack([width, length]), corner - first
            )
        except np.linalg.LinAlgError:  # a degenerate outline
            continue
        low, high = OPPOSITE_CORNER_SPAN
        if not (low <= along_width <= high and low <= along_length <= high):
            continue
        across, down = along_width * width, along_length * length
        quad = np.array([first, first + across, first + across + down, first + down], np.float32)
        if reading.card_score > card.card_score:  # its corner first: the quad says where
            quad = np.roll(quad, -2, axis=0)
            return number, replace(card, quad=quad, card_score=reading.card_score)
        return number, replace(card, quad=quad)
    return None


class IndexWindow(NamedTuple):
    """An index window's image quad and its bounding box (left, top, right, bottom): windows
    whose boxes do not meet cannot overlap, and most pairs are told apart so, cheaply."""

    quad: np.ndarray
    box: tuple[float, float, float, float]

    @classmethod
    def of(cls, quad: np.ndarray) -> IndexWindow:
        (left, top), (right, bottom) = quad.min(axis=0).tolist(), quad.max(axis=0).tolist()
        return cls(quad, (left, top, right, bottom))

    def overlaps(self, other: IndexWindow, iou_min: float) -> bool:
        """Whether the two windows' intersection over union exceeds `iou_min`."""
        left, top, right, bottom = self.box
        other_left, other_top, other_right, other_bottom = other.box
        if other_right < left or right < other_left or other_bottom < top or bottom < other_top:
            return False
        return intersection_over_union(self.quad, other.quad) > iou_min


def own_windows(card: CardDetection, window_mm: tuple[float, float]) -> tuple[IndexWindow, ...]:
    """A face-up card's two index windows (none for a face-down card), in its quad's order."""
    if not card.face_up:
        return ()
    return tuple(IndexWindow.of(card_window(card.quad, corner, window_mm)) for corner in (0, 1))
