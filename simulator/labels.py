"""Ground-truth labels for a rendered scene: which cards and corner indices a camera sees.

Visibility follows the painting order: every card (lying cards in order, then carried ones)
and finally every hand is rasterised into an id buffer on the canvas, which goes through the
camera's own remap. An object is labelled when enough of it shows (`LabelSettings`).

Keypoint order for a whole card: the card's corners top-left, top-right, bottom-right,
bottom-left. A card looks the same turned 180 degrees, so the order is made canonical in the
image: the edge holding keypoints 0 and 1 is the one facing up the image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from simulator.camera import SUBPIXEL_BITS, SUBPIXEL_SCALE
from simulator.render import TableRenderer
from simulator.scene import CARD_HEIGHT_MM, CARD_WIDTH_MM, CardPose, Scene

CARD_CLASSES = ("card_face_up", "card_face_down")
INDEX_CLASSES = ("index",)


@dataclass(frozen=True)
class LabelSettings:
    min_card_visible: float = 0.12
    """Share of a card's area that must show for a whole-card label (a fanned card shows ~20%)."""
    min_index_visible: float = 0.9
    """Share of a corner index that must show; a partly covered index is not labelled."""
    corner_probe_mm: float = 3.0
    """Keypoint visibility is tested this far inside the corner (corners are rounded)."""


@dataclass
class LabelledObject:
    kind: str
    """"card" (whole card, pose label) or "index" (corner index, detect label)."""
    pose: CardPose
    class_id: int
    quad: np.ndarray
    """Four image points (card: canonical keypoint order; index: its box corners)."""
    box: tuple[float, float, float, float]
    """Axis-aligned box in image px, clipped to the image."""
    visible: float
    keypoint_visibility: list[int] = field(default_factory=list)
    corner: int = -1
    """For an index: 0 = the top-left index of the upright card, 1 = the bottom-right one."""


def card_points_mm(pose: CardPose, fractions: np.ndarray) -> np.ndarray:
    """Points given as fractions of the upright card (x right, y down) -> table mm."""
    dx = (fractions[:, 0] - 0.5) * CARD_WIDTH_MM
    dy = (fractions[:, 1] - 0.5) * CARD_HEIGHT_MM
    c, s = math.cos(math.radians(pose.angle)), math.sin(math.radians(pose.angle))
    return np.column_stack([pose.x + c * dx + s * dy, pose.y - s * dx + c * dy])


def _project(renderer: TableRenderer, points_mm: np.ndarray) -> np.ndarray:
    return np.array([renderer.project(float(x), float(y)) for x, y in points_mm])


def painting_order(scene: Scene) -> list[CardPose]:
    """The order the renderer paints cards in: lying cards, then carried ones."""
    return [c for c in scene.cards if c.lift <= 0] + [c for c in scene.cards if c.lift > 0]


def id_image(renderer: TableRenderer, scene: Scene, order: list[CardPose]) -> np.ndarray:
    """uint16 image: 1 + index into `order` of the card seen at each pixel, 0 = table or hand."""
    canvas = renderer.camera.canvas
    buffer = np.zeros((canvas.size[1], canvas.size[0]), np.uint16)
    corners = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
    for number, pose in enumerate(order, start=1):
        mm = card_points_mm(pose, corners)
        cv2.fillConvexPoly(buffer, canvas.subpixel(mm), number, cv2.LINE_8, SUBPIXEL_BITS)
    painter = renderer.hand_painter
    for hand in scene.hands:
        skin, sleeve = painter.shapes_mm(hand)
        for polygon in skin + sleeve:  # one call per polygon: fillPoly would XOR the overlaps
            cv2.fillPoly(buffer, [painter.to_px(polygon)], 0, cv2.LINE_8, SUBPIXEL_BITS)
    return renderer.camera.warp_nearest(buffer)


def _box(quad: np.ndarray, size: tuple[int, int]) -> tuple[float, float, float, float]:
    x0, y0 = np.clip(quad.min(axis=0), 0, None)
    x1, y1 = quad.max(axis=0)
    return (float(x0), float(y0), float(min(x1, size[0])), float(min(y1, size[1])))


def _shown_share(ids: np.ndarray, quad: np.ndarray, number: int) -> tuple[float, bool]:
    """(share of the quad's pixels showing `number`, whether the quad lies inside the image)."""
    h, w = ids.shape
    inside = bool((quad >= 0).all() and (quad[:, 0] < w).all() and (quad[:, 1] < h).all())
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    if cx0 >= cx1 or cy0 >= cy1 or area < 1:
        return 0.0, inside
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    fixed = np.round((quad - [x0, y0]) * SUBPIXEL_SCALE).astype(np.int32)
    cv2.fillConvexPoly(mask, fixed, 1, cv2.LINE_8, SUBPIXEL_BITS)
    window = mask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0].astype(bool)
    shown = np.count_nonzero(ids[cy0:cy1, cx0:cx1][window] == number)
    return min(1.0, float(shown) / max(int(np.count_nonzero(mask)), 1)), inside


def label_scene(
    renderer: TableRenderer, scene: Scene, settings: LabelSettings | None = None
) -> tuple[list[LabelledObject], list[LabelledObject]]:
    """(whole cards, corner indices) visible in the frame `renderer.render(scene, ...)` draws."""
    settings = settings or LabelSettings()
    size = renderer.settings.size
    order = painting_order(scene)
    ids = id_image(renderer, scene, order)
    probe_x = settings.corner_probe_mm / CARD_WIDTH_MM
    probe_y = settings.corner_probe_mm / CARD_HEIGHT_MM
    corner_fractions = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
    probes = np.array(
        [
            [probe_x, probe_y],
            [1 - probe_x, probe_y],
            [1 - probe_x, 1 - probe_y],
            [probe_x, 1 - probe_y],
        ]
    )
    cards: list[LabelledObject] = []
    indices: list[LabelledObject] = []
    for number, pose in enumerate(order, start=1):
        quad = _project(renderer, card_points_mm(pose, corner_fractions))
        share, _ = _shown_share(ids, quad, number)
        if share < settings.min_card_visible:
            continue
        probe_px = _project(renderer, card_points_mm(pose, probes))
        turn = 0
        up = (quad[0] + quad[1] - quad[2] - quad[3]) / 2
        if up[1] > 0 or (up[1] == 0 and up[0] > 0):
            turn = 2  # the card's printed top faces down the image: start from the other edge
        order4 = [(i + turn) % 4 for i in range(4)]
        visibility = []
        for i in order4:
            x, y = quad[i]
            if not (0 <= x < size[0] and 0 <= y < size[1]):
                visibility.append(0)
                continue
            px, py = probe_px[i]
            seen = 0 <= px < size[0] and 0 <= py < size[1] and ids[int(py), int(px)] == number
            visibility.append(2 if seen else 1)
        cards.append(
            LabelledObject(
                "card",
                pose,
                0 if pose.face_up else 1,
                quad[order4],
                _box(quad, size),
                share,
                visibility,
            )
        )
        if not pose.face_up:
            continue
        for corner, (fx0, fy0, fx1, fy1) in enumerate(renderer.design_for(pose.seat).index_boxes):
            box_fr = np.array([[fx0, fy0], [fx1, fy0], [fx1, fy1], [fx0, fy1]], np.float64)
            index_quad = _project(renderer, card_points_mm(pose, box_fr))
            index_share, inside = _shown_share(ids, index_quad, number)
            if inside and index_share >= settings.min_index_visible:
                indices.append(
                    LabelledObject(
                        "index",
                        pose,
                        0,
                        index_quad,
                        _box(index_quad, size),
                        index_share,
                        corner=corner,
                    )
                )
    return cards, indices


def pose_line(obj: LabelledObject, size: tuple[int, int]) -> str:
    """ultralytics pose label: class cx cy w h then x y v for the four corners (normalised)."""
    w, h = size
    x0, y0, x1, y1 = obj.box
    values = [(x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h]
    for (x, y), v in zip(obj.quad, obj.keypoint_visibility, strict=True):
        values += [x / w, y / h, float(v)] if v > 0 else [0.0, 0.0, 0.0]
    return f"{obj.class_id} " + " ".join(f"{v:.6f}" for v in values)


def detect_line(obj: LabelledObject, size: tuple[int, int]) -> str:
    """ultralytics detect label: class cx cy w h (normalised)."""
    w, h = size
    x0, y0, x1, y1 = obj.box
    values = [(x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h]
    return f"{obj.class_id} " + " ".join(f"{v:.6f}" for v in values)
