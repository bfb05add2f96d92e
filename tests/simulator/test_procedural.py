"""Procedural designs: deterministic, complete, and their index boxes hold their indices."""

from __future__ import annotations

import numpy as np

from simulator.faces import ALL_CARDS, FACE_SIZE
from simulator.procedural import procedural_design


def ink(face: np.ndarray) -> np.ndarray:
    """Pixels clearly darker or more saturated than card stock."""
    bgr = face[:, :, :3].astype(int)
    return (bgr.min(axis=2) < 170) & (face[:, :, 3] > 0)


def test_the_same_seed_draws_the_same_design() -> None:
    first, again = procedural_design(7), procedural_design(7)
    assert first.index_boxes == again.index_boxes
    assert all(np.array_equal(first.faces[c], again.faces[c]) for c in ("4D", "QS", "10H"))
    assert not np.array_equal(first.faces["4D"], procedural_design(8).faces["4D"])


def test_every_face_is_drawn_at_face_size() -> None:
    design = procedural_design(3)
    assert sorted(design.faces) == sorted(ALL_CARDS)
    assert {face.shape for face in design.faces.values()} == {(FACE_SIZE[1], FACE_SIZE[0], 4)}


def test_index_boxes_hold_ink_at_both_corners_and_the_edge_strip_beyond_is_bare() -> None:
    for seed in range(12):
        design = procedural_design(seed)
        width, height = FACE_SIZE
        for card in ("AS", "7H", "10D", "KC"):
            mask = ink(design.faces[card])
            for x0, y0, x1, y1 in design.index_boxes:
                box = mask[
                    round(y0 * height) : round(y1 * height), round(x0 * width) : round(x1 * width)
                ]
                assert box.mean() > 0.04, (seed, card)
            x1, y1 = design.index_boxes[0][2:]
            # Along the left edge, below the index, only pips' margins: no index ink there.
            strip = mask[round(y1 * height) + 4 : round(0.45 * height), : round(0.04 * width)]
            assert strip.mean() < 0.01, (seed, card)


def test_some_designs_paint_four_suit_colours() -> None:
    def colours(seed: int) -> int:
        design = procedural_design(seed)
        inks = set()
        for card in ("AS", "AH", "AD", "AC"):
            face = design.faces[card]
            inked = face[:, :, :3][ink(face)]
            inks.add(tuple(np.median(inked, axis=0).astype(int) // 40))
        return len(inks)

    counts = [colours(seed) for seed in range(16)]
    assert 2 in counts and 4 in counts
