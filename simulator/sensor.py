"""What light and the sensor add after the lens: uneven light, colour temperature, noise,
compression. Everything expensive is precomputed, so a frame costs a few saturating adds.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

GAIN_UNITY = 128.0
"""The light map is stored as uint8 with this value meaning gain 1.0 (cv2.multiply scale)."""


@dataclass(frozen=True)
class LightSettings:
    """Uneven light and white balance; each is a maximum, the seed picks values up to it."""

    vignetting: float = 0.28
    """Brightness lost in the image corners."""
    hotspot: float = 0.18
    """Extra brightness under a lamp somewhere over the table."""
    gradient: float = 0.12
    """Brightness change from one side of the image to the other (a window)."""
    colour_temperature: float = 0.10
    """Max red/blue imbalance: warm (tungsten) or cool (daylight) casts."""
    exposure: tuple[float, float] = (0.9, 1.1)
    """Overall gain range."""


def light_map(
    size: tuple[int, int], settings: LightSettings, rng: np.random.Generator
) -> np.ndarray:
    """uint8 HxWx3 gain map for cv2.multiply(image, map, scale=1/GAIN_UNITY)."""
    width, height = size
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    nx, ny = (xx - width / 2) / (width / 2), (yy - height / 2) / (height / 2)
    gain = 1.0 - settings.vignetting * rng.uniform(0.5, 1.0) * (nx * nx + ny * ny) / 2
    hx, hy = rng.uniform(-0.6, 0.6, size=2)
    spread = rng.uniform(0.5, 1.0)
    gain += (
        settings.hotspot
        * rng.uniform(0.3, 1.0)
        * np.exp(-((nx - hx) ** 2 + (ny - hy) ** 2) / (2 * spread**2))
    )
    direction = rng.uniform(0, 2 * np.pi)
    gain += (
        settings.gradient
        * rng.uniform(-1, 1)
        * (np.cos(direction) * nx + np.sin(direction) * ny)
        / 2
    )
    gain *= rng.uniform(*settings.exposure)
    warmth = rng.uniform(-1, 1) * settings.colour_temperature
    channel_gain = np.array([1 - warmth, 1.0, 1 + warmth], np.float32)  # B, G, R
    full = gain[..., None] * channel_gain * GAIN_UNITY
    return np.clip(full + 0.5, 0, 255).astype(np.uint8)


class NoiseBank:
    """A few precomputed sensor-noise frames, split into positive and negative uint8 parts."""

    def __init__(
        self, size: tuple[int, int], sigma: float, count: int, rng: np.random.Generator
    ) -> None:
        width, height = size
        self.positive: list[np.ndarray] = []
        self.negative: list[np.ndarray] = []
        for _ in range(count):
            luma = rng.normal(0, sigma * 0.8, (height, width, 1))
            chroma = rng.normal(0, sigma * 0.6, (height, width, 3))
            noise = np.round(luma + chroma).clip(-255, 255)
            self.positive.append(np.clip(noise, 0, 255).astype(np.uint8))
            self.negative.append(np.clip(-noise, 0, 255).astype(np.uint8))

    def apply(self, image: np.ndarray, choice: int) -> np.ndarray:
        if not self.positive:
            return image
        index = choice % len(self.positive)
        cv2.add(image, self.positive[index], dst=image)
        cv2.subtract(image, self.negative[index], dst=image)
        return image


def jpeg_roundtrip(image: np.ndarray, quality: int) -> np.ndarray:
    """Compression artefacts as a camera or phone stream adds them."""
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    decoded = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    if decoded is None:
        raise RuntimeError("JPEG decoding failed")
    return decoded


def motion_blur(patch: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """Blur a BGRA patch along a motion of (dx, dy) canvas pixels during the exposure."""
    length = float(np.hypot(dx, dy))
    if length < 1.0:
        return patch
    size = int(np.ceil(length)) | 1
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    ux, uy = dx / length, dy / length
    half = length / 2
    cv2.line(
        kernel,
        (round(c - ux * half), round(c - uy * half)),
        (round(c + ux * half), round(c + uy * half)),
        1.0,
        1,
        cv2.LINE_AA,
    )
    kernel /= kernel.sum()
    return cv2.filter2D(patch, -1, kernel, borderType=cv2.BORDER_CONSTANT)


def add_glare(image: np.ndarray, rng: np.random.Generator, strength: float) -> np.ndarray:
    """A soft bright patch, as a lamp reflected in glossy cards or a varnished table."""
    h, w = image.shape[:2]
    scale = 8  # a glare patch has no detail: draw it small, then enlarge
    small = np.zeros((max(1, h // scale), max(1, w // scale)), np.float32)
    centre = (int(rng.uniform(0, small.shape[1])), int(rng.uniform(0, small.shape[0])))
    radius = rng.uniform(0.04, 0.2) * small.shape[1]
    axes = (max(1, int(radius)), max(1, int(radius * rng.uniform(0.3, 1.0))))
    cv2.ellipse(small, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    small = cv2.GaussianBlur(small, (0, 0), max(radius * 0.5, 1.0))
    if small.max() > 0:
        small = small / small.max()
    glare = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    lift = (glare * (strength * 255.0)).astype(np.uint8)
    return cv2.add(image, cv2.merge([lift, lift, lift]))


def cast_shadow(image: np.ndarray, rng: np.random.Generator, depth: float) -> np.ndarray:
    """The shadow of someone leaning over the table to take the photo: a head and shoulders
    reaching in from one edge, soft-edged, taking `depth` of the light where it is darkest.
    Real deal photos are often half in such a shadow, with indices on both sides of its edge."""
    h, w = image.shape[:2]
    scale = 8  # a shadow has no detail: draw it small, then enlarge
    small = np.zeros((max(1, h // scale), max(1, w // scale)), np.float32)
    sh, sw = small.shape
    diagonal = float(np.hypot(sw, sh))
    inward = rng.uniform(0, 2 * np.pi)
    direction = np.array([np.cos(inward), np.sin(inward)])
    across = np.array([-direction[1], direction[0]]) * rng.uniform(-0.3, 0.3) * diagonal
    outside = np.array([sw / 2, sh / 2]) - direction * diagonal * 0.6 + across
    head = outside + direction * diagonal * rng.uniform(0.4, 0.8)  # how far in it comes
    size = rng.uniform(0.1, 0.22) * diagonal
    cv2.line(small, _point(outside), _point(head), 1.0, max(1, int(size * 1.4)))
    cv2.circle(small, _point(head), max(1, int(size * 0.7)), 1.0, -1)
    softness = rng.uniform(0.01, 0.06) * max(sw, sh)
    small = cv2.GaussianBlur(small, (0, 0), max(softness, 0.5))
    mask = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    # Shade is lit by the sky or the room rather than the lamp: a little cooler.
    tint = np.array([1.0, 1.0, 1.0 - rng.uniform(0.0, 0.15)], np.float32) * depth
    keep = 1.0 - mask[..., None] * tint
    return np.clip(image.astype(np.float32) * keep, 0, 255).astype(np.uint8)


def _point(xy: np.ndarray) -> tuple[int, int]:
    return round(float(xy[0])), round(float(xy[1]))


def defocus(image: np.ndarray, sigma: float) -> np.ndarray:
    """Slightly out-of-focus optics."""
    return cv2.GaussianBlur(image, (0, 0), sigma)
