"""Sliced detection: the card detector also runs on overlapping tiles of the photo.

The detector sees a photo shrunk to 416 px, where a card 90 px long in a 1280 px photo is 30 px:
the small end of what it was trained on, and the end where it misses cards and misplaces
corners. On tiles the same card is twice that size. Worth its cost (five detector runs instead
of one) where no one is waiting: the end-of-round count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from vision.geometry import overlap_of_smaller
from vision.onnx_models import RawCard

TILE_SHARE = 0.6
"""Each tile spans this share of the photo's width and height; a 2 x 2 grid then overlaps by
a fifth of the photo, more than a card, so every card lies whole inside some tile."""
TILE_EDGE_PX = 3.0
"""A detection this close to a tile's inner edge is cut by it; a neighbouring tile has it whole."""
SAME_CARD_OVERLAP = 0.6
"""Two detections whose quads cover this share of the smaller one are the same card (seen
in two overlapping tiles; chosen when first written, not tuned)."""


def detect_tiled(
    detector: Callable[[np.ndarray], list[RawCard]], image: np.ndarray
) -> list[RawCard]:
    """Cards found on the whole photo and on a 2 x 2 grid of overlapping tiles, merged."""
    height, width = image.shape[:2]
    tile_w, tile_h = round(width * TILE_SHARE), round(height * TILE_SHARE)
    found = list(detector(image))
    for top in (0, height - tile_h):
        for left in (0, width - tile_w):
            tile = image[top : top + tile_h, left : left + tile_w]
            inner = (left > 0, top > 0, left + tile_w < width, top + tile_h < height)
            for card in detector(tile):
                if _touches_inner_edge(card.quad, tile_w, tile_h, inner):
                    continue
                quad = (card.quad + np.array([left, top], np.float32)).astype(np.float32)
                found.append(replace(card, quad=quad))
    return _merged(found)


def _touches_inner_edge(
    quad: np.ndarray, width: int, height: int, inner: tuple[bool, bool, bool, bool]
) -> bool:
    (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
    left, top, right, bottom = inner
    return bool(
        (left and x0 < TILE_EDGE_PX)
        or (top and y0 < TILE_EDGE_PX)
        or (right and x1 > width - TILE_EDGE_PX)
        or (bottom and y1 > height - TILE_EDGE_PX)
    )


def _merged(cards: list[RawCard]) -> list[RawCard]:
    """The most confident of every group of detections of the same card (an index corner
    lies wholly inside its card, so it is only merged with index corners)."""
    kept: list[RawCard] = []
    # Each kept card's bounding box (x0, y0, x1, y1) and kind: a card is compared only with
    # those whose boxes meet its own, as a photo of a patterned cloth holds a thousand "cards".
    boxes = np.empty((len(cards), 4), np.float32)
    corners = np.empty(len(cards), bool)
    for card in sorted(cards, key=lambda c: -c.score):
        (x0, y0), (x1, y1) = card.quad.min(axis=0), card.quad.max(axis=0)
        placed = boxes[: len(kept)]
        meeting = np.flatnonzero(
            (corners[: len(kept)] == card.index_corner)
            & (placed[:, 0] <= x1)
            & (placed[:, 2] >= x0)
            & (placed[:, 1] <= y1)
            & (placed[:, 3] >= y0)
        )
        if all(overlap_of_smaller(card.quad, kept[k].quad) <= SAME_CARD_OVERLAP for k in meeting):
            boxes[len(kept)] = (x0, y0, x1, y1)
            corners[len(kept)] = card.index_corner
            kept.append(card)
    return kept
