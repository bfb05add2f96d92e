"""Sliced detection: the card detector also runs on overlapping tiles of the photo.

The detector sees a photo shrunk to 416 px, where a card 90 px long in a 1280 px photo is 30 px:
the small end of what it was trained on, and the end where it misses cards and misplaces
corners. On tiles the same card is twice that size. Worth its cost (five detector runs instead
of one) where no one is waiting: the end-of-round count. A photo far larger than the detector's
view (a 24-megapixel photo of a whole table, a panorama) is looked at in as many tiles as keep
its cards at the size a 1280 px photo shows them (`grid_for_size`), or they would be a few
pixels long to the detector.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from vision.geometry import intersection_over_union, overlap_of_smaller
from vision.onnx_models import RawCard

TILE_SHARE = 0.6
"""Each tile of the 2 x 2 grid (`--tiled`, the count) spans this share of the photo's width and
height; the grid then overlaps by a fifth of the photo, more than a card, so every card lies
whole inside some tile."""
TILE_EDGE_PX = 3.0
"""A detection this close to a tile's inner edge is cut by it; a neighbouring tile has it whole."""
SAME_CARD_OVERLAP = 0.6
"""Two detections whose quads cover this share of the smaller one are the same card (seen
in two overlapping tiles; chosen when first written, not tuned)."""
LARGE_PHOTO_PX = 1920
"""A photo longer than this (1.5 times the 1280 px the pipeline is tuned and timed on) is also
looked at in tiles (`grid_for_size`): at the detector's 416 px, a card 120 px long in it would
be under 26 px, where the detector misses most cards."""
LARGE_PHOTO_TILE_PX = 1280
"""The side of a large photo's tiles: the photo size the pipeline is tuned and timed on, so
that its cards look to the detector as they do in such a photo."""
LARGE_PHOTO_OVERLAP_SHARES = (0.25, 0.4)
"""The least and the most share of a large photo's tile that its neighbour overlaps: as much as
the longest card the tiles are for takes turned any way (`TURNED_CARD_EXTENT`), within these.
A 6000 x 4000 photo, whose cards the tiles are for up to 577 px long, is cut in 8 x 5 tiles
overlapping by 512 px, and so holds them whole up to 423 px (those longer are taken from the
whole photo, as they were before tiles)."""
TURNED_CARD_EXTENT = (88 + 63) / math.sqrt(2) / 88
"""How much wider than its length a card turned 45 degrees lies (88 x 63 mm): 1.21."""


class TileGrid(NamedTuple):
    """Tiles of `width` x `height` px, `columns` x `rows` of them spread evenly from the
    photo's left and top edges to its right and bottom ones."""

    columns: int
    rows: int
    width: int
    height: int
    card_px_max: float = math.inf
    """The longest card, turned any way, that lies whole in some tile wherever it lies."""

    def origins(self, photo_width: int, photo_height: int) -> list[tuple[int, int]]:
        """The top-left corner (x, y) of every tile, row by row."""
        xs = _spread(self.columns, photo_width - self.width)
        ys = _spread(self.rows, photo_height - self.height)
        return [(x, y) for y in ys for x in xs]


def _spread(count: int, room: int) -> list[int]:
    """`count` offsets evenly from 0 to `room` (0 alone for one)."""
    return [0] if count == 1 else [round(i * room / (count - 1)) for i in range(count)]


def two_by_two(width: int, height: int) -> TileGrid:
    """The 2 x 2 grid of tiles `TILE_SHARE` of the photo each (`--tiled`, the count)."""
    return TileGrid(2, 2, round(width * TILE_SHARE), round(height * TILE_SHARE))


def grid_for_size(width: int, height: int, card_px: float) -> TileGrid | None:
    """Tiles for a photo longer than `LARGE_PHOTO_PX`, each at most `LARGE_PHOTO_TILE_PX` a
    side, overlapping so that cards up to `card_px` long lie whole in one
    (`LARGE_PHOTO_OVERLAP_SHARES` allowing); None for a smaller photo."""
    if max(width, height) <= LARGE_PHOTO_PX:
        return None
    least, most = (LARGE_PHOTO_TILE_PX * share for share in LARGE_PHOTO_OVERLAP_SHARES)
    overlap = min(max(card_px * TURNED_CARD_EXTENT, least), most)
    step = LARGE_PHOTO_TILE_PX - overlap

    def count(side: int) -> int:
        return 1 + max(0, math.ceil((side - LARGE_PHOTO_TILE_PX) / step))

    return TileGrid(
        count(width),
        count(height),
        min(width, LARGE_PHOTO_TILE_PX),
        min(height, LARGE_PHOTO_TILE_PX),
        overlap / TURNED_CARD_EXTENT,
    )


def detect_tiled(
    detector: Callable[[np.ndarray], list[RawCard]],
    image: np.ndarray,
    grid: TileGrid | None = None,
    from_tiles: Callable[[RawCard], bool] | None = None,
) -> list[RawCard]:
    """Cards found on the whole photo and on a grid of overlapping tiles (default
    `two_by_two`), merged. With `from_tiles` (a large photo's grid), a tile adds only the
    cards it says (photo pixels), and only detections of two looks are merged
    (`_merged_across_looks`), as each look's own are the detector's decision."""
    height, width = image.shape[:2]
    grid = grid or two_by_two(width, height)
    tile_w, tile_h = grid.width, grid.height
    looks = [list(detector(image))]
    for left, top in grid.origins(width, height):
        tile = image[top : top + tile_h, left : left + tile_w]
        inner = (left > 0, top > 0, left + tile_w < width, top + tile_h < height)
        seen = []
        for card in detector(tile):
            if _touches_inner_edge(card.quad, tile_w, tile_h, inner):
                continue
            quad = (card.quad + np.array([left, top], np.float32)).astype(np.float32)
            placed = replace(card, quad=quad)
            if from_tiles is None or from_tiles(placed):
                seen.append(placed)
        looks.append(seen)
    if from_tiles is None:
        return _merged([card for look in looks for card in look])
    return _merged_across_looks(looks[0], looks[1:], from_tiles)


SAME_CARD_IOU = 0.6
"""Two detections of two tiles whose quads overlap this much (intersection over union) are
one card seen twice. Fanned neighbours overlap as much, but a fan found in one tile is found
there whole, and that tile's detections are kept."""


UNSEEN_BY_TILES_OVERLAP = 0.25
"""A large photo's card too small for the whole photo's view is kept from that view only where
it covers at most this share of every card kept (of the smaller one): where the tiles found
nothing. Over a tile's card, it is the coarse view's double of it, or a box across two cards
of a spread (one a test table gave, over two face-down cards the tiles had found)."""


def _merged_across_looks(
    whole: list[RawCard], tiles: list[list[RawCard]], small: Callable[[RawCard], bool]
) -> list[RawCard]:
    """A large photo's cards: those the whole photo shows large enough (none `small`) as found
    there; then the tiles' (each `small`), the most confident of every card two tiles saw,
    both of two of one tile (the detector's own suppression kept both: a fan's neighbours);
    then the whole photo's small ones where no card so far lies (its view of them is coarse:
    a tile's outline of the same card overlaps it by as little as half)."""
    kept = _Kept(len(whole) + sum(map(len, tiles)))
    for card in whole:
        if not small(card):
            kept.add(card, -1)
    ranked = sorted(
        ((card, number) for number, look in enumerate(tiles) for card in look),
        key=lambda pair: -pair[0].score,
    )
    for card, number in ranked:
        if all(
            kept.looks[k] == number
            or intersection_over_union(card.quad, kept.cards[k].quad) <= SAME_CARD_IOU
            for k in kept.meeting(card)
        ):
            kept.add(card, number)
    before_gaps = len(kept.cards)
    for card in whole:
        if small(card) and all(
            overlap_of_smaller(card.quad, kept.cards[k].quad) <= UNSEEN_BY_TILES_OVERLAP
            for k in kept.meeting(card, before_gaps)
        ):
            kept.add(card, -1)
    return kept.cards


class _Kept:
    """The detections kept so far, with the look each came from (-1: the whole photo) and
    their bounding boxes, so that a new one is compared only with those its box meets (a
    patterned cloth gives a thousand)."""

    def __init__(self, capacity: int) -> None:
        self.cards: list[RawCard] = []
        self.looks: list[int] = []
        self._boxes = np.empty((capacity, 4), np.float32)  # x0, y0, x1, y1
        self._corners = np.empty(capacity, bool)

    def add(self, card: RawCard, look: int) -> None:
        (x0, y0), (x1, y1) = card.quad.min(axis=0), card.quad.max(axis=0)
        self._boxes[len(self.cards)] = (x0, y0, x1, y1)
        self._corners[len(self.cards)] = card.index_corner
        self.cards.append(card)
        self.looks.append(look)

    def meeting(self, card: RawCard, among: int | None = None) -> list[int]:
        """The kept detections (the first `among`, or all) of the same kind as `card` (a card
        or an index corner) whose boxes meet its own."""
        count = len(self.cards) if among is None else among
        boxes = self._boxes[:count]
        (x0, y0), (x1, y1) = card.quad.min(axis=0), card.quad.max(axis=0)
        return np.flatnonzero(
            (self._corners[:count] == card.index_corner)
            & (boxes[:, 0] <= x1)
            & (boxes[:, 2] >= x0)
            & (boxes[:, 1] <= y1)
            & (boxes[:, 3] >= y0)
        ).tolist()


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
    kept = _Kept(len(cards))
    for card in sorted(cards, key=lambda c: -c.score):
        if all(
            overlap_of_smaller(card.quad, kept.cards[k].quad) <= SAME_CARD_OVERLAP
            for k in kept.meeting(card)
        ):
            kept.add(card, 0)
    return kept.cards
