"""Suit symbols and rank text drawn as anti-aliased masks (fonts lack suit glyphs).

Every mask is float32 in [0, 1]; shapes are drawn at `SUPERSAMPLE` times the target size and
reduced with area averaging, which gives clean edges at any card scale.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

SUPERSAMPLE = 4
"""Drawing resolution multiplier for glyph masks (anti-aliasing by area averaging)."""
RANK_FONT = cv2.FONT_HERSHEY_DUPLEX
RANK_STROKE_PER_SCALE = 2.6
"""Stroke thickness per unit of font scale: heavy strokes keep ranks legible when tiny."""

# Shapes in unit coordinates (0..1 across, 0..1 down); circles are (cx, cy, r).
_SUIT_CIRCLES: dict[str, list[tuple[float, float, float]]] = {
    "H": [(0.28, 0.32, 0.25), (0.72, 0.32, 0.25)],
    "S": [(0.28, 0.60, 0.23), (0.72, 0.60, 0.23)],
    "C": [(0.5, 0.27, 0.22), (0.26, 0.60, 0.22), (0.74, 0.60, 0.22)],
    "D": [],
}
_SUIT_POLYGONS: dict[str, list[list[tuple[float, float]]]] = {
    "H": [[(0.04, 0.40), (0.96, 0.40), (0.5, 0.98)]],
    "S": [[(0.06, 0.55), (0.94, 0.55), (0.5, 0.02)], [(0.5, 0.6), (0.32, 1.0), (0.68, 1.0)]],
    "C": [
        [(0.5, 0.45), (0.32, 1.0), (0.68, 1.0)],
        [(0.38, 0.3), (0.62, 0.3), (0.62, 0.7), (0.38, 0.7)],
    ],
    "D": [[(0.5, 0.0), (0.92, 0.5), (0.5, 1.0), (0.08, 0.5)]],
}


@lru_cache(maxsize=256)
def suit_mask(suit: str, width: int, height: int) -> np.ndarray:
    """Anti-aliased mask of a suit symbol filling a width x height box."""
    big_w, big_h = width * SUPERSAMPLE, height * SUPERSAMPLE
    canvas = np.zeros((big_h, big_w), np.uint8)
    for cx, cy, r in _SUIT_CIRCLES[suit]:
        radius = round(r * min(big_w, big_h))
        cv2.circle(canvas, (round(cx * big_w), round(cy * big_h)), radius, 255, -1, cv2.LINE_AA)
    for poly in _SUIT_POLYGONS[suit]:
        pts = np.array([[round(x * big_w), round(y * big_h)] for x, y in poly], np.int32)
        cv2.fillPoly(canvas, [pts], 255, cv2.LINE_AA)
    small = cv2.resize(canvas, (width, height), interpolation=cv2.INTER_AREA)
    result = small.astype(np.float32) / 255.0
    result.flags.writeable = False
    return result


@lru_cache(maxsize=256)
def text_mask(
    text: str,
    width: int,
    height: int,
    font: int = RANK_FONT,
    stroke_per_scale: float = RANK_STROKE_PER_SCALE,
) -> np.ndarray:
    """Mask of `text` stretched to fill height, condensed if needed to fit width, centred."""
    scale = 8.0
    thickness = max(1, round(scale * stroke_per_scale))
    (tw, th), baseline = cv2.getTextSize(text, font, scale, thickness)
    pad = thickness * 2
    big = np.zeros((th + baseline + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(big, text, (pad, pad + th), font, scale, 255, thickness, cv2.LINE_AA)
    return fit_ink(big, width, height)


def inked_part(big: np.ndarray) -> np.ndarray:
    """The bounding box of a uint8 drawing's inked (over half-bright) pixels."""
    ys, xs = np.nonzero(big > 127)
    return big[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def fit_ink(big: np.ndarray, width: int, height: int) -> np.ndarray:
    """The inked part of a large uint8 drawing, stretched to fill `height`, condensed if needed
    to fit `width`, centred in a float32 width x height mask."""
    ink = inked_part(big)
    ink_h, ink_w = ink.shape
    target_w = min(width, max(1, round(ink_w * height / ink_h)))
    fitted = cv2.resize(ink, (target_w, height), interpolation=cv2.INTER_AREA)
    result = np.zeros((height, width), np.float32)
    x0 = (width - target_w) // 2
    result[:, x0 : x0 + target_w] = fitted.astype(np.float32) / 255.0
    result.flags.writeable = False
    return result


def paint_mask(
    image: np.ndarray, mask: np.ndarray, x0: int, y0: int, colour: tuple[int, ...]
) -> None:
    """Blend a solid colour through `mask` into a BGR(A) image at (x0, y0), in place, clipped."""
    h, w = mask.shape
    ih, iw = image.shape[:2]
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + w, iw), min(y0 + h, ih)
    if xa >= xb or ya >= yb:
        return
    m = mask[ya - y0 : yb - y0, xa - x0 : xb - x0, None]
    region = image[ya:yb, xa:xb, :3].astype(np.float32)
    colour_arr = np.array(colour[:3], np.float32)
    image[ya:yb, xa:xb, :3] = (region * (1.0 - m) + colour_arr * m + 0.5).astype(np.uint8)
