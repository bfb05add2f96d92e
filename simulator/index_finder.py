"""Find where a deck design prints its corner indices, so labels fit each design.

Designs differ: most print rank + suit at the top-left and bottom-right, some at all four
corners, some (kde-oxygen) the rank top-right and the suit bottom-left. Within each corner
region, the pixels that change between the Ace and the 2 and 3 of a suit are the rank glyph
(their pips sit in the middle column, outside the corner regions); the pixels that change
between the Aces of different suits are the suit glyph. A corner holding a rank glyph is an
index; its box covers the rank and any suit glyph in that corner.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

CORNER_REGION = (0.26, 0.32)
"""Width and height, as fractions of the card, searched for an index in each corner."""
INK_DIFFERENCE = 48
"""Grey-level change that counts as a glyph difference between two cards."""
MIN_RANK_INK = 0.01
"""Share of a corner region the rank glyph must cover for the corner to count as an index."""
BOX_PADDING = 0.012
"""Padding around the found glyphs, as a fraction of the card width/height."""


def _grey_on_white(face: np.ndarray) -> np.ndarray:
    """Composite onto white (transparent margins must not count as ink), then grey."""
    alpha = face[..., 3:].astype(np.float32) / 255.0
    rgb = face[..., :3].astype(np.float32) * alpha + 255.0 * (1.0 - alpha)
    return cv2.cvtColor(rgb.astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.int16)


def _changed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    diff = np.abs(a - b) > INK_DIFFERENCE
    return cv2.dilate(diff.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)


def _corner_glyphs(ink: np.ndarray, right: bool, bottom: bool) -> np.ndarray:
    """Ink blobs of a corner region that do not reach its inner edges (pips and art do)."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    height, width = ink.shape
    keep = np.zeros(count, bool)
    for label in range(1, count):
        x, y, w, h = stats[label, :4]
        touches_inner_x = x == 0 if right else x + w >= width
        touches_inner_y = y == 0 if bottom else y + h >= height
        keep[label] = not (touches_inner_x or touches_inner_y)
    return keep[labels]


def _overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def find_index_boxes(
    faces: Mapping[str, np.ndarray],
) -> tuple[tuple[float, float, float, float], ...] | None:
    """Index boxes (x0, y0, x1, y1 as card fractions), or None when nothing clear was found."""
    spades = [_grey_on_white(faces[card]) for card in ("AS", "2S", "3S")]
    aces = [_grey_on_white(faces[card]) for card in ("AS", "AH", "AD", "AC")]
    rank_ink = _changed(spades[0], spades[1]) | _changed(spades[0], spades[2])
    suit_ink = np.zeros_like(rank_ink)
    for other in aces[1:]:
        suit_ink |= _changed(aces[0], other)
    height, width = rank_ink.shape
    region_w, region_h = round(CORNER_REGION[0] * width), round(CORNER_REGION[1] * height)
    boxes = []
    for x_start in (0, width - region_w):
        for y_start in (0, height - region_h):
            window = (slice(y_start, y_start + region_h), slice(x_start, x_start + region_w))
            glyphs = _corner_glyphs(rank_ink[window] | suit_ink[window], x_start > 0, y_start > 0)
            if (rank_ink[window] & glyphs).mean() < MIN_RANK_INK:
                continue
            ys, xs = np.nonzero(glyphs)
            x0 = (x_start + xs.min()) / width - BOX_PADDING
            y0 = (y_start + ys.min()) / height - BOX_PADDING
            x1 = (x_start + xs.max() + 1) / width + BOX_PADDING
            y1 = (y_start + ys.max() + 1) / height + BOX_PADDING
            boxes.append(
                (max(float(x0), 0.0), max(float(y0), 0.0), min(float(x1), 1.0), min(float(y1), 1.0))
            )
    if not boxes:
        return None
    # Cards print indices with 180-degree symmetry; a glyph missed in one corner (art nearby)
    # is restored from its partner.
    for x0, y0, x1, y1 in list(boxes):
        partner = (1.0 - x1, 1.0 - y1, 1.0 - x0, 1.0 - y0)
        if not any(_overlaps(partner, other) for other in boxes):
            boxes.append(partner)
    # Order: top-left first, then by position, so "corner" numbers are stable per design.
    boxes.sort(key=lambda b: (b[1] > 0.5, b[0] > 0.5))
    return tuple(boxes)
