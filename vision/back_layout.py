"""Where a back is darker or lighter: its interior shrunk to a few cells, compared cell by cell.

Histograms of colour and pattern forget where things lie. A back printed with a few big,
faint motifs (suit shapes a shade darker than the ground) and a plain back of its colour have
nearly the same histograms; they differ in where the darker patches are. The layout keeps
that, coarse enough that a card's corners found a little off, or a photo a little soft, do
not matter.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

LAYOUT_SIZE = (16, 22)
"""Cells across and down the card's interior (about 3 mm each): big motifs show, fine
patterns average into their colour (the histograms measure those)."""
LAYOUT_SMOOTHING_CELLS = 0.5
"""Gaussian smoothing (sigma, in cells) before the interior is shrunk to cells. Averaging each
cell alone leaves a fine periodic pattern (stripes 2 mm apart) as a moire that depends on
where the cells fall, and a card matched against a reference of its own stripes looked
patterned differently. Tuning count spreads, cards' backs named wrong without and with 0.5
cells: all 35 designs 17 -> 16, under harsh light 10 -> 2, against photographed references
9 -> 9, against references cut inside the edge 46 -> 48, unlike backs 0 -> 0; at 1 cell the
faint suits were smoothed away (all designs 27)."""
LAYOUT_MIN_CELLS_SHOWN = 6
"""Cells that two layouts must both show (in shares) to be compared: with fewer, taking off
the fitted plane leaves next to nothing, and a sliver of a card would weigh as much as a
whole one. Below it the layout says nothing and the histograms decide."""
LAYOUT_WEIGHT = 3.0
"""Weight of the layout distance (mean difference per cell and channel, in units of white) in a
back's distance. Tuned on count spreads of seeds other than the benchmark's (60 of each kind,
about 2,150 cards), with the histograms' noise floors (`vision/back_features.py`), before
`LAYOUT_SMOOTHING_CELLS` (which changed these figures a little, see there); cards whose back
was named wrong, before (histograms alone) and after: all 35 designs of decks/backs 121 ->
17 (12 of them between designs `BackMatcher.alike` reports, 5 grey for silver), unlike backs
1 -> 0, under harsh light 15 -> 10, against references photographed under harsh light 11 ->
9, against such references cut up to 6% inside the card's edge 106 -> 46 (40 spreads). At
weight 2 more plain backs were taken for their colour's designs with faint motifs, at 5 more
cards under harsh light were named wrong."""


def back_layout(
    interior: np.ndarray, white: np.ndarray, visible: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The layout of a back's interior (BGR, blurred) and the share of each cell the card
    shows (`visible`: a mask of the interior, nonzero where it shows; None for all of it).
    Each channel is on the scale of its own `white`, so that a lamp's colour cast does not
    count."""
    scaled = interior.astype(np.float32) * (255 / white.astype(np.float32))
    shows = np.ones(interior.shape[:2], np.float32)
    if visible is not None:
        shows = (visible > 0).astype(np.float32)
    # Smoothed over what the card shows alone (a normalised convolution), so that a card
    # lying over it does not bleed into the cells beside it.
    sigma = LAYOUT_SMOOTHING_CELLS * interior.shape[1] / LAYOUT_SIZE[0]
    smoothed = cv2.GaussianBlur(scaled * shows[..., None], (0, 0), sigma)
    weight = np.maximum(cv2.GaussianBlur(shows, (0, 0), sigma), 1e-3)
    layout = cv2.resize(smoothed / weight[..., None], LAYOUT_SIZE, interpolation=cv2.INTER_AREA)
    return layout, cv2.resize(shows, LAYOUT_SIZE, interpolation=cv2.INTER_AREA)


def layout_distance(
    first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]
) -> float:
    """Mean difference (in units of white) of two layouts over the cells both show, the
    second also turned round (a card lies either way up), the nearer of the two. A light
    falling off across the table shades a card from one side to the other: each layout's
    best-fitting plane is taken off before comparing, over those cells."""
    others = (second[0][None], second[1][None])
    return float(layout_distances(first, others)[0])


def layout_distances(
    first: tuple[np.ndarray, np.ndarray], others: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """`layout_distance` from `first` to each of `others` (their layouts stacked, m x rows x
    cells x channels, and their shares shown, m x rows x cells) at once: a count compares
    every card with every other."""
    layout, shown = first
    other_layouts, other_shown = others
    if not len(other_layouts):
        return np.zeros(0)
    nearest = np.full(len(other_layouts), np.inf)
    turned = (other_layouts[:, ::-1, ::-1], other_shown[:, ::-1, ::-1])
    for other, other_weights in ((other_layouts, other_shown), turned):
        weights = shown[None] * other_weights
        total = weights.sum(axis=(1, 2))
        mine = _flattened(np.broadcast_to(layout, other.shape), weights)
        difference = np.abs(mine - _flattened(other, weights)).mean(axis=3)
        distance = (difference * weights).sum(axis=(1, 2)) / np.maximum(total, 1e-9) / 255
        compared = total >= LAYOUT_MIN_CELLS_SHOWN
        nearest[compared] = np.minimum(nearest[compared], distance[compared])
    return np.where(np.isfinite(nearest), nearest, 0.0)


@lru_cache(maxsize=4)
def _plane_basis(height: int, width: int) -> np.ndarray:
    """Per cell (row by row): 1, x and y, the terms of a plane over the layout."""
    rows, columns = np.mgrid[:height, :width].astype(np.float32)
    return np.stack(
        [np.ones(height * width, np.float32), columns.ravel() / width, rows.ravel() / height],
        axis=1,
    )


def _flattened(layouts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each of `layouts` (m x rows x cells x channels) less each channel's plane (a + b x +
    c y) fitted by least squares weighted by its `weights` (m x rows x cells)."""
    count, height, width, channels = layouts.shape
    basis = _plane_basis(height, width)
    values = layouts.reshape(count, height * width, channels)
    weighted = basis[None] * weights.reshape(count, -1, 1)
    # A tiny ridge keeps the fit defined where the shown cells lie in one line.
    transposed = weighted.transpose(0, 2, 1)
    normal = transposed @ basis + 1e-6 * np.eye(3, dtype=np.float32)
    coefficients = np.linalg.solve(normal, transposed @ values)
    return (values - basis @ coefficients).reshape(layouts.shape)
