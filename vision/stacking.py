"""Which of two overlapping cards lies on top, told from the photo itself.

The top card's outline runs across the card under it and shows there as an edge (its white rim
against the other card's print); the lower card's outline is hidden under the top card, which
shows its own print straight across it. So, of two overlapping cards, the one whose outline
is the sharper inside the other lies on top. Detection scores say nothing of this: in a
spread pushed tight, a card showing a narrow strip is often scored as high as the one on top.
"""

from __future__ import annotations

import cv2
import numpy as np

EDGE_SEARCH_PX = 3
"""A detected outline lies a few pixels off the true one (on spreads of cards showing a third
of their width, 5-6 px at the corners): each side is looked for within this distance across
it. On 6 such tuning spreads (about 1,000 overlapping pairs, judged against the renders' own
order): any edge near the outline, 89.7% of pairs right; the sharpest step across it, taken
at each point on its own, 93.7%; taken along each side at one offset, 94.6% (at 5 px 95.1%,
but fewer pairs judged, the margin growing with it)."""
EDGE_SAMPLES_PER_PX = 0.5
"""Samples along each side of an outline, per pixel of its length."""
CORNER_SKIP_SHARE = 0.1
"""The share of each side left unsampled at either end: a card's corner is rounded (its
outline leaves the side there), and where two outlines cross both show. Not tuned."""
INSIDE_MARGIN_SHARE = 0.1
"""Only the part of an outline lying this share of a card's width inside the other card is
sampled: two cards side by side in a row have their top edges close together, and there
either may show."""
MIN_EDGE_SAMPLES = 4
"""An outline with fewer samples inside the other card says nothing of the two (they barely
touch); neither is then taken as on top of the other."""


def _outline_points(quad: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points spread along the four sides of `quad`, its corners left out (a corner is
    rounded, and where two outlines cross both show); at each the unit normal pointing into
    the card, and the number of its side."""
    points, normals, sides = [], [], []
    centre = quad.mean(axis=0)
    for number, (start, end) in enumerate(zip(quad, np.roll(quad, -1, axis=0), strict=True)):
        count = max(2, int(np.linalg.norm(end - start) * EDGE_SAMPLES_PER_PX))
        along = np.linspace(CORNER_SKIP_SHARE, 1 - CORNER_SKIP_SHARE, count)[:, None]
        side = start + along * (end - start)
        normal = np.array([-(end - start)[1], (end - start)[0]], np.float64)
        normal /= max(float(np.linalg.norm(normal)), 1e-9)
        if np.dot(centre - (start + end) / 2, normal) < 0:
            normal = -normal
        points.append(side)
        normals.append(np.repeat(normal[None], len(side), axis=0))
        sides.append(np.full(len(side), number))
    return (
        np.concatenate(points).astype(np.float32),
        np.concatenate(normals).astype(np.float32),
        np.concatenate(sides),
    )


def _inside(points: np.ndarray, quad: np.ndarray, margin_px: float) -> np.ndarray:
    """Which `points` lie inside `quad` by more than `margin_px`."""
    contour = quad.astype(np.float32).reshape(-1, 1, 2)
    return np.array(
        [cv2.pointPolygonTest(contour, (float(x), float(y)), True) > margin_px for x, y in points],
        bool,
    )


def _edge_across(
    image: np.ndarray, points: np.ndarray, normals: np.ndarray, sides: np.ndarray
) -> float:
    """How sharp an outline is at `points`: on each of its sides, the mean step in brightness
    (the darkest channel of `image`: a white rim stands out against any coloured print)
    across the outline (along its `normals`) where the side shows it best within
    `EDGE_SEARCH_PX`, the sides weighed by their points. A side is straight, so it is looked
    for as a line, at one offset: a print's edges lie at every offset and run every way, an
    outline's along one line."""
    if not len(points):
        return 0.0
    height, width = image.shape[:2]
    offsets = np.arange(-EDGE_SEARCH_PX - 1, EDGE_SEARCH_PX + 2, dtype=np.float32)
    probes = points[:, None, :] + offsets[None, :, None] * normals[:, None, :]
    columns = np.clip(np.round(probes[..., 0]).astype(int), 0, width - 1)
    rows = np.clip(np.round(probes[..., 1]).astype(int), 0, height - 1)
    # Only the probed pixels are read: a 12-megapixel photo converted whole took half a second.
    sampled = image[rows, columns]
    profile = (sampled.min(axis=-1) if image.ndim == 3 else sampled).astype(np.float32)
    steps = np.abs(profile[:, 2:] - profile[:, :-2])
    total = 0.0
    for side in np.unique(sides):
        on_side = steps[sides == side]
        total += float(on_side.mean(axis=0).max()) * len(on_side)
    return total / len(steps)


def stacking_leans(quads: list[np.ndarray], image: np.ndarray) -> dict[tuple[int, int], float]:
    """For every overlapping pair of cards (by their quads, each starting with a short side as
    `portrait_order` gives them; numbered a < b), how surely `a` lies on top of `b`: from 1
    (only `a`'s outline shows inside the other) through 0 (both alike) to -1 (`b` on top),
    from how sharp each outline is inside the other (`_edge_across`)."""
    outlines = [_outline_points(np.asarray(quad, np.float32)) for quad in quads]
    corners = np.array(quads, np.float32).reshape(-1, 4, 2)
    low, high = corners.min(axis=1), corners.max(axis=1)
    widths = np.linalg.norm(corners[:, 1] - corners[:, 0], axis=1)
    leans: dict[tuple[int, int], float] = {}
    for a in range(len(quads)):
        for b in range(a + 1, len(quads)):
            if np.any(low[a] > high[b]) or np.any(low[b] > high[a]):
                continue
            margin = INSIDE_MARGIN_SHARE * float(min(widths[a], widths[b])) + EDGE_SEARCH_PX
            a_in_b = _inside(outlines[a][0], corners[b], margin)
            b_in_a = _inside(outlines[b][0], corners[a], margin)
            if a_in_b.sum() < MIN_EDGE_SAMPLES and b_in_a.sum() < MIN_EDGE_SAMPLES:
                continue
            a_edge = _edge_across(image, *(part[a_in_b] for part in outlines[a]))
            b_edge = _edge_across(image, *(part[b_in_a] for part in outlines[b]))
            leans[(a, b)] = (a_edge - b_edge) / max(a_edge, b_edge, 1e-6)
    return leans


def cards_above(
    count: int, leans: dict[tuple[int, int], float], sure: float = 0.0
) -> list[set[int]]:
    """For each of `count` cards, the numbers of the cards lying on top of it by `leans`
    (`stacking_leans`), of those told at least `sure` surely; a pair that leans neither way
    (both outlines alike) is neither's."""
    above: list[set[int]] = [set() for _ in range(count)]
    for (a, b), lean in leans.items():
        if abs(lean) < sure:
            continue
        if lean > 0:
            above[b].add(a)
        elif lean < 0:
            above[a].add(b)
    return above
