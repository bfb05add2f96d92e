"""The camera: table millimetres -> image pixels, and what the sensor adds.

Drawing happens on a top-down *canvas* of the table (table mm scaled by `px_per_mm`); one
precomputed `cv2.remap` per frame applies perspective (a camera a little off vertical) and
radial lens distortion together. `project` runs single points through the same model.

Lens model (defined in the direction remap needs): an image pixel p_d at normalised radius r_d
from the centre shows the ideal pinhole pixel p_u = c + (p_d - c) * (1 + k1 * r_d^2);
k1 > 0 is barrel distortion. `project` inverts it with Newton steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CAMERA_HEIGHT_MM = 1500.0
"""Nominal lens height above the table; only the ratio to the table size matters."""
FIT_FRACTION = 0.97
"""Share of the image (in the tighter direction) the watched region fills."""
NEWTON_STEPS = 8
"""Iterations to invert the lens model in `project`; converges to well under 0.01 px."""
DEFAULT_FPS = 30.0
"""Frames a second of simulated footage unless asked otherwise: a webcam's usual rate."""
FRAME_SIDE_MIN = 64
"""Smallest frame side: below this the cards are a few pixels and nothing can be seen."""
FRAME_ASPECT_MAX = 4.0
"""A frame's long side is at most this many times its short side (cameras film 4:3 to 32:9):
at 64 x 1500 the lens model's edge pixels looked far out towards the horizon, and the canvas
drawn to cover them took exabytes."""
FRAME_LARGEST = (3840, 2160)
"""The largest frame, in pixels (4K UHD, what good overhead cameras film), turned either way:
an 8K frame took a minute and 5 GB of memory to render, and 99999 x 99999 asked for 75 GB at
once."""


def frame_shape_refused(width: int, height: int) -> str | None:
    """Why a camera frame of `width` x `height` pixels cannot be rendered, or None."""
    if min(width, height) < FRAME_SIDE_MIN:
        return f"each side must be at least {FRAME_SIDE_MIN} pixels"
    if max(width, height) > FRAME_ASPECT_MAX * min(width, height):
        return f"the long side may be at most {FRAME_ASPECT_MAX:g} times the short one"
    if width * height > FRAME_LARGEST[0] * FRAME_LARGEST[1]:
        return f"at most {FRAME_LARGEST[0]} x {FRAME_LARGEST[1]} pixels in all (4K)"
    return None


def _rotation(pitch_deg: float, roll_deg: float, yaw_deg: float) -> np.ndarray:
    p, r, y = np.radians([pitch_deg, roll_deg, yaw_deg])
    rx = np.array([[1, 0, 0], [0, np.cos(p), -np.sin(p)], [0, np.sin(p), np.cos(p)]])
    ry = np.array([[np.cos(r), 0, np.sin(r)], [0, 1, 0], [-np.sin(r), 0, np.cos(r)]])
    rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    return rz @ rx @ ry


SUBPIXEL_BITS = 4
"""OpenCV draws polygons and circles to 1/16 px given points scaled by `SUBPIXEL_SCALE` and
this `shift`: a card's edge moves smoothly as it slides, not a whole pixel at a time."""
SUBPIXEL_SCALE = 1 << SUBPIXEL_BITS


@dataclass(frozen=True)
class CanvasGeometry:
    """The top-down drawing surface: canvas px = (table mm - origin_mm) * px_per_mm."""

    origin_mm: tuple[float, float]
    px_per_mm: float
    size: tuple[int, int]

    def subpixel(
        self, points_mm: np.ndarray, shift_mm: tuple[float, float] = (0.0, 0.0)
    ) -> np.ndarray:
        """`points_mm` (moved by `shift_mm`) in canvas px scaled by `SUBPIXEL_SCALE`, as OpenCV
        draws them with `shift=SUBPIXEL_BITS`."""
        origin = np.array(self.origin_mm) - np.array(shift_mm)
        return np.round((points_mm - origin) * self.px_per_mm * SUBPIXEL_SCALE).astype(np.int32)

    def to_canvas(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        return (
            (x_mm - self.origin_mm[0]) * self.px_per_mm,
            (y_mm - self.origin_mm[1]) * self.px_per_mm,
        )


class CameraModel:
    """Perspective + lens distortion for one fixed camera over the table."""

    def __init__(
        self,
        size: tuple[int, int],
        region_mm: tuple[float, float, float, float],
        tilt_deg: tuple[float, float, float],
        distortion_k1: float,
        max_canvas_px_per_mm: float,
    ) -> None:
        """`region_mm` (x0, y0, x1, y1) must be in view; tilt is (pitch, roll, yaw) degrees."""
        self.size = size
        self.k1 = distortion_k1
        width, height = size
        self.centre = np.array([width / 2.0, height / 2.0])
        self.norm_radius = float(np.hypot(width, height) / 2.0)
        self.homography = self._fit_homography(region_mm, tilt_deg)
        self.inverse_homography = np.linalg.inv(self.homography)
        table_x, table_y = self._image_grid_to_table()
        self.canvas = self._canvas_for(table_x, table_y, max_canvas_px_per_mm)
        map_x = ((table_x - self.canvas.origin_mm[0]) * self.canvas.px_per_mm).astype(np.float32)
        map_y = ((table_y - self.canvas.origin_mm[1]) * self.canvas.px_per_mm).astype(np.float32)
        self.map_fixed, self.map_frac = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
        self.map_x, self.map_y = map_x, map_y

    def _fit_homography(
        self, region_mm: tuple[float, float, float, float], tilt_deg: tuple[float, float, float]
    ) -> np.ndarray:
        x0, y0, x1, y1 = region_mm
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
        centre3 = np.array([(x0 + x1) / 2, (y0 + y1) / 2, -CAMERA_HEIGHT_MM])
        rotation = _rotation(*tilt_deg)
        points3 = np.column_stack([corners, np.zeros(4)])
        cam = (rotation @ (points3 - centre3).T).T
        pinhole = cam[:, :2] / cam[:, 2:3]
        lo, hi = pinhole.min(axis=0), pinhole.max(axis=0)
        scale = FIT_FRACTION * min(self.size[0] / (hi[0] - lo[0]), self.size[1] / (hi[1] - lo[1]))
        pixels = (pinhole - (lo + hi) / 2) * scale + self.centre
        # Lens distortion pulls the edges inward, so what fits the pinhole image fits the lens.
        return cv2.getPerspectiveTransform(corners.astype(np.float32), pixels.astype(np.float32))

    def _undistort(self, px: np.ndarray) -> np.ndarray:
        """Distorted image pixels (..., 2) -> ideal pinhole pixels."""
        offset = px - self.centre
        r2 = (offset**2).sum(axis=-1, keepdims=True) / self.norm_radius**2
        return self.centre + offset * (1.0 + self.k1 * r2)

    def _image_grid_to_table(self) -> tuple[np.ndarray, np.ndarray]:
        width, height = self.size
        grid = np.stack(np.meshgrid(np.arange(width), np.arange(height)), axis=-1).astype(
            np.float64
        )
        ideal = self._undistort(grid)
        h = self.inverse_homography
        denom = h[2, 0] * ideal[..., 0] + h[2, 1] * ideal[..., 1] + h[2, 2]
        tx = (h[0, 0] * ideal[..., 0] + h[0, 1] * ideal[..., 1] + h[0, 2]) / denom
        ty = (h[1, 0] * ideal[..., 0] + h[1, 1] * ideal[..., 1] + h[1, 2]) / denom
        return tx, ty

    @staticmethod
    def _canvas_for(tx: np.ndarray, ty: np.ndarray, max_px_per_mm: float) -> CanvasGeometry:
        # Canvas resolution = the finest the image ever samples the table, so nothing is lost.
        step_x = np.hypot(np.diff(tx, axis=1), np.diff(ty, axis=1)).min()
        step_y = np.hypot(np.diff(tx, axis=0), np.diff(ty, axis=0)).min()
        px_per_mm = min(max_px_per_mm, 1.0 / min(step_x, step_y))
        margin = 2.0 / px_per_mm
        x0, y0 = tx.min() - margin, ty.min() - margin
        width = int(np.ceil((tx.max() + margin - x0) * px_per_mm)) + 1
        height = int(np.ceil((ty.max() + margin - y0) * px_per_mm)) + 1
        return CanvasGeometry((float(x0), float(y0)), float(px_per_mm), (width, height))

    def project(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Table mm -> distorted image pixel (the inverse of what remap samples)."""
        ideal_h = self.homography @ np.array([x_mm, y_mm, 1.0])
        ideal = ideal_h[:2] / ideal_h[2] - self.centre
        r_u = float(np.hypot(*ideal)) / self.norm_radius
        r_d = r_u
        for _ in range(NEWTON_STEPS):  # solve r_d * (1 + k1 r_d^2) = r_u
            f = r_d * (1 + self.k1 * r_d * r_d) - r_u
            r_d -= f / (1 + 3 * self.k1 * r_d * r_d)
        ratio = r_d / r_u if r_u > 0 else 1.0
        return (float(self.centre[0] + ideal[0] * ratio), float(self.centre[1] + ideal[1] * ratio))

    def warp(self, canvas: np.ndarray) -> np.ndarray:
        """Canvas -> camera image (perspective and lens in one remap)."""
        return cv2.remap(
            canvas, self.map_fixed, self.map_frac, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )

    def warp_nearest(self, canvas: np.ndarray) -> np.ndarray:
        """Like `warp` without blending values, for label/id buffers."""
        return cv2.remap(
            canvas,
            self.map_x,
            self.map_y,
            cv2.INTER_NEAREST,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=0,
        )
