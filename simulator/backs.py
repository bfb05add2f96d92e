"""Card backs: built-in colour + pattern backs, or an image file.

Seats must be told apart by their backs when the round's foundation cards are counted, so the
built-in backs differ in colour AND pattern: two blue backs of different patterns still differ.
A spec is a colour name ("red"), a hex colour ("#2040a0"), either with a pattern
("blue:dots"), or a path to an image.

An image is either a whole printed back or only the pattern printed on one. Design files often
sit on a transparent canvas larger than the card, so the image is first cut to its opaque part.
What is left is a whole back when it is card-shaped and opaque; otherwise (the GNOME bellot
backs are white rings on nothing) it is a pattern, tiled over a coloured ground on card stock:
a card is never see-through.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from simulator.errors import DesignError
from simulator.faces import (
    CORNER_RADIUS_MM,
    FACE_PX_PER_MM,
    FACE_SIZE,
    read_bgra,
    resized_to,
    rounded_card_alpha,
)

NAMED_COLOURS_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 30, 190),
    "blue": (170, 80, 25),
    "green": (50, 130, 30),
    "black": (35, 35, 35),
    "purple": (130, 40, 110),
    "orange": (20, 120, 235),
    "teal": (130, 130, 20),
    "brown": (30, 65, 120),
    "yellow": (30, 200, 230),
    "navy": (100, 40, 10),
    "maroon": (40, 20, 120),
    "gray": (120, 120, 120),
    "grey": (120, 120, 120),
    "pink": (170, 120, 235),
}
PATTERNS = ("lattice", "dots", "stripes", "checks", "rings", "waves")
DEFAULT_BACKS = (
    ("red", "lattice"),
    ("blue", "dots"),
    ("green", "stripes"),
    ("black", "checks"),
    ("purple", "rings"),
    ("orange", "waves"),
    ("teal", "lattice"),
    ("brown", "dots"),
)
"""Seat order of the default backs: distinct colour and pattern for up to 8 seats."""
BORDER_MM = 3.5
"""White margin around the printed back, as on real cards."""
PATTERN_PITCH_MM = 6.5
"""Repeat distance of the back pattern; fine enough to read as texture, coarse enough to see."""
PATTERN_LIGHTEN = 0.55
"""How far pattern strokes are lightened toward white (0 = same colour, 1 = white)."""
OPAQUE_ALPHA = 128
"""Alpha (0-255) from which a pixel of a back image counts as printed."""
BACK_IMAGE_SIDE_MIN_PX = 8
"""A back image smaller than this either way is no pattern (a speck): printed, it is a plain
colour."""
WHOLE_BACK_ASPECT = (1.25, 1.6)
"""Height over width of an image that is a whole back; real backs are about 1.4."""
WHOLE_BACK_OPAQUE_SHARE = 0.9
"""Share of a whole back's bounding box that is opaque (only the rounded corners are not)."""


@dataclass(frozen=True, eq=False)
class BackDesign:
    """A back: its name (written as `back` in truth.jsonl round_start) and a BGRA image."""

    name: str
    image: np.ndarray

    def printed(self) -> np.ndarray:
        """The design as a BGR picture of the back, its see-through parts white: the design
        file a player gives `nerts count` as the back's reference."""
        alpha = self.image[:, :, 3:4].astype(np.float32) / 255
        return (self.image[:, :, :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)


def _parse_colour(text: str) -> tuple[int, int, int] | None:
    text = text.strip().lower()
    if text in NAMED_COLOURS_BGR:
        return NAMED_COLOURS_BGR[text]
    if text.startswith("#") and len(text) == 7:
        try:
            r, g, b = (int(text[i : i + 2], 16) for i in (1, 3, 5))
        except ValueError:
            return None
        return (b, g, r)
    return None


def _pattern_mask(pattern: str, width: int, height: int) -> np.ndarray:
    """uint8 mask (255 = stroke) of a repeating pattern."""
    pitch = PATTERN_PITCH_MM * FACE_PX_PER_MM
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    stroke = 0.18
    if pattern == "lattice":
        a = np.abs(((xx + yy) / pitch) % 1.0 - 0.5) < stroke / 2 + 0.02
        b = np.abs(((xx - yy) / pitch) % 1.0 - 0.5) < stroke / 2 + 0.02
        mask = a | b
    elif pattern == "dots":
        dx = (xx / pitch) % 1.0 - 0.5
        dy = (yy / pitch) % 1.0 - 0.5
        mask = dx * dx + dy * dy < 0.28**2
    elif pattern == "stripes":
        mask = ((xx + 0.5 * yy) / pitch) % 1.0 < 0.4
    elif pattern == "checks":
        mask = ((xx // pitch + yy // pitch) % 2) == 0
    elif pattern == "rings":
        r = np.hypot(xx - width / 2, yy - height / 2) / pitch
        mask = (r % 1.0) < 0.35
    elif pattern == "waves":
        mask = (((yy + 0.35 * pitch * np.sin(xx / pitch * 2 * np.pi)) / pitch) % 1.0) < 0.4
    else:
        raise DesignError(f"unknown back pattern {pattern!r}; choose from {', '.join(PATTERNS)}")
    return mask.astype(np.uint8) * 255


def pattern_back(name: str, colour_bgr: tuple[int, int, int], pattern: str) -> BackDesign:
    """A back printed in one colour with a lighter pattern inside a white border."""
    inner_w, inner_h = _inner_size()
    base = np.empty((inner_h, inner_w, 3), np.float32)
    base[:] = colour_bgr
    light = base + (255.0 - base) * PATTERN_LIGHTEN
    mask = cv2.GaussianBlur(_pattern_mask(pattern, inner_w, inner_h), (3, 3), 0)[..., None] / 255.0
    return _printed_back(name, base * (1 - mask) + light * mask, colour_bgr)


def _inner_size() -> tuple[int, int]:
    border = round(BORDER_MM * FACE_PX_PER_MM)
    return FACE_SIZE[0] - 2 * border, FACE_SIZE[1] - 2 * border


def _printed_back(name: str, inner: np.ndarray, edge_bgr: tuple[int, int, int]) -> BackDesign:
    """`inner` (BGR, `_inner_size()`) printed inside a white border on a rounded card."""
    width, height = FACE_SIZE
    image = np.zeros((height, width, 4), np.uint8)
    image[..., :3] = (250, 250, 250)
    border = round(BORDER_MM * FACE_PX_PER_MM)
    inner_h, inner_w = inner.shape[:2]
    image[border : border + inner_h, border : border + inner_w, :3] = (inner + 0.5).astype(np.uint8)
    cv2.rectangle(
        image,
        (border, border),
        (border + inner_w - 1, border + inner_h - 1),
        (*edge_bgr, 255),
        round(FACE_PX_PER_MM),
    )
    image[..., 3] = rounded_card_alpha(width, height, round(CORNER_RADIUS_MM * FACE_PX_PER_MM))
    image.flags.writeable = False
    return BackDesign(name, image)


def image_back(path: Path) -> BackDesign:
    """A back from an image file: a whole back, or a pattern to print on one (module notes)."""
    image = read_bgra(path)
    if min(image.shape[:2]) < BACK_IMAGE_SIDE_MIN_PX:
        raise DesignError(
            f"back image {path} is {image.shape[1]}x{image.shape[0]} px: too small to show a "
            f"back or its pattern (at least {BACK_IMAGE_SIDE_MIN_PX} px each way)"
        )
    opaque = image[..., 3] >= OPAQUE_ALPHA
    rows, columns = np.nonzero(opaque)
    if rows.size == 0:
        raise DesignError(f"back image {path} is wholly transparent")
    top, bottom, left, right = rows.min(), rows.max() + 1, columns.min(), columns.max() + 1
    printed = image[top:bottom, left:right]
    aspect = printed.shape[0] / printed.shape[1]
    low, high = WHOLE_BACK_ASPECT
    if low <= aspect <= high and opaque[top:bottom, left:right].mean() >= WHOLE_BACK_OPAQUE_SHARE:
        return BackDesign(path.stem, resized_to(printed, FACE_SIZE))
    return _pattern_on_ground(path.stem, image)


def _pattern_on_ground(name: str, pattern: np.ndarray) -> BackDesign:
    """A transparent pattern (BGRA) repeated down the back at the card's width, over a ground
    colour that the name picks, so the same file always makes the same back."""
    inner_w, inner_h = _inner_size()
    scaled_h = max(1, round(pattern.shape[0] * inner_w / pattern.shape[1]))
    tile = resized_to(pattern, (inner_w, scaled_h))
    tiled = np.tile(tile, (-(-inner_h // scaled_h), 1, 1))[:inner_h].astype(np.float32)
    ground_bgr = list(NAMED_COLOURS_BGR.values())[sum(map(ord, name)) % len(NAMED_COLOURS_BGR)]
    alpha = tiled[..., 3:] / 255.0
    inner = tiled[..., :3] * alpha + np.array(ground_bgr, np.float32) * (1 - alpha)
    return _printed_back(name, inner, ground_bgr)


def default_backs(n: int) -> list[BackDesign]:
    """Distinct built-in backs for n seats (colour and pattern both differ)."""
    if not 1 <= n <= len(DEFAULT_BACKS):
        raise ValueError(f"default backs exist for 1..{len(DEFAULT_BACKS)} seats, not {n}")
    return [
        pattern_back(colour, NAMED_COLOURS_BGR[colour], pattern)
        for colour, pattern in DEFAULT_BACKS[:n]
    ]


def back_from_spec(spec: str) -> BackDesign:
    """A back from "red", "#2040a0", "blue:dots" or an image path (name = file stem)."""
    colour_text, _, pattern = spec.partition(":")
    colour = _parse_colour(colour_text)
    if colour is not None:
        # One key for name, lookup and hash: specs naming the same colour are the same back.
        key = colour_text.strip().lower()
        if not pattern:
            known = dict(DEFAULT_BACKS)
            pattern = known.get(key, PATTERNS[sum(map(ord, key)) % len(PATTERNS)])
        return pattern_back(key, colour, pattern)
    path = Path(spec)
    if path.is_file():
        return image_back(path)
    raise DesignError(
        f"back {spec!r} is neither a colour ({', '.join(sorted(NAMED_COLOURS_BGR))}, "
        "#rrggbb, optionally ':pattern') nor an image file"
    )
