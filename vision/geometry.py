"""The card's canonical frame: rectify a card from its four corners, cut out its index corners.

Shared by training (crops from rendered labels) and the runtime, so that both see the same
pixels. Cards are poker size; a rectified card is portrait, its first corner top-left.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

CARD_WIDTH_MM = 63.0
CARD_HEIGHT_MM = 88.0
"""A poker-size card, as the simulator renders them (`simulator/scene.py`, kept apart so that
the runtime never imports the simulator)."""
RECTIFIED_PX_PER_MM = 3.0
"""Resolution of the canonical card: enough for an index, cheap to warp."""
INDEX_WINDOW_MM = (26.0, 32.0)
"""Width and height of the corner cut that holds a card's index, for new classifiers: designs
with big indices (pysol-sylly, gnome-tango) print the suit 20-30 mm down, below a square."""
LEGACY_INDEX_WINDOW_MM = (26.0, 26.0)
"""The window of classifiers exported before the model recorded its own."""
INDEX_CROP_PX = 64
"""Side of the square crop given to the index classifier, whatever the window's shape."""

RECTIFIED_SIZE = (
    round(CARD_WIDTH_MM * RECTIFIED_PX_PER_MM),
    round(CARD_HEIGHT_MM * RECTIFIED_PX_PER_MM),
)


def side_lengths(quad: np.ndarray) -> list[float]:
    """The lengths of a quad's four sides, the first from its first corner to its second."""
    points = np.asarray(quad, np.float32).reshape(4, 2).tolist()
    return [math.dist(points[i], points[(i + 1) % 4]) for i in range(4)]


def portrait_order(quad: np.ndarray) -> np.ndarray:
    """The same four corners (clockwise) starting where the first edge is a short side."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    top, right, bottom, left = side_lengths(quad)
    return quad if top + bottom <= right + left else quad[[1, 2, 3, 0]]


def seen_width(quad: np.ndarray) -> float:
    """The card's width in the photo, in pixels: the mean of its two short sides."""
    top, _, bottom, _ = side_lengths(portrait_order(quad))
    return (top + bottom) / 2


def card_length(quad: np.ndarray) -> float:
    """The card's length in the photo, in pixels: the mean of its two long sides."""
    _, right, _, left = side_lengths(portrait_order(quad))
    return (right + left) / 2


def _to_rectified(quad: np.ndarray, margin_px: float = 0.0) -> np.ndarray:
    """The perspective map from the photo to the card rectified portrait, `margin_px` of
    the table left around it."""
    width, height = RECTIFIED_SIZE
    target = np.array(
        [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float32
    )
    return cv2.getPerspectiveTransform(portrait_order(quad), target + np.float32(margin_px))


def rectify(
    image: np.ndarray,
    quad: np.ndarray,
    margin_mm: float = 0.0,
    extent_mm: tuple[float, float] | None = None,
) -> np.ndarray:
    """The card seen square-on, portrait, `RECTIFIED_SIZE` pixels plus `margin_mm` of the
    table around it on every side (so that shifted index crops can look past its edge); only
    its top-left `extent_mm` (width, height) and the margin around that, if given: the same
    pixels as there in the whole card, for less work."""
    margin = margin_mm * RECTIFIED_PX_PER_MM
    width, height = RECTIFIED_SIZE
    matrix = _to_rectified(quad, margin)
    if extent_mm is not None:
        width, height = (round(side * RECTIFIED_PX_PER_MM) for side in extent_mm)
    size = (round(width + 2 * margin), round(height + 2 * margin))
    # Bilinear: OpenCV's warps do not average (INTER_AREA, once written here, warped the same
    # bytes). Shrinking a large card by area first was measured and not kept: spreads of all
    # decks/backs designs photographed at 3840 and 5760 px wide (cards 375 and 563 px long)
    # were counted the same either way (10 and 11 of 12 exact; unlike backs 12 of 12).
    return cv2.warpPerspective(
        image, matrix, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


PROJECTED_LIMIT_PX = 1e6
"""Corners of another card mapped into a card's rectified frame are kept this near it, so that
one mapped near the card's horizon stays within what `cv2.fillPoly` can draw."""


def uncovered(quad: np.ndarray, others: list[np.ndarray]) -> np.ndarray:
    """The card as `rectify` shows it (no margin), 1 where none of the `others` lies over
    it and 0 where one does (which lies on top is not known, so an overlap counts for
    neither card)."""
    width, height = RECTIFIED_SIZE
    matrix = _to_rectified(quad)
    shown = np.ones((height, width), np.uint8)
    card = np.asarray(quad, np.float32).reshape(4, 2)
    # Which side of the map's horizon the card itself lies on (the map's scale may be negative).
    own_side = np.sign(matrix[2] @ np.r_[card.mean(axis=0), 1.0])
    for other in others:
        corners = np.asarray(other, np.float32).reshape(4, 2)
        # Only cards overlapping it in the photo: a small card's corners a pixel off put its
        # map's horizon in the photo, and a card beyond it would map around the whole card.
        if cv2.intersectConvexConvex(card, corners)[0] <= 0:
            continue
        mapped = np.c_[corners, np.ones(4, np.float32)] @ matrix.T
        if (mapped[:, 2] * own_side <= 0).any():  # a corner beyond the horizon
            continue
        moved = np.clip(mapped[:, :2] / mapped[:, 2:], -PROJECTED_LIMIT_PX, PROJECTED_LIMIT_PX)
        low, high = moved.min(axis=0), moved.max(axis=0)
        if high[0] < 0 or high[1] < 0 or low[0] >= width or low[1] >= height:
            continue
        cv2.fillPoly(shown, [np.round(moved).astype(np.int32)], 0)
    return shown


def index_crops(
    card: np.ndarray,
    shifts_mm: tuple[tuple[float, float], ...] = ((0.0, 0.0),),
    margin_mm: float = 0.0,
    window_mm: tuple[float, float] = INDEX_WINDOW_MM,
    opposite: bool = True,
) -> list[np.ndarray]:
    """The two index corners of a card rectified with `margin_mm`, each turned upright and
    cut `window_mm` (width, height) large: top-left, then bottom-right (unless not
    `opposite`); with several `shifts_mm` (each no larger than the margin), every corner is
    cut once per shift, corner by corner. Every crop is `INDEX_CROP_PX` square."""
    width, height = (round(side * RECTIFIED_PX_PER_MM) for side in window_mm)
    crops = []
    views = (card, cv2.rotate(card, cv2.ROTATE_180)) if opposite else (card,)
    for view in views:
        for dx, dy in shifts_mm:
            left = round((margin_mm + dx) * RECTIFIED_PX_PER_MM)
            top = round((margin_mm + dy) * RECTIFIED_PX_PER_MM)
            crop = view[top : top + height, left : left + width]
            # Bilinear, not area: a quarter of the time (650 crops: 8 ms against 31) for the
            # same names on the tuning renders (index_classifier.md, session 25).
            crops.append(
                cv2.resize(crop, (INDEX_CROP_PX, INDEX_CROP_PX), interpolation=cv2.INTER_LINEAR)
            )
    return crops


FACE_CROP_PX = 64
"""Side of the square a whole card's face is squeezed into for the face classifier."""


def face_crop(card: np.ndarray, margin_mm: float = 0.0) -> np.ndarray:
    """A card rectified with `margin_mm`, without the margin, squeezed into a square
    `FACE_CROP_PX` wide: the whole face (pips, picture and both indices) as the face
    classifier reads it."""
    margin = round(margin_mm * RECTIFIED_PX_PER_MM)
    face = card[margin : card.shape[0] - margin, margin : card.shape[1] - margin]
    return cv2.resize(face, (FACE_CROP_PX, FACE_CROP_PX), interpolation=cv2.INTER_AREA)


CARD_CORNERS_MM = np.array(
    [[0, 0], [CARD_WIDTH_MM, 0], [CARD_WIDTH_MM, CARD_HEIGHT_MM], [0, CARD_HEIGHT_MM]], np.float32
)


def corner_window_mm(corner: int, window_mm: tuple[float, float] = INDEX_WINDOW_MM) -> np.ndarray:
    """The index window at a portrait card's top-left (`corner` 0) or bottom-right (1) corner,
    in card millimetres, its corners in the upright index's reading order: the first is the
    card's own corner."""
    width, height = window_mm
    upright = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    return upright if corner == 0 else CARD_CORNERS_MM[2] - upright


def moved_card(quad: np.ndarray, along_mm: float, down_mm: float) -> np.ndarray:
    """A card's image quad (clockwise, from the corner its first edge starts at) moved
    `along_mm` along its first edge and `down_mm` along its last, as the card lies: where a
    card fanned under it would lie. Affine: fine for moves of a few centimetres."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    along = (quad[1] - quad[0]) / CARD_WIDTH_MM
    down = (quad[3] - quad[0]) / CARD_HEIGHT_MM
    return (quad + along_mm * along + down_mm * down).astype(np.float32)


def card_window(
    quad: np.ndarray, corner: int, window_mm: tuple[float, float] = INDEX_WINDOW_MM
) -> np.ndarray:
    """Image quad of a card's index window (`corner_window_mm`), the card found at `quad`."""
    to_image = cv2.getPerspectiveTransform(CARD_CORNERS_MM, portrait_order(quad))
    window = corner_window_mm(corner, window_mm).reshape(1, 4, 2)
    return cv2.perspectiveTransform(window, to_image)[0]


def card_from_window(window: np.ndarray, window_mm: tuple[float, float]) -> np.ndarray:
    """The whole card's corners (the window's corner first) estimated from an index window's
    image quad. Affine, fitted to all four points: a perspective fit would stretch a few
    pixels of corner error in a window a third of the card's size into a skewed card."""
    window = np.asarray(window, np.float32).reshape(4, 2)
    return (_window_to_card(tuple(window_mm)) @ window).astype(np.float32)


@lru_cache(maxsize=8)
def _window_to_card(window_mm: tuple[float, float]) -> np.ndarray:
    """The least-squares affine fit of `card_from_window` as one linear map of the window's
    four image points, worked out once per window size: the card's corners are
    card_points @ pinv(window_points) @ image_points."""
    window_points = np.column_stack([corner_window_mm(0, window_mm), np.ones(4, np.float32)])
    card_points = np.column_stack([CARD_CORNERS_MM, np.ones(4, np.float32)])
    mapping = card_points @ np.linalg.pinv(window_points)
    mapping.setflags(write=False)
    return mapping


def visible_centre(quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The centre of the part of a card `quad` within a picture of `size` (width, height): a
    card cut by the photo's edge is outlined whole, its centre perhaps beyond the edge, where
    no one can find it. Where none of it lies within, its own centre brought to the edge."""
    width, height = size
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    area, part = cv2.intersectConvexConvex(quad.astype(np.float32), frame)
    if area > 0 and part is not None:
        moments = cv2.moments(part.reshape(-1, 1, 2))
        return np.array([moments["m10"], moments["m01"]]) / moments["m00"]
    return np.clip(quad.mean(axis=0), 0, [width, height]).astype(np.float64)


def overlap_of_smaller(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection of two card quads over the smaller one's area: 1 when one lies inside the
    other, as a piece of a card inside its whole outline does."""
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    smaller = min(cv2.contourArea(a.astype(np.float32)), cv2.contourArea(b.astype(np.float32)))
    return float(area) / smaller if smaller > 0 else 0.0


def intersection_over_union(a: np.ndarray, b: np.ndarray) -> float:
    """How far two card quads are the same card: 1 when they coincide, 0 when apart."""
    a, b = a.astype(np.float32), b.astype(np.float32)
    area, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - area
    return float(area) / union if union > 0 else 0.0
