"""Sliced detection with a stand-in detector: white rectangles on black, found by contours."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from vision.geometry import overlap_of_smaller
from vision.onnx_models import RawCard
from vision.tiles import (
    SAME_CARD_OVERLAP,
    TURNED_CARD_EXTENT,
    _merged,
    _merged_across_looks,
    detect_tiled,
    grid_for_size,
)


def contour_detector(image: np.ndarray) -> list[RawCard]:
    """Every white blob as a face-up card with its rotated rectangle as the quad; smaller
    blobs score higher, so that a piece of a card cut by a tile edge would win over the whole
    card if it were not dropped."""
    mask = (image[:, :, 0] > 127).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return [
        RawCard(
            cv2.boxPoints(cv2.minAreaRect(c)).astype(np.float32),
            True,
            1.0 - cv2.contourArea(c) / mask.size,
        )
        for c in contours
    ]


def spread() -> tuple[np.ndarray, list[tuple[int, int]]]:
    image = np.zeros((720, 1280, 3), np.uint8)
    # Cards spread so that some straddle each of the tiles' inner edges (tiles are 60% of the
    # photo: 512 and 768 px from the left, 288 and 432 px from the top).
    centres = [(150, 120), (640, 360), (760, 200), (1100, 600), (300, 560), (900, 300)]
    centres += [(512, 650), (200, 432)]
    for x, y in centres:
        box = cv2.boxPoints(((x, y), (60, 84), 20.0)).astype(np.int32)
        cv2.fillPoly(image, [box], (255, 255, 255))
    return image, centres


def assert_found_once_whole(found: list[RawCard], centres: list[tuple[int, int]]) -> None:
    assert len(found) == len(centres)
    found_centres = sorted(tuple(np.round(c.quad.mean(axis=0))) for c in found)
    for (x, y), (fx, fy) in zip(sorted(centres), found_centres, strict=True):
        assert abs(x - fx) <= 1 and abs(y - fy) <= 1
    assert all(abs(cv2.contourArea(c.quad) - 60 * 84) < 200 for c in found)


def test_each_card_is_found_once_with_its_whole_outline() -> None:
    image, centres = spread()
    assert_found_once_whole(detect_tiled(contour_detector, image), centres)


def test_tiles_alone_drop_the_pieces_their_inner_edges_cut() -> None:
    image, centres = spread()

    def tiles_only(view: np.ndarray) -> list[RawCard]:
        return [] if view.shape == image.shape else contour_detector(view)

    assert_found_once_whole(detect_tiled(tiles_only, image), centres)


def test_an_index_corner_inside_its_card_is_kept_beside_it() -> None:
    image, centres = spread()

    def with_corners(view: np.ndarray) -> list[RawCard]:
        cards = contour_detector(view)
        # Scored above its card, as a crisp index often is.
        corners = [
            RawCard(c.quad * 0.3 + c.quad[0] * 0.7, True, c.score + 0.01, True) for c in cards
        ]
        return cards + corners

    found = detect_tiled(with_corners, image)
    assert_found_once_whole([c for c in found if not c.index_corner], centres)
    assert sum(c.index_corner for c in found) == len(centres)


def test_merging_keeps_the_surest_of_each_group_of_detections_of_one_card() -> None:
    """Kept cards of one kind overlap each other at most `SAME_CARD_OVERLAP`; each one left
    out overlaps a surer kept card of its kind more than that."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        cards = [
            RawCard(
                cv2.boxPoints(
                    (tuple(rng.uniform(0, 400, 2)), (width, 1.4 * width), rng.uniform(0, 180))
                ).astype(np.float32),
                True,
                float(rng.uniform()),
                bool(rng.integers(2)),
            )
            for width in rng.uniform(20, 120, rng.integers(0, 40))
        ]
        kept = _merged(cards)
        kept_ids = {id(card) for card in kept}

        def same_card(card: RawCard, other: RawCard) -> bool:
            return (
                other.index_corner == card.index_corner
                and overlap_of_smaller(card.quad, other.quad) > SAME_CARD_OVERLAP
            )

        for n, card in enumerate(kept):
            assert not any(same_card(card, other) for other in kept[:n])
        for card in cards:
            if id(card) not in kept_ids:
                assert any(same_card(card, k) and k.score >= card.score for k in kept)


def test_a_large_photo_is_cut_in_tiles_of_the_size_the_pipeline_knows() -> None:
    assert grid_for_size(1920, 1080, 185) is None  # at most 1.5 times the 1280 px tuned on
    # Overlapping by a quarter of a tile at least: 2240 px in two tiles, 2241 in three.
    assert grid_for_size(2240, 1000, 100)[:2] == (2, 1)  # type: ignore[index]
    assert grid_for_size(2241, 1000, 100)[:2] == (3, 1)  # type: ignore[index]
    # A 24-megapixel photo: cards up to 577 px are the tiles' to find; overlapping by 512 px
    # (at most 40% of a tile), the tiles hold them whole up to 423 px turned any way.
    grid = grid_for_size(6000, 4000, 577)
    assert grid is not None and grid[:4] == (8, 5, 1280, 1280)
    assert grid.card_px_max == pytest.approx(512 / TURNED_CARD_EXTENT)
    panorama = grid_for_size(16000, 1000, 1538)
    assert panorama is not None and panorama[:4] == (21, 1, 1280, 1000)
    origins = panorama.origins(16000, 1000)
    lefts = [left for left, _ in origins]
    assert lefts[0] == 0 and lefts[-1] == 16000 - 1280 and {top for _, top in origins} == {0}
    assert all(1280 - (b - a) >= 512 for a, b in itertools.pairwise(lefts))
    # A card as long as the grid holds lies whole in some tile, wherever it lies, turned 45°.
    extent = grid.card_px_max * TURNED_CARD_EXTENT
    xs = [left for left, _ in grid.origins(6000, 4000)]
    for start in range(0, 6000 - int(extent), 7):
        assert any(x <= start and start + extent <= x + 1280 for x in xs)


def test_cards_of_a_large_photo_are_merged_across_looks_only() -> None:
    """Two detections of one look both stay (the detector kept both: a fan's neighbours); the
    same card in two tiles is kept once, the surer; the whole photo's coarse small card only
    where no tile found one."""

    def card(x: float, score: float, width: float = 60) -> RawCard:
        quad = np.array([[x, 0], [x + width, 0], [x + width, 90], [x, 90]], np.float32)
        return RawCard(quad, True, score)

    fan = [card(0, 0.9), card(10, 0.8)]  # IoU 0.71: one look's two cards, both kept
    twice = [card(300, 0.7), card(302, 0.95)]  # one card, seen by two tiles
    large = card(1000, 0.5, width=900)
    coarse = [card(4, 0.99), card(600, 0.6)]  # over the fan's card; where no tile found any

    def small(raw: RawCard) -> bool:
        return bool(np.ptp(raw.quad[:, 0]) < 500)

    kept = _merged_across_looks([large, *coarse], [[*fan, twice[0]], [twice[1]]], small)
    assert [float(raw.quad[0, 0]) for raw in kept] == [1000, 302, 0, 10, 600]
