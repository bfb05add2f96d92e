"""Card sprites and patches: a card at one pose, warped once, composited by two cv2 calls.

A *sprite* is a face or back reduced to the canvas scale (premultiplied BGR + alpha).
A *patch* is a sprite rotated and placed for one pose, with its drop shadow, stored as
premultiplied colour and inverse alpha so that compositing is `dst * inv / 255 + colour`.
Patches of cards lying still are cached by pose, so a frame re-warps only what moved.
"""

from __future__ import annotations

import math
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from simulator.camera import CanvasGeometry
from simulator.scene import CARD_HEIGHT_MM, CARD_WIDTH_MM, CardPose
from simulator.sensor import motion_blur


@dataclass(frozen=True)
class ShadowSettings:
    """Drop shadows: light from above, a little toward the top-left of the image."""

    opacity: float = 0.35
    offset_mm: tuple[float, float] = (0.8, 1.1)
    """Shadow shift of a card lying on the table (card thickness and the light angle)."""
    lift_slope: tuple[float, float] = (0.25, 0.35)
    """Extra shadow shift per mm a card is lifted."""
    blur_mm: float = 0.9
    lift_blur_per_mm: float = 0.06
    lift_opacity_loss_per_mm: float = 0.004
    """Lifted cards cast fainter shadows."""
    sheen: float = 0.05
    """Brightness change across one card (slight bend toward or away from the light)."""


@dataclass
class Patch:
    x0: int
    y0: int
    colour: np.ndarray
    """Premultiplied BGR uint8."""
    inverse_alpha: np.ndarray
    """255 - alpha, uint8, three channels (cv2.multiply wants equal shapes)."""

    @property
    def box(self) -> tuple[int, int, int, int]:
        h, w = self.colour.shape[:2]
        return (self.x0, self.y0, self.x0 + w, self.y0 + h)


def premultiplied_sprite(image_bgra: np.ndarray, canvas: CanvasGeometry) -> np.ndarray:
    """BGRA face/back at the canvas scale, colour premultiplied by alpha (uint8)."""
    width = max(2, round(CARD_WIDTH_MM * canvas.px_per_mm))
    height = max(2, round(CARD_HEIGHT_MM * canvas.px_per_mm))
    shrinking = width <= image_bgra.shape[1]
    interpolation = cv2.INTER_AREA if shrinking else cv2.INTER_CUBIC
    small = cv2.resize(image_bgra, (width, height), interpolation=interpolation).astype(np.float32)
    small[..., :3] *= small[..., 3:] / 255.0
    return np.clip(small + 0.5, 0, 255).astype(np.uint8)


def composite(canvas: np.ndarray, patch: Patch, clip: tuple[int, int, int, int]) -> None:
    """Paint a patch onto the canvas inside `clip` (x0, y0, x1, y1), in place."""
    px0, py0, px1, py1 = patch.box
    x0, y0 = max(px0, clip[0]), max(py0, clip[1])
    x1, y1 = min(px1, clip[2]), min(py1, clip[3])
    if x0 >= x1 or y0 >= y1:
        return
    region = canvas[y0:y1, x0:x1]
    inv = patch.inverse_alpha[y0 - py0 : y1 - py0, x0 - px0 : x1 - px0]
    colour = patch.colour[y0 - py0 : y1 - py0, x0 - px0 : x1 - px0]
    cv2.multiply(region, inv, dst=region, scale=1.0 / 255.0)
    cv2.add(region, colour, dst=region)


class PatchMaker:
    """Builds (and caches, for cards lying still) the patch of a card pose."""

    def __init__(
        self,
        canvas: CanvasGeometry,
        sprite_for: Callable[[CardPose], np.ndarray],
        shadows: ShadowSettings,
        cache_size: int,
    ) -> None:
        self.canvas = canvas
        self.sprite_for = sprite_for
        self.shadows = shadows
        self.cache_size = cache_size
        self._cache: OrderedDict[CardPose, Patch] = OrderedDict()

    def _shadow_geometry(self, lift: float) -> tuple[float, float, float, float]:
        s = self.shadows
        dx = s.offset_mm[0] + s.lift_slope[0] * lift
        dy = s.offset_mm[1] + s.lift_slope[1] * lift
        blur = s.blur_mm + s.lift_blur_per_mm * lift
        opacity = max(0.05, s.opacity - s.lift_opacity_loss_per_mm * lift)
        return dx, dy, blur, opacity

    def box(self, pose: CardPose) -> tuple[int, int, int, int]:
        """Canvas pixel box (x0, y0, x1, y1) a pose's patch covers, card and shadow."""
        scale = self.canvas.px_per_mm
        cx, cy = self.canvas.to_canvas(pose.x, pose.y)
        theta = math.radians(pose.angle)
        half_w = (abs(math.cos(theta)) * CARD_WIDTH_MM + abs(math.sin(theta)) * CARD_HEIGHT_MM) / 2
        half_h = (abs(math.sin(theta)) * CARD_WIDTH_MM + abs(math.cos(theta)) * CARD_HEIGHT_MM) / 2
        dx, dy, blur, _ = self._shadow_geometry(pose.lift)
        pad = 3 * blur + 1.0
        x0 = math.floor(cx - (half_w + pad) * scale)
        y0 = math.floor(cy - (half_h + pad) * scale)
        x1 = math.ceil(cx + (half_w + pad + dx) * scale) + 1
        y1 = math.ceil(cy + (half_h + pad + dy) * scale) + 1
        return (x0, y0, x1, y1)

    def patch(self, pose: CardPose, motion_px: tuple[float, float] = (0.0, 0.0)) -> Patch:
        cacheable = pose.lift <= 0 and motion_px == (0.0, 0.0)
        if cacheable and pose in self._cache:
            self._cache.move_to_end(pose)
            return self._cache[pose]
        made = self._make(pose, motion_px)
        if cacheable:
            self._cache[pose] = made
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return made

    def _sheen(self, pose: CardPose, size: tuple[int, int]) -> np.ndarray:
        """Brightness gradient across a card: a real card is never perfectly flat."""
        # crc32, not hash(): str hashes change between Python processes.
        direction = zlib.crc32(f"{pose.card}/{pose.seat}".encode()) % 360
        theta = math.radians(direction + pose.angle)
        w, h = size
        xs = (np.arange(w, dtype=np.float32) - w / 2) / max(w, h) * 2
        ys = (np.arange(h, dtype=np.float32) - h / 2) / max(w, h) * 2
        ramp = math.cos(theta) * xs[None, :] + math.sin(theta) * ys[:, None]
        return 1.0 + self.shadows.sheen * np.clip(ramp, -1.0, 1.0)

    def _make(self, pose: CardPose, motion_px: tuple[float, float]) -> Patch:
        sprite = self.sprite_for(pose)
        x0, y0, x1, y1 = self.box(pose)
        cx, cy = self.canvas.to_canvas(pose.x, pose.y)
        sh, sw = sprite.shape[:2]
        matrix = cv2.getRotationMatrix2D(((sw - 1) / 2, (sh - 1) / 2), pose.angle, 1.0)
        # The sprite is at canvas scale already; only rotate and place its centre.
        matrix[0, 2] += cx - x0 - (sw - 1) / 2
        matrix[1, 2] += cy - y0 - (sh - 1) / 2
        size = (x1 - x0, y1 - y0)
        card = cv2.warpAffine(
            sprite,
            matrix,
            size,
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0, 0),
        ).astype(np.float32)
        if motion_px != (0.0, 0.0):
            card = motion_blur(card, *motion_px)
        if self.shadows.sheen > 0:
            card[..., :3] *= self._sheen(pose, size)[..., None]
        alpha = card[..., 3] / 255.0
        dx, dy, blur, opacity = self._shadow_geometry(pose.lift)
        scale = self.canvas.px_per_mm
        shift = np.array([[1, 0, dx * scale], [0, 1, dy * scale]], np.float64)
        shadow = cv2.warpAffine(alpha, shift, size, flags=cv2.INTER_LINEAR)
        sigma = max(blur * scale, 0.3)
        shadow = cv2.GaussianBlur(shadow, (0, 0), sigma) * opacity
        total = alpha + shadow * (1.0 - alpha)
        colour = np.clip(card[..., :3] + 0.5, 0, 255).astype(np.uint8)
        inverse = np.clip((1.0 - total) * 255.0 + 0.5, 0, 255).astype(np.uint8)
        return Patch(x0, y0, colour, cv2.merge([inverse, inverse, inverse]))
