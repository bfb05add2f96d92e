"""Things that lie on a real card table besides cards: a score sheet, a phone, a cup, a pen.

They are painted into the static background, so they cost nothing per frame. Recognition
models trained with them learn that a white rectangle is not necessarily a card.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from simulator.camera import SUBPIXEL_BITS, SUBPIXEL_SCALE, CanvasGeometry

CLUTTER_KINDS = ("score_sheet", "phone", "cup", "pen")
SCORE_SHEET_MM = (148.0, 210.0)
"""A5 paper."""
PHONE_MM = (72.0, 150.0)
CUP_DIAMETER_MM = 85.0
PEN_MM = (140.0, 9.0)


def _rotated_rect(centre: np.ndarray, size: tuple[float, float], angle: float) -> np.ndarray:
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * np.array(size) / 2
    return centre + half @ np.array([[c, -s], [s, c]])


def _px(canvas: CanvasGeometry, points_mm: np.ndarray) -> np.ndarray:
    return canvas.subpixel(points_mm)


def _score_sheet(
    surface: np.ndarray,
    canvas: CanvasGeometry,
    at: np.ndarray,
    angle: float,
    rng: np.random.Generator,
) -> None:
    corners = _rotated_rect(at, SCORE_SHEET_MM, angle)
    cv2.fillPoly(surface, [_px(canvas, corners)], (238, 242, 244), cv2.LINE_AA, SUBPIXEL_BITS)
    top, right = corners[0], corners[1] - corners[0]
    down = (corners[3] - corners[0]) / np.linalg.norm(corners[3] - corners[0])
    for line in range(1, 22):  # ruled lines, some with pencilled scores
        start = top + down * line * 9.0 + right * 0.06
        end = start + right * 0.88
        cv2.line(
            surface,
            tuple(_px(canvas, start[None])[0]),
            tuple(_px(canvas, end[None])[0]),
            (200, 170, 150),
            1,
            cv2.LINE_AA,
            4,
        )
        if rng.random() < 0.5:
            for column in range(int(rng.integers(1, 4))):
                mark = start + right * (0.1 + 0.3 * column) - down * 3.0
                points = mark + np.cumsum(rng.normal(0, 1.2, (6, 2)), axis=0) + right * 0.0
                cv2.polylines(
                    surface,
                    [_px(canvas, points)],
                    False,
                    (90, 60, 40),
                    1,
                    cv2.LINE_AA,
                    SUBPIXEL_BITS,
                )


def _phone(surface: np.ndarray, canvas: CanvasGeometry, at: np.ndarray, angle: float) -> None:
    cv2.fillPoly(
        surface,
        [_px(canvas, _rotated_rect(at, PHONE_MM, angle))],
        (30, 28, 28),
        cv2.LINE_AA,
        SUBPIXEL_BITS,
    )
    screen = (PHONE_MM[0] - 6.0, PHONE_MM[1] - 16.0)
    cv2.fillPoly(
        surface,
        [_px(canvas, _rotated_rect(at, screen, angle))],
        (55, 45, 40),
        cv2.LINE_AA,
        SUBPIXEL_BITS,
    )


def _cup(
    surface: np.ndarray, canvas: CanvasGeometry, at: np.ndarray, rng: np.random.Generator
) -> None:
    centre = tuple(_px(canvas, at[None])[0])
    radius = round(CUP_DIAMETER_MM / 2 * canvas.px_per_mm * SUBPIXEL_SCALE)
    rim = tuple(int(v) for v in rng.choice([[230, 230, 230], [40, 60, 150], [60, 120, 60]]))
    cv2.circle(surface, centre, radius, rim, -1, cv2.LINE_AA, SUBPIXEL_BITS)
    drink = tuple(int(v) for v in rng.choice([[20, 40, 70], [60, 110, 160], [200, 200, 200]]))
    cv2.circle(surface, centre, int(radius * 0.85), drink, -1, cv2.LINE_AA, SUBPIXEL_BITS)


def _pen(
    surface: np.ndarray,
    canvas: CanvasGeometry,
    at: np.ndarray,
    angle: float,
    rng: np.random.Generator,
) -> None:
    colour = tuple(int(v) for v in rng.choice([[150, 60, 20], [30, 30, 30], [40, 40, 190]]))
    cv2.fillPoly(
        surface, [_px(canvas, _rotated_rect(at, PEN_MM, angle))], colour, cv2.LINE_AA, SUBPIXEL_BITS
    )


def paint_clutter(
    surface: np.ndarray,
    canvas: CanvasGeometry,
    region_mm: tuple[float, ...],
    count: int,
    rng: np.random.Generator,
) -> None:
    """Paint `count` random objects inside region_mm (x0, y0, x1, y1), in place."""
    x0, y0, x1, y1 = region_mm
    for _ in range(count):
        kind = CLUTTER_KINDS[int(rng.integers(len(CLUTTER_KINDS)))]
        at = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
        angle = float(rng.uniform(0, 180))
        if kind == "score_sheet":
            _score_sheet(surface, canvas, at, angle, rng)
        elif kind == "phone":
            _phone(surface, canvas, at, angle)
        elif kind == "cup":
            _cup(surface, canvas, at, rng)
        else:
            _pen(surface, canvas, at, angle, rng)
