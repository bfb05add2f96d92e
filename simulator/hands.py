"""Hands and forearms reaching in from a seat's table edge, drawn straight onto the canvas.

Seats sit around the play area's edge (`geometry.seat_anchor`): seat 0 at the bottom edge, then
clockwise as seen in the image (4 seats: bottom, left, top, right; 2: bottom, top).
The arm runs from the player's shoulder, outside the play area, to the palm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from simulator.camera import SUBPIXEL_BITS, SUBPIXEL_SCALE, CanvasGeometry
from simulator.geometry import seat_anchor
from simulator.scene import HandPose

SKIN_TONES_BGR = ((150, 180, 228), (120, 152, 205), (92, 125, 178), (62, 88, 135), (45, 62, 98))
FINGER_SPREAD = (-1.5, -0.5, 0.5, 1.5)
"""Finger positions across the knuckles, in finger widths from the hand's centre line."""
FINGER_LENGTH_SHARE = (0.85, 1.0, 1.0, 0.8)
"""Index, middle, ring, little finger length relative to `finger_length_mm`."""
FINGER_GAP = 1.05
FINGER_FAN = 0.06
"""Sideways lean of the fingers per finger width from the centre (a relaxed hand fans)."""
FINGER_TAPER = 0.85
MIN_MOTION_BLUR_PX = 1.5
"""Hand motion during the exposure below which a hand is drawn sharp (cheaper)."""
LIGHT_FROM = (-0.6, -0.8)
"""Unit vector toward the light (table x, y): shadows fall the other way, highlights this way."""
Capsule = tuple[np.ndarray, np.ndarray, float, float]
SLEEVE_COLOURS_BGR = ((60, 60, 60), (140, 80, 40), (40, 40, 150), (200, 200, 200), (60, 110, 60))


@dataclass(frozen=True)
class HandSettings:
    """Hand and forearm proportions (mm) and their shadow."""

    shoulder_out_mm: float = 320.0
    """How far outside the table edge the shoulder is."""
    shoulder_side_mm: float = 140.0
    """Right-hand offset of the shoulder from the seat's centre line."""
    palm_length_mm: float = 95.0
    palm_width_mm: float = 82.0
    finger_length_mm: float = 70.0
    finger_width_mm: float = 17.0
    thumb_length_mm: float = 50.0
    thumb_width_mm: float = 21.0
    wrist_width_mm: float = 60.0
    elbow_width_mm: float = 95.0
    sleeve_from_palm_mm: float = 260.0
    """Forearm skin shows this far back from the palm, then the sleeve starts."""
    edge_darkening: float = 0.2
    highlight: float = 0.12
    shadow_offset_mm: tuple[float, float] = (14.0, 20.0)
    shadow_opacity: float = 0.35
    shadow_blur_mm: float = 9.0


_ARC = np.linspace(0.0, math.pi, 6)[1:-1]
"""Inner angles of each round end (the straight sides supply the end points)."""


def _capsule(start: np.ndarray, end: np.ndarray, w0: float, w1: float) -> np.ndarray:
    """Polygon of a tapered rod with round ends, width w0 at start and w1 at end."""
    direction = end - start
    length = math.hypot(direction[0], direction[1]) or 1.0
    n = np.array([-direction[1], direction[0]]) / length
    base = math.atan2(n[1], n[0])
    end_angles = base - _ARC
    start_angles = base + math.pi - _ARC
    end_arc = end + (w1 / 2) * np.column_stack([np.cos(end_angles), np.sin(end_angles)])
    start_arc = start + (w0 / 2) * np.column_stack([np.cos(start_angles), np.sin(start_angles)])
    sides = np.array([start + n * w0 / 2, end + n * w1 / 2])
    other_sides = np.array([end - n * w1 / 2, start - n * w0 / 2])
    return np.vstack([sides, end_arc, other_sides, start_arc])


class HandPainter:
    def __init__(
        self,
        canvas: CanvasGeometry,
        table_mm: tuple[float, float],
        n_seats: int,
        settings: HandSettings,
        rng: np.random.Generator,
    ) -> None:
        self.canvas = canvas
        self.table_mm = table_mm
        self.n_seats = max(1, n_seats)
        self.settings = settings
        self.skin = [SKIN_TONES_BGR[i] for i in rng.integers(0, len(SKIN_TONES_BGR), self.n_seats)]
        self.sleeve = [
            SLEEVE_COLOURS_BGR[i] for i in rng.integers(0, len(SLEEVE_COLOURS_BGR), self.n_seats)
        ]

    def limbs_mm(self, hand: HandPose) -> tuple[list[Capsule], list[Capsule]]:
        """(skin capsules, sleeve capsules) in table mm: (start, end, start width, end width)."""
        s = self.settings
        anchor, normal = seat_anchor(hand.seat, self.n_seats, self.table_mm)
        right = np.array([normal[1], -normal[0]])  # the player's right, facing inward
        shoulder = anchor + normal * s.shoulder_out_mm + right * s.shoulder_side_mm
        palm = np.array([hand.x, hand.y], np.float64)
        along = palm - shoulder
        u = along / (float(np.hypot(*along)) or 1.0)
        n = np.array([-u[1], u[0]])
        # The palm centre sits 55% of the palm length before the wrist and 30% behind the
        # knuckles (palm centre = where the card is held).
        wrist = palm - u * s.palm_length_mm * 0.55
        knuckles = palm + u * s.palm_length_mm * 0.3
        sleeve_start = palm - u * s.sleeve_from_palm_mm
        skin: list[Capsule] = [
            (sleeve_start, wrist, s.elbow_width_mm * 0.85, s.wrist_width_mm),
            (wrist, knuckles, s.palm_width_mm * 0.9, s.palm_width_mm),
        ]
        for spread, length_share in zip(FINGER_SPREAD, FINGER_LENGTH_SHARE, strict=True):
            base = knuckles + n * spread * s.finger_width_mm * FINGER_GAP
            tip = base + (u + n * spread * FINGER_FAN) * s.finger_length_mm * length_share
            skin.append((base, tip, s.finger_width_mm, s.finger_width_mm * FINGER_TAPER))
        thumb_base = palm - u * s.palm_length_mm * 0.1 - n * s.palm_width_mm * 0.4
        thumb_tip = thumb_base + (u * 0.6 - n * 0.8) * s.thumb_length_mm
        skin.append((thumb_base, thumb_tip, s.thumb_width_mm, s.thumb_width_mm * FINGER_TAPER))
        sleeve: list[Capsule] = [
            (
                shoulder - u * 200.0,
                sleeve_start + u * 10.0,
                s.elbow_width_mm * 1.3,
                s.elbow_width_mm * 1.15,
            )
        ]
        return skin, sleeve

    def shapes_mm(self, hand: HandPose) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """(skin polygons, sleeve polygons) in table mm."""
        skin, sleeve = self.limbs_mm(hand)
        return [_capsule(*c) for c in skin], [_capsule(*c) for c in sleeve]

    def to_px(
        self, polygon_mm: np.ndarray, shift_mm: tuple[float, float] = (0.0, 0.0)
    ) -> np.ndarray:
        return self.canvas.subpixel(polygon_mm, shift_mm)

    def paint(
        self, image: np.ndarray, hand: HandPose, motion_px: tuple[float, float] = (0.0, 0.0)
    ) -> None:
        """Draw one hand with its shadow onto the canvas image, in place; a hand that moved
        `motion_px` canvas pixels while the shutter was open is drawn blurred."""
        skin, sleeve = self.limbs_mm(hand)
        skin_polygons = [self.to_px(_capsule(*c)) for c in skin]
        sleeve_polygons = [self.to_px(_capsule(*c)) for c in sleeve]
        self._paint_shadow(image, [_capsule(*c) for c in skin + sleeve])
        seat = hand.seat % self.n_seats
        parts = (
            (sleeve, sleeve_polygons, self.sleeve[seat]),
            (skin, skin_polygons, self.skin[seat]),
        )
        if math.hypot(*motion_px) < MIN_MOTION_BLUR_PX:
            self._draw(image, None, parts, np.zeros(2, np.int32))
            return
        # Draw onto a black layer with a coverage mask, blur both along the motion, composite.
        # A box blur spanning the motion costs the same at any length (running sums).
        everything = np.concatenate(skin_polygons + sleeve_polygons) // SUBPIXEL_SCALE
        pad = int(abs(motion_px[0]) + abs(motion_px[1])) + 2
        h, w = image.shape[:2]
        x0, y0 = (
            max(int(everything[:, 0].min()) - pad, 0),
            max(int(everything[:, 1].min()) - pad, 0),
        )
        x1, y1 = (
            min(int(everything[:, 0].max()) + pad, w),
            min(int(everything[:, 1].max()) + pad, h),
        )
        if x0 >= x1 or y0 >= y1:
            return
        layer = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        self._draw(layer, mask, parts, np.array([x0, y0], np.int32) * SUBPIXEL_SCALE)
        kernel = (int(abs(motion_px[0])) + 1, int(abs(motion_px[1])) + 1)
        layer = cv2.blur(layer, kernel)
        inverse = 255 - cv2.blur(mask, kernel)
        region = image[y0:y1, x0:x1]
        cv2.multiply(region, cv2.merge([inverse, inverse, inverse]), dst=region, scale=1.0 / 255.0)
        cv2.add(region, layer, dst=region)

    def _draw(
        self,
        target: np.ndarray,
        mask: np.ndarray | None,
        parts: tuple[tuple[list[Capsule], list[np.ndarray], tuple[int, int, int]], ...],
        offset: np.ndarray,
    ) -> None:
        """Fill limbs (px polygons in 1/`SUBPIXEL_SCALE` px) onto target, shifted by -offset."""
        for capsules, polygons, tone in parts:
            dark = tuple(int(c * (1 - self.settings.edge_darkening)) for c in tone)
            light = tuple(min(255, int(c * (1 + self.settings.highlight))) for c in tone)
            for polygon in polygons:
                px = polygon - offset
                cv2.fillPoly(target, [px], tone, cv2.LINE_AA, SUBPIXEL_BITS)
                cv2.polylines(target, [px], True, dark, 1, cv2.LINE_AA, SUBPIXEL_BITS)
                if mask is not None:
                    cv2.fillPoly(mask, [px], 255, cv2.LINE_AA, SUBPIXEL_BITS)
            # A narrow lighter band along each limb reads as a rounded, lit surface.
            for start, end, w0, w1 in capsules:
                shift = np.array(LIGHT_FROM) * 0.15 * (w0 + w1) / 2
                band = _capsule(start + shift, end + shift, w0 * 0.45, w1 * 0.45)
                cv2.fillPoly(target, [self.to_px(band) - offset], light, cv2.LINE_AA, SUBPIXEL_BITS)

    def _paint_shadow(self, image: np.ndarray, polygons: list[np.ndarray]) -> None:
        s = self.settings
        shifted = [self.to_px(p, s.shadow_offset_mm) for p in polygons]
        all_px = np.concatenate(shifted) / SUBPIXEL_SCALE
        pad = int(3 * s.shadow_blur_mm * self.canvas.px_per_mm) + 2
        h, w = image.shape[:2]
        x0, y0 = max(int(all_px[:, 0].min()) - pad, 0), max(int(all_px[:, 1].min()) - pad, 0)
        x1, y1 = min(int(all_px[:, 0].max()) + pad, w), min(int(all_px[:, 1].max()) + pad, h)
        if x0 >= x1 or y0 >= y1:
            return
        # Soft shadows have no detail: draw and blur at quarter resolution, then upsample.
        factor = 4
        small_w, small_h = max(1, (x1 - x0) // factor), max(1, (y1 - y0) // factor)
        mask = np.zeros((small_h, small_w), np.uint8)
        offset = np.array([x0, y0]) * SUBPIXEL_SCALE
        for polygon in shifted:  # one call per polygon: fillPoly would XOR the overlaps
            cv2.fillPoly(mask, [(polygon - offset) // factor], 255, cv2.LINE_AA, SUBPIXEL_BITS)
        sigma = max(s.shadow_blur_mm * self.canvas.px_per_mm / factor, 0.5)
        mask = cv2.GaussianBlur(mask, (0, 0), sigma)
        mask = cv2.resize(mask, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        keep = 255 - (mask.astype(np.uint16) * int(s.shadow_opacity * 256) >> 8).astype(np.uint8)
        region = image[y0:y1, x0:x1]
        cv2.multiply(region, cv2.merge([keep, keep, keep]), dst=region, scale=1.0 / 255.0)
