"""Card designs drawn from a seed: many fonts, index layouts and suit colours for training.

The published designs in `decks/train` share a handful of typefaces, so a classifier trained on
them alone learns those typefaces' shapes; a clear "4" of an unseen design was read as a 6 or 8.
Procedural designs vary exactly what differs between real decks (typeface, stroke weight, index
size and place, suit beside or under the rank, two- or four-colour suits, card stock) so that
what stays constant is the rank and the suit's shape. `procedural_design` draws with OpenCV's
Hershey faces: no font files, the same on every machine. `truetype_design` draws the same kinds
of layout with real typefaces and suit symbols (`simulator/typefaces.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from simulator.faces import (
    ALL_CARDS,
    FACE_PX_PER_MM,
    FACE_SIZE,
    PIP_LAYOUTS,
    CardDesign,
    blank_card,
)
from simulator.glyphs import paint_mask, suit_mask, text_mask
from simulator.scene import CARD_HEIGHT_MM, CARD_WIDTH_MM
from simulator.typefaces import RANK_TYPEFACES, SUIT_TYPEFACES, suit_glyph_mask, truetype_mask

HERSHEY_FACES = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)
ITALIC_SHARE = 0.2
FOUR_COLOUR_SHARE = 0.25
"""Share of designs that paint diamonds and clubs in their own colours (as some decks do)."""
RED_INKS = ((38, 22, 205), (40, 40, 180), (60, 30, 220), (30, 60, 200), (80, 60, 200))
DARK_INKS = ((25, 22, 22), (60, 40, 30), (40, 40, 40), (70, 30, 20))
DIAMOND_INKS = ((200, 80, 30), (0, 170, 230), (0, 120, 240))
CLUB_INKS = ((40, 140, 20), (90, 150, 0))
STOCKS = ((244, 248, 250), (225, 240, 248), (235, 235, 235), (250, 250, 250))
GEOMETRIC_SUIT_SHARE = 0.25
"""Share of TrueType designs that keep the drawn geometric suits instead of a face's symbols."""
EMBOLDENED_SHARE = 0.3
"""Share of TrueType designs whose strokes are thickened, up to `MAX_EMBOLDENING` of a glyph."""
MAX_EMBOLDENING = 0.035
BITMAP_SHARE = 0.15
"""Share of TrueType designs drawn as bitmaps: ranks drawn at a font size of `BITMAP_SIZES`
pixels (a digit takes about two thirds of it) and enlarged in blocks, like low-resolution and
pixel-art decks (added for round 12 of the classifier)."""
BITMAP_SIZES = (10, 17)
PALE_SHARE = 0.15
"""Share of TrueType designs printed in pale inks (pastel four-colour decks, faded prints): each
ink moved `PALE_FADE` of the way to white, so an index stands out less from the card stock
(added for round 13 of the classifier)."""
PALE_FADE = (0.3, 0.55)
OUTLINED_SHARE = 0.2
"""Share of smooth (not bitmap) TrueType designs whose indices are outlined: each glyph's
edge, `OUTLINE_MM` thick, in the ink, its inside the ink faded `OUTLINE_FILL_FADE` of the way
to white (embossed, bevelled and hollow lettering). Added for round 17 of the classifier,
after GNOME tango's bevelled val indices were misread (its clubs as spades, a 9 as a 10)."""
OUTLINE_MM = (0.3, 0.7)
OUTLINE_FILL_FADE = (0.2, 0.9)
BOLD_BITMAP_SHARE = 0.5
"""Share of bitmap designs drawn with strokes a pixel thicker, as pixel-art decks print bold
blocky digits (added for round 17, after pysol sylly's val 2s read as 8s and 5s as 6s)."""


@dataclass(frozen=True)
class IndexStyle:
    """How one procedural design draws its corner index, in millimetres."""

    font: int
    stroke: float
    rank_box: tuple[float, float, float, float]
    suit_box: tuple[float, float, float, float]
    inks: dict[str, tuple[int, int, int]]
    stock: tuple[int, int, int]
    typeface: str | None = None
    """A TrueType file (`typefaces.RANK_TYPEFACES`) for the ranks; None: the Hershey `font`."""
    suit_typeface: str | None = None
    """A TrueType file for the suits; None: the geometric suits of `glyphs.suit_mask`."""
    emboldening: float = 0.0
    bitmap_size: int = 0
    """Ranks drawn at this font size in pixels and enlarged in blocks; 0: smooth."""
    bold_bitmap: bool = False
    """Bitmap ranks drawn with strokes a pixel thicker."""
    outline_mm: float = 0.0
    """Index glyphs outlined this thick, filled with the ink faded `outline_fill_fade`."""
    outline_fill_fade: float = 0.0


def _style(rng: np.random.Generator) -> IndexStyle:
    font = int(rng.choice(HERSHEY_FACES)) | (cv2.FONT_ITALIC if rng.random() < ITALIC_SHARE else 0)
    left, top = rng.uniform(1.5, 4.5), rng.uniform(2.0, 5.0)
    rank_w, rank_h = rng.uniform(5.5, 11.0), rng.uniform(7.0, 14.0)
    suit_side = rng.uniform(4.5, min(9.0, rank_w + 2.0))
    if rng.random() < 0.75:  # suit under the rank, the usual place
        x = left + (rank_w - suit_side) / 2
        suit_box = (x, top + rank_h + 1.0, x + suit_side, top + rank_h + 1.0 + suit_side)
    else:
        suit_box = (left + rank_w + 0.8, top + 1.5, left + rank_w + 0.8 + suit_side,
                    top + 1.5 + suit_side)  # fmt: skip
    red, dark = RED_INKS[rng.integers(len(RED_INKS))], DARK_INKS[rng.integers(len(DARK_INKS))]
    inks = {"H": red, "D": red, "S": dark, "C": dark}
    if rng.random() < FOUR_COLOUR_SHARE:
        inks["D"] = DIAMOND_INKS[rng.integers(len(DIAMOND_INKS))]
        inks["C"] = CLUB_INKS[rng.integers(len(CLUB_INKS))]
    return IndexStyle(
        font,
        float(rng.uniform(0.6, 2.8)),
        (left, top, left + rank_w, top + rank_h),
        suit_box,
        inks,
        STOCKS[rng.integers(len(STOCKS))],
    )


def _px(mm: float) -> int:
    return max(1, round(mm * FACE_PX_PER_MM))


def _paint(
    face: np.ndarray, mask: np.ndarray, x0_mm: float, y0_mm: float, ink: tuple[int, int, int]
) -> None:
    """Paints a mask at a top-left corner and, turned half a turn, at the opposite corner."""
    x0, y0 = _px(x0_mm), _px(y0_mm)
    paint_mask(face, mask, x0, y0, ink)
    turned = mask[::-1, ::-1]
    paint_mask(
        face, turned, FACE_SIZE[0] - x0 - mask.shape[1], FACE_SIZE[1] - y0 - mask.shape[0], ink
    )


def _paint_index(
    face: np.ndarray,
    mask: np.ndarray,
    at_mm: tuple[float, float],
    style: IndexStyle,
    ink: tuple[int, int, int],
) -> None:
    """Paints an index glyph as `_paint` does at `at_mm` (top left), outlined if the style
    says so."""
    if not style.outline_mm:
        _paint(face, mask, *at_mm, ink)
        return
    _paint(face, mask, *at_mm, _faded(ink, style.outline_fill_fade))
    side = 2 * _px(style.outline_mm) + 1
    inside = cv2.erode(mask, np.ones((side, side), np.uint8))
    _paint(face, np.clip(mask - inside, 0.0, 1.0), *at_mm, ink)


def _rank_mask(rank: str, width: int, height: int, style: IndexStyle) -> np.ndarray:
    if style.typeface is None:
        return text_mask(rank, width, height, style.font, style.stroke)
    return truetype_mask(
        rank,
        width,
        height,
        style.typeface,
        emboldening=style.emboldening,
        bitmap_size=style.bitmap_size,
        bold_bitmap=style.bold_bitmap,
    )


def _suit_mask(suit: str, width: int, height: int, style: IndexStyle) -> np.ndarray:
    if style.suit_typeface is None:
        return suit_mask(suit, width, height)
    return suit_glyph_mask(suit, width, height, style.suit_typeface)


def _face(card: str, style: IndexStyle) -> np.ndarray:
    rank, suit = card[:-1], card[-1]
    ink = style.inks[suit]
    face = blank_card().copy()
    face[..., :3] = np.where(face[..., 3:] > 0, np.array(style.stock, np.uint8), face[..., :3])
    rx0, ry0, rx1, ry1 = style.rank_box
    sx0, sy0, sx1, sy1 = style.suit_box
    _paint_index(
        face, _rank_mask(rank, _px(rx1 - rx0), _px(ry1 - ry0), style), (rx0, ry0), style, ink
    )
    _paint_index(
        face, _suit_mask(suit, _px(sx1 - sx0), _px(sy1 - sy0), style), (sx0, sy0), style, ink
    )
    centre_top, centre_bottom = max(ry1, sy1) + 3.0, CARD_HEIGHT_MM - max(ry1, sy1) - 3.0
    pip_w = min(10.0, (CARD_WIDTH_MM - 2 * max(rx1, sx1)) / 3)
    pip = _suit_mask(suit, _px(pip_w), _px(pip_w * 1.1), style)
    if rank in PIP_LAYOUTS:
        columns = (
            CARD_WIDTH_MM / 2 - pip_w * 1.1,
            CARD_WIDTH_MM / 2,
            CARD_WIDTH_MM / 2 + pip_w * 1.1,
        )
        for column, row in PIP_LAYOUTS[rank]:
            cy = centre_top + pip_w * 0.55 + row * (centre_bottom - centre_top - pip_w * 1.1)
            flipped = pip[::-1, ::-1] if cy > CARD_HEIGHT_MM / 2 + 1 else pip
            paint_mask(face, flipped, _px(columns[column] - pip_w / 2), _px(cy - pip_w * 0.55), ink)
    else:  # ace and courts: one large central symbol or letter
        big = (
            _suit_mask(suit, _px(22.0), _px(24.0), style)
            if rank == "A"
            else _rank_mask(rank, _px(26.0), _px(30.0), style)
        )
        paint_mask(
            face, big, (FACE_SIZE[0] - big.shape[1]) // 2, (FACE_SIZE[1] - big.shape[0]) // 2, ink
        )
    face.flags.writeable = False
    return face


def procedural_design(seed: int) -> CardDesign:
    """One design in a Hershey face, the same for the same seed."""
    return _design(f"procedural-{seed}", _style(np.random.default_rng(seed)))


def truetype_design(seed: int) -> CardDesign:
    """One design in a TrueType face, the same for the same seed (`typefaces.available()`
    must be True)."""
    rng = np.random.default_rng(seed)
    style = _style(rng)
    suits = rng.integers(len(SUIT_TYPEFACES))
    emboldening = rng.uniform(0.0, MAX_EMBOLDENING)
    style = replace(
        style,
        typeface=RANK_TYPEFACES[rng.integers(len(RANK_TYPEFACES))],
        suit_typeface=None if rng.random() < GEOMETRIC_SUIT_SHARE else SUIT_TYPEFACES[suits],
        emboldening=emboldening if rng.random() < EMBOLDENED_SHARE else 0.0,
    )
    # Drawn last, so that a seed's other choices are those it made before bitmaps existed.
    bitmap_size = int(rng.integers(*BITMAP_SIZES))
    if rng.random() < BITMAP_SHARE:
        style = replace(style, bitmap_size=bitmap_size)
    fade = rng.uniform(*PALE_FADE)
    if rng.random() < PALE_SHARE:
        style = replace(style, inks={suit: _faded(ink, fade) for suit, ink in style.inks.items()})
    # Drawn after the draws above, which old seeds made alike (see bitmaps).
    outline, fill_fade = rng.uniform(*OUTLINE_MM), rng.uniform(*OUTLINE_FILL_FADE)
    if rng.random() < OUTLINED_SHARE and not style.bitmap_size:  # blocks outlined are noise
        style = replace(style, outline_mm=outline, outline_fill_fade=fill_fade)
    if rng.random() < BOLD_BITMAP_SHARE:
        style = replace(style, bold_bitmap=True)
    return _design(f"truetype-{seed}", style)


def _faded(ink: tuple[int, int, int], share: float) -> tuple[int, int, int]:
    blue, green, red = (round(channel + (255 - channel) * share) for channel in ink)
    return blue, green, red


def _design(name: str, style: IndexStyle) -> CardDesign:
    faces = {card: _face(card, style) for card in ALL_CARDS}
    x1 = max(style.rank_box[2], style.suit_box[2]) + 1.0
    y1 = max(style.rank_box[3], style.suit_box[3]) + 1.0
    box = (
        max(0.0, style.rank_box[0] - 1.0) / CARD_WIDTH_MM,
        max(0.0, style.rank_box[1] - 1.0) / CARD_HEIGHT_MM,
        x1 / CARD_WIDTH_MM,
        y1 / CARD_HEIGHT_MM,
    )
    opposite = (1.0 - box[2], 1.0 - box[3], 1.0 - box[0], 1.0 - box[1])
    return CardDesign(name, faces, (box, opposite))
