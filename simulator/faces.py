"""Card face designs: the built-in design drawn by code, and the loader for deck folders.

A design holds 52 BGRA face images, all at `FACE_PX_PER_MM` resolution (252 x 352 px for a
63 x 88 mm card), plus where its corner indices lie, which the training labels need.
A deck folder is laid out like ../shared/decks/<split>/<design>/: `<RANK><SUIT>.png`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from simulator.errors import DesignError
from simulator.glyphs import paint_mask, suit_mask, text_mask
from simulator.index_finder import find_index_boxes
from simulator.scene import CARD_HEIGHT_MM, CARD_WIDTH_MM

logger = logging.getLogger(__name__)

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
ALL_CARDS = tuple(rank + suit for suit in SUITS for rank in RANKS)

FACE_PX_PER_MM = 4.0
"""Resolution faces and backs are stored at; sprites are reduced from it for each camera."""
FACE_SIZE = (round(CARD_WIDTH_MM * FACE_PX_PER_MM), round(CARD_HEIGHT_MM * FACE_PX_PER_MM))
CORNER_RADIUS_MM = 3.0
CARD_STOCK_BGR = (244, 248, 250)
CARD_EDGE_BGR = (170, 170, 170)
RED_BGR = (38, 22, 205)
BLACK_BGR = (25, 22, 22)

# Built-in layout, millimetres on the 63 x 88 card. Jumbo indices, legible at ~50 px card width;
# the suit sits beside the rank so that a work pile fanned 19 mm apart still shows whole indices.
INDEX_RANK_BOX_MM = (1.2, 2.0, 13.5, 17.5)
INDEX_SUIT_BOX_MM = (14.0, 4.0, 24.5, 15.0)
PIP_SIZE_MM = (10.0, 11.0)
PIP_COLUMNS_MM = (21.0, 31.5, 42.0)
PIP_ROWS_MM = (21.5, 66.5)
ACE_PIP_MM = (26.0, 29.0)
COURT_FRAME_MM = (12.0, 19.0, 51.0, 69.0)
COURT_LETTER_HEIGHT_MM = 24.0

FACE_SIDE_MIN_PX = 32
"""A card's picture narrower than this shows no index to draw (the published designs' smallest,
pysol's tiny ones, are 42 px wide)."""
FACE_ASPECT_RANGE = (0.5, 0.9)
"""A card picture's width over its height: upright, about 5:7 (the designs' run from 0.60 to
0.75); outside this it is no card picture (a sideways scan, a strip, a speck)."""
DEFAULT_INDEX_BOX = (0.0, 0.0, 0.22, 0.31)
"""Where a deck folder's top-left index lies, as fractions of card width and height (typical)."""

# Pip layouts: (column 0..2, row fraction 0..1 from top to bottom of the pip area).
_L, _M, _R = 0, 1, 2
_SIDES = [(_L, 0.0), (_R, 0.0), (_L, 1.0), (_R, 1.0)]
_SIX = [*_SIDES, (_L, 0.5), (_R, 0.5)]
_NINE_SIDES = [(c, r) for r in (0.0, 1 / 3, 2 / 3, 1.0) for c in (_L, _R)]
PIP_LAYOUTS: dict[str, list[tuple[int, float]]] = {
    "2": [(_M, 0.0), (_M, 1.0)],
    "3": [(_M, 0.0), (_M, 0.5), (_M, 1.0)],
    "4": _SIDES,
    "5": [*_SIDES, (_M, 0.5)],
    "6": _SIX,
    "7": [*_SIX, (_M, 0.25)],
    "8": [*_SIX, (_M, 0.25), (_M, 0.75)],
    "9": [*_NINE_SIDES, (_M, 0.5)],
    "10": [*_NINE_SIDES, (_M, 1 / 6), (_M, 5 / 6)],
}


@dataclass(frozen=True, eq=False)
class CardDesign:
    """A face design: 52 BGRA images of FACE_SIZE and the corner-index boxes."""

    name: str
    faces: Mapping[str, np.ndarray]
    index_boxes: tuple[tuple[float, float, float, float], ...]
    """Corner indices as (x0, y0, x1, y1) fractions of the upright card: usually top-left and
    bottom-right, four corners for some designs (found per design by index_finder.py)."""


def is_red(card: str) -> bool:
    return card[-1] in "HD"


def _mm(value: float) -> int:
    return round(value * FACE_PX_PER_MM)


def rounded_card_alpha(width: int, height: int, radius: int) -> np.ndarray:
    """uint8 alpha of a card with rounded corners, anti-aliased."""
    scale = 4
    big = np.zeros((height * scale, width * scale), np.uint8)
    r = radius * scale
    cv2.rectangle(big, (r, 0), (width * scale - 1 - r, height * scale - 1), 255, -1)
    cv2.rectangle(big, (0, r), (width * scale - 1, height * scale - 1 - r), 255, -1)
    for cx in (r, width * scale - 1 - r):
        for cy in (r, height * scale - 1 - r):
            cv2.circle(big, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return cv2.resize(big, (width, height), interpolation=cv2.INTER_AREA)


@lru_cache(maxsize=1)
def blank_card() -> np.ndarray:
    """White card stock with rounded corners and a faint edge line (BGRA, FACE_SIZE)."""
    width, height = FACE_SIZE
    card = np.zeros((height, width, 4), np.uint8)
    card[..., :3] = CARD_STOCK_BGR
    radius = _mm(CORNER_RADIUS_MM)
    edge = rounded_card_alpha(width, height, radius)
    inner = cv2.erode(edge, np.ones((3, 3), np.uint8))
    ring = (edge.astype(np.float32) - inner.astype(np.float32)).clip(0, 255) / 255.0
    paint_mask(card, ring, 0, 0, CARD_EDGE_BGR)
    card[..., 3] = edge
    card.flags.writeable = False
    return card


def _paint_box(
    face: np.ndarray,
    mask: np.ndarray,
    box_mm: tuple[float, float, float, float],
    colour: tuple[int, int, int],
    upside_down: bool = False,
) -> None:
    x0, y0 = _mm(box_mm[0]), _mm(box_mm[1])
    if upside_down:
        mask = mask[::-1, ::-1]
        x0 = FACE_SIZE[0] - x0 - mask.shape[1]
        y0 = FACE_SIZE[1] - y0 - mask.shape[0]
    paint_mask(face, mask, x0, y0, colour)


def _centred_box(cx: float, cy: float, w: float, h: float) -> tuple[float, float, float, float]:
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def draw_builtin_face(card: str) -> np.ndarray:
    """One face of the built-in design: jumbo corner indices, pips or a framed court letter."""
    rank, suit = card[:-1], card[-1]
    colour = RED_BGR if is_red(card) else BLACK_BGR
    face = blank_card().copy()
    rx0, ry0, rx1, ry1 = INDEX_RANK_BOX_MM
    sx0, sy0, sx1, sy1 = INDEX_SUIT_BOX_MM
    rank_mask = text_mask(rank, _mm(rx1 - rx0), _mm(ry1 - ry0))
    small_suit = suit_mask(suit, _mm(sx1 - sx0), _mm(sy1 - sy0))
    for upside_down in (False, True):
        _paint_box(face, rank_mask, INDEX_RANK_BOX_MM, colour, upside_down)
        _paint_box(face, small_suit, INDEX_SUIT_BOX_MM, colour, upside_down)
    pip_w, pip_h = PIP_SIZE_MM
    pip = suit_mask(suit, _mm(pip_w), _mm(pip_h))
    if rank == "A":
        big = suit_mask(suit, _mm(ACE_PIP_MM[0]), _mm(ACE_PIP_MM[1]))
        box = _centred_box(CARD_WIDTH_MM / 2, CARD_HEIGHT_MM / 2, *ACE_PIP_MM)
        _paint_box(face, big, box, colour)
    elif rank in PIP_LAYOUTS:
        top, bottom = PIP_ROWS_MM
        for column, row in PIP_LAYOUTS[rank]:
            cy = top + row * (bottom - top)
            box = _centred_box(PIP_COLUMNS_MM[column], cy, pip_w, pip_h)
            # Pips in the lower half point down, as on printed cards.
            flip = cy > CARD_HEIGHT_MM / 2 + 1
            _paint_box(face, pip[::-1, ::-1] if flip else pip, box, colour)
    else:
        _draw_court(face, rank, suit, colour)
    face.flags.writeable = False
    return face


def _draw_court(face: np.ndarray, rank: str, suit: str, colour: tuple[int, int, int]) -> None:
    fx0, fy0, fx1, fy1 = (_mm(v) for v in COURT_FRAME_MM)
    tint = tuple(int(255 - (255 - c) * 0.18) for c in colour)
    cv2.rectangle(face, (fx0, fy0), (fx1, fy1), (*tint, 255), -1)
    cv2.rectangle(face, (fx0, fy0), (fx1, fy1), (*colour, 255), _mm(0.8))
    letter_w = COURT_FRAME_MM[2] - COURT_FRAME_MM[0] - 8.0
    letter = text_mask(rank, _mm(letter_w), _mm(COURT_LETTER_HEIGHT_MM))
    box = _centred_box(CARD_WIDTH_MM / 2, CARD_HEIGHT_MM / 2, letter_w, COURT_LETTER_HEIGHT_MM)
    _paint_box(face, letter, box, colour)
    pip = suit_mask(suit, _mm(8.0), _mm(9.0))
    _paint_box(face, pip, (COURT_FRAME_MM[0] + 2, COURT_FRAME_MM[1] + 2, 0, 0), colour)
    _paint_box(face, pip, (COURT_FRAME_MM[0] + 2, COURT_FRAME_MM[1] + 2, 0, 0), colour, True)


@lru_cache(maxsize=1)
def builtin_design() -> CardDesign:
    """The project's own card design, drawn by code: no assets needed."""
    faces = {card: draw_builtin_face(card) for card in ALL_CARDS}
    left = (INDEX_RANK_BOX_MM[0] - 1.0) / CARD_WIDTH_MM
    top = (INDEX_RANK_BOX_MM[1] - 1.0) / CARD_HEIGHT_MM
    right = (INDEX_SUIT_BOX_MM[2] + 1.0) / CARD_WIDTH_MM
    bottom = (INDEX_RANK_BOX_MM[3] + 1.0) / CARD_HEIGHT_MM
    return CardDesign("builtin", faces, _with_rotated_copy((left, top, right, bottom)))


def _with_rotated_copy(
    box: tuple[float, float, float, float],
) -> tuple[tuple[float, float, float, float], ...]:
    x0, y0, x1, y1 = box
    return (box, (1.0 - x1, 1.0 - y1, 1.0 - x0, 1.0 - y0))


def read_bgra(path: Path, size: tuple[int, int] | None = None) -> np.ndarray:
    """Read a PNG/JPEG as BGRA, resized to `size` if given; opaque if the file has no alpha."""
    try:
        image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    except cv2.error as error:  # more pixels than OPENCV_IO_MAX_IMAGE_PIXELS lets it decode
        reason = str(error).strip().splitlines()[-1]
        raise DesignError(f"cannot read image {path}: {reason}") from None
    if image is None:
        raise DesignError(f"cannot read image {path}")
    if image.dtype == np.uint16:
        # Sprites and alpha thresholds work in 0..255; the high byte gives back exactly the
        # 8-bit values that a tool widened to 16 bits (x 257).
        image = np.right_shift(image, 8).astype(np.uint8)
    elif image.dtype != np.uint8:
        raise DesignError(f"image {path} has {image.dtype} samples; expected 8- or 16-bit")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGRA)
    elif image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    return image if size is None else resized_to(image, size)


def resized_to(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A read-only copy of `image` at `size` (width, height), area-averaged when shrinking."""
    shrinking = image.shape[1] >= size[0]
    interpolation = cv2.INTER_AREA if shrinking else cv2.INTER_CUBIC
    resized = cv2.resize(image, size, interpolation=interpolation)
    resized.flags.writeable = False
    return resized


MISSING_NAMED_MAX = 8
"""Missing card files named in a deck folder's error: the rest are counted."""
_NAMED_HOW = " (each named <RANK><SUIT>.png, e.g. AS.png, 10H.png)"


def _face(path: Path) -> np.ndarray:
    """A card's picture at `FACE_SIZE`; a `DesignError` where it is not card-shaped."""
    image = read_bgra(path)
    height, width = image.shape[:2]
    low, high = FACE_ASPECT_RANGE
    if width < FACE_SIDE_MIN_PX or not low <= width / height <= high:
        raise DesignError(
            f"{path} is {width}x{height} px: a card's picture is upright, about 5:7 (its width "
            f"{low:g} to {high:g} of its height) and at least {FACE_SIDE_MIN_PX} px wide"
        )
    return resized_to(image, FACE_SIZE)


def load_design(folder: Path) -> CardDesign:
    """Load a deck folder (`<RANK><SUIT>.png` for all 52 cards); names the missing files."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise FileNotFoundError(
            f"{folder} is a file, not a deck folder (a folder of the 52 cards' pictures, "
            "AS.png to KC.png)"
        )
    if not folder.is_dir():
        raise FileNotFoundError(f"deck folder not found: {folder}")
    absent = [card for card in ALL_CARDS if not (folder / f"{card}.png").is_file()]
    if absent:
        missing = [f"{card}.png" for card in absent]
        named = {path.name.upper() for path in folder.iterdir()}
        # A folder of "as.png" or "AS.jpg": the cards are there, named otherwise.
        otherwise = any(f"{card}.PNG" in named or f"{card}.JPG" in named for card in absent)
        hint = (
            " (the cards are there under other names or as JPEG: each must be <RANK><SUIT>.png, "
            "in capitals, e.g. AS.png, 10H.png)"
            if otherwise
            else ""
        )
        if len(missing) == len(ALL_CARDS):
            raise FileNotFoundError(
                f"deck folder {folder} holds none of the 52 card images{hint or _NAMED_HOW}"
            )
        listed = ", ".join(missing[:MISSING_NAMED_MAX])
        more = len(missing) - MISSING_NAMED_MAX
        listed += f" and {more} more" if more > 0 else ""
        raise FileNotFoundError(f"deck folder {folder} is missing {listed}{hint}")
    faces = {card: _face(folder / f"{card}.png") for card in ALL_CARDS}
    index_boxes = find_index_boxes(faces)
    if index_boxes is None:
        logger.info("deck %s: corner indices not found, assuming the usual place", folder.name)
        index_boxes = _with_rotated_copy(DEFAULT_INDEX_BOX)
    return CardDesign(folder.name, faces, index_boxes)
