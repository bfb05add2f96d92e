"""Procedural designs: deterministic, complete, and their index boxes hold their indices.

The TrueType designs need the train extra's pillow and matplotlib; without them those cases
are skipped (CI installs the extra)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from simulator import typefaces
from simulator.faces import ALL_CARDS, FACE_SIZE, CardDesign
from simulator.procedural import procedural_design, truetype_design

needs_fonts = pytest.mark.skipif(not typefaces.available(), reason="needs pillow and matplotlib")
DESIGN_KINDS = [
    pytest.param(procedural_design, id="hershey"),
    pytest.param(truetype_design, id="truetype", marks=needs_fonts),
]


def ink(face: np.ndarray) -> np.ndarray:
    """Pixels clearly darker or more saturated than card stock."""
    bgr = face[:, :, :3].astype(int)
    return (bgr.min(axis=2) < 170) & (face[:, :, 3] > 0)


@pytest.mark.parametrize("design_of", DESIGN_KINDS)
def test_the_same_seed_draws_the_same_design(design_of: Callable[[int], CardDesign]) -> None:
    first, again = design_of(7), design_of(7)
    assert first.index_boxes == again.index_boxes
    assert all(np.array_equal(first.faces[c], again.faces[c]) for c in ("4D", "QS", "10H"))
    assert not np.array_equal(first.faces["4D"], design_of(8).faces["4D"])


@pytest.mark.parametrize("design_of", DESIGN_KINDS)
def test_every_face_is_drawn_at_face_size(design_of: Callable[[int], CardDesign]) -> None:
    design = design_of(3)
    assert sorted(design.faces) == sorted(ALL_CARDS)
    assert {face.shape for face in design.faces.values()} == {(FACE_SIZE[1], FACE_SIZE[0], 4)}


@pytest.mark.parametrize("design_of", DESIGN_KINDS)
def test_index_boxes_hold_ink_at_both_corners_and_the_edge_strip_beyond_is_bare(
    design_of: Callable[[int], CardDesign],
) -> None:
    for seed in range(12):
        design = design_of(seed)
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


@needs_fonts
def test_truetype_designs_draw_real_typefaces_in_their_own_names() -> None:
    designs = [truetype_design(seed) for seed in range(24)]
    assert all(design.name == f"truetype-{seed}" for seed, design in enumerate(designs))
    # Different faces draw the same rank differently: the 24 seeds' 2s are not all alike.
    twos = {design.faces["2S"][:, :, :3].tobytes() for design in designs}
    assert len(twos) == 24


@needs_fonts
def test_a_truetype_mask_fills_its_box_height_and_tells_digits_apart() -> None:
    two = typefaces.truetype_mask("2", 30, 40, "DejaVuSerif.ttf")
    eight = typefaces.truetype_mask("8", 30, 40, "DejaVuSerif.ttf")
    assert two.shape == eight.shape == (40, 30)
    rows_inked = np.nonzero(two.max(axis=1) > 0.5)[0]
    assert rows_inked[0] <= 1 and rows_inked[-1] >= 38
    assert np.abs(two - eight).mean() > 0.1
    bold = typefaces.truetype_mask("2", 30, 40, "DejaVuSerif.ttf", emboldening=0.03)
    assert bold.sum() > two.sum() * 1.15


@needs_fonts
def test_a_pixelated_mask_is_drawn_in_blocks() -> None:
    smooth = typefaces.truetype_mask("2", 60, 80, "DejaVuSans.ttf")
    blocky = typefaces.truetype_mask("2", 60, 80, "DejaVuSans.ttf", bitmap_size=12)
    assert blocky.shape == smooth.shape == (80, 60)

    def row_patterns(mask: np.ndarray) -> int:
        return len({row.tobytes() for row in mask > 0.5})

    # A 12 px font draws the digit about 9 px tall: enlarged, only that many rows differ.
    assert row_patterns(blocky) <= 12
    assert row_patterns(smooth) >= 30


@needs_fonts
def test_some_truetype_designs_print_in_pale_inks() -> None:
    def ink_darkness(seed: int) -> float:
        face = truetype_design(seed).faces["AS"]
        return float(np.median(face[:, :, :3][ink(face)].min(axis=1)))

    levels = [ink_darkness(seed) for seed in range(40)]
    assert min(levels) < 60
    assert max(levels) > 100
