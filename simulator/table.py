"""The static background: table surface (wood, felt, plain) and the four ArUco markers.

Markers (cv2.aruco DICT_4X4_50, ids 0..3) lie just outside the play area's corners, upright:
id 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left. Each marker's black square has its
corner nearest the play area exactly on the play area's corner (see `marker_corners_mm`).
"""

from __future__ import annotations

import cv2
import numpy as np

from simulator.camera import CanvasGeometry

TABLES = ("wood", "felt", "plain")
MARKER_DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_MM = 55.0
"""Side of a marker's black square."""
MARKER_QUIET_MM = 7.0
"""White paper around the black square (detectors need a light border)."""
MARKER_CELLS = 6
"""4x4 data bits plus the one-cell black border on each side."""
WOOD_PLANK_MM = 140.0
WOOD_GRAIN_MM = 7.0
"""Growth-ring line spacing."""
WOOD_JOINT_MM = 900.0
"""Plank length between end joints."""


def marker_corners_mm(table_mm: tuple[float, float]) -> dict[int, np.ndarray]:
    """Marker id -> its black square's corners (TL, TR, BR, BL as ArUco reports them), table mm."""
    w, h, m = table_mm[0], table_mm[1], MARKER_MM
    origins = {0: (-m, -m), 1: (w, -m), 2: (w, h), 3: (-m, h)}
    return {
        marker: np.array([[x, y], [x + m, y], [x + m, y + m], [x, y + m]], np.float64)
        for marker, (x, y) in origins.items()
    }


def _smooth_noise(shape: tuple[int, int], cell: float, rng: np.random.Generator) -> np.ndarray:
    """Value noise in [-1, 1] with features about `cell` pixels across."""
    return _stretched_noise(shape, cell, cell, rng)


def _stretched_noise(
    shape: tuple[int, int], cell_x: float, cell_y: float, rng: np.random.Generator
) -> np.ndarray:
    """Value noise with features cell_x by cell_y pixels (long along x for wood fibres)."""
    cell_x, cell_y = max(cell_x, 1.5), max(cell_y, 1.5)  # finer than a pixel is only aliasing
    small = (max(2, int(shape[0] / cell_y) + 2), max(2, int(shape[1] / cell_x) + 2))
    grid = rng.uniform(-1, 1, small).astype(np.float32)
    return cv2.resize(grid, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _wood(shape: tuple[int, int], px_per_mm: float, rng: np.random.Generator) -> np.ndarray:
    """Planks along x: growth rings as gently wavy lines, fibre streaks, staggered end joints."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / px_per_mm
    base = np.array(rng.choice([[60, 105, 160], [45, 80, 125], [85, 140, 190]]), np.float32)
    plank = np.floor(yy / WOOD_PLANK_MM)
    n_planks = int(plank.max()) + 1
    plank_tone = rng.normal(0, 0.06, n_planks + 1).astype(np.float32)
    plank_phase = rng.uniform(0, 1, n_planks + 1).astype(np.float32)
    index = plank.astype(np.int32).clip(0, n_planks)
    mm = px_per_mm
    wave = _stretched_noise(shape, 180 * mm, 30 * mm, rng) * 5 + _stretched_noise(
        shape, 50 * mm, 10 * mm, rng
    )
    rings = ((yy + wave) / WOOD_GRAIN_MM + plank_phase[index]) % 1.0
    late_wood = np.clip((rings - 0.7) / 0.3, 0, 1) ** 2  # darker band at the end of each ring
    fibres = _stretched_noise(shape, 40 * mm, 0.7 * mm, rng)
    tone = 1.0 + plank_tone[index] - 0.12 * late_wood + 0.035 * fibres
    tone += 0.04 * _smooth_noise(shape, 120 * mm, rng)
    seams = (np.abs(yy / WOOD_PLANK_MM - np.round(yy / WOOD_PLANK_MM)) * WOOD_PLANK_MM) < 0.8
    joint_offset = rng.uniform(0, WOOD_JOINT_MM, n_planks + 1).astype(np.float32)
    joint = ((xx + joint_offset[index]) % WOOD_JOINT_MM) < 0.8
    tone = np.where(seams | joint, tone * 0.6, tone)
    return base * tone[..., None]


def _felt(shape: tuple[int, int], px_per_mm: float, rng: np.random.Generator) -> np.ndarray:
    base = np.array(rng.choice([[40, 105, 30], [90, 70, 25], [40, 40, 110]]), np.float32)
    fine = rng.normal(0, 0.05, shape).astype(np.float32)
    tone = 1.0 + 0.06 * _smooth_noise(shape, 90 * px_per_mm, rng) + fine
    return base * tone[..., None]


def _plain(shape: tuple[int, int], px_per_mm: float, rng: np.random.Generator) -> np.ndarray:
    base = np.array(rng.choice([[170, 180, 185], [150, 170, 190], [120, 120, 118]]), np.float32)
    tone = 1.0 + 0.04 * _smooth_noise(shape, 120 * px_per_mm, rng) + rng.normal(0, 0.015, shape)
    return base * tone[..., None]


def table_surface(kind: str, canvas: CanvasGeometry, rng: np.random.Generator) -> np.ndarray:
    """BGR texture filling the whole canvas."""
    makers = {"wood": _wood, "felt": _felt, "plain": _plain}
    if kind not in makers:
        raise ValueError(f"unknown table {kind!r}; choose from {', '.join(TABLES)}")
    shape = (canvas.size[1], canvas.size[0])
    texture = makers[kind](shape, canvas.px_per_mm, rng)
    return np.clip(texture, 0, 255).astype(np.uint8)


def marker_image(marker_id: int, px_per_cell: int) -> np.ndarray:
    """BGRA marker with its white quiet zone, upright."""
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY)
    side = MARKER_CELLS * px_per_cell
    black = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
    quiet = round(MARKER_QUIET_MM / MARKER_MM * side)
    paper = cv2.copyMakeBorder(black, quiet, quiet, quiet, quiet, cv2.BORDER_CONSTANT, value=255)
    paper = cv2.cvtColor(paper, cv2.COLOR_GRAY2BGRA)
    paper[..., :3] = np.minimum(paper[..., :3], 245)  # printer paper, not pure white
    return paper


def paint_markers(
    surface: np.ndarray, canvas: CanvasGeometry, table_mm: tuple[float, float]
) -> None:
    """Paint the four markers onto the canvas surface, in place."""
    cell_px = 24
    for marker_id, corners in marker_corners_mm(table_mm).items():
        image = marker_image(marker_id, cell_px)
        src_px_per_mm = cell_px * MARKER_CELLS / MARKER_MM
        quiet_px = MARKER_QUIET_MM * src_px_per_mm
        # Affine from marker-image pixels to canvas pixels: scale, then place the black square.
        scale = canvas.px_per_mm / src_px_per_mm
        tx, ty = canvas.to_canvas(*corners[0])
        reduced = cv2.resize(image, None, fx=scale * 2, fy=scale * 2, interpolation=cv2.INTER_AREA)
        factor = reduced.shape[1] / image.shape[1]
        matrix = np.array(
            [
                [scale / factor, 0, tx - quiet_px * scale],
                [0, scale / factor, ty - quiet_px * scale],
            ],
            np.float64,
        )
        warped = cv2.warpAffine(
            reduced,
            matrix,
            canvas.size,
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0, 0),
        )
        alpha = warped[..., 3:].astype(np.float32) / 255.0
        surface[:] = (surface * (1 - alpha) + warped[..., :3] * alpha + 0.5).astype(np.uint8)
