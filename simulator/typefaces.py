"""TrueType faces for procedural designs: real typefaces' digits and suit symbols.

OpenCV's Hershey faces are stroked outlines, unlike the printed indices of real decks; a
classifier that had seen only them and the train decks read an unseen serif 2 as an 8 and a 5
as a 6. These faces are the ones matplotlib ships (DejaVu, STIX, Computer Modern), so training
needs no font download and draws the same glyphs on every machine with the `train` extra;
matplotlib and pillow are ultralytics' own dependencies. Without them `available()` is False
and only the Hershey designs can be drawn.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np

from simulator.glyphs import SUPERSAMPLE, fit_ink, inked_part

RANK_TYPEFACES = (
    "DejaVuSans.ttf",
    "DejaVuSans-Bold.ttf",
    "DejaVuSans-Oblique.ttf",
    "DejaVuSans-BoldOblique.ttf",
    "DejaVuSansMono.ttf",
    "DejaVuSansMono-Bold.ttf",
    "DejaVuSerif.ttf",
    "DejaVuSerif-Bold.ttf",
    "DejaVuSerif-Italic.ttf",
    "DejaVuSerif-BoldItalic.ttf",
    "STIXGeneral.ttf",
    "STIXGeneralBol.ttf",
    "STIXGeneralItalic.ttf",
    "STIXGeneralBolIta.ttf",
    "cmr10.ttf",
    "cmb10.ttf",
    "cmss10.ttf",
    "cmtt10.ttf",
    "cmti10.ttf",
)
"""Faces with Latin digits and capitals at their usual code points."""
SUIT_TYPEFACES = ("DejaVuSans.ttf", "STIXGeneral.ttf")
"""Faces whose suit symbols differ in shape (DejaVu's faces share one set)."""
SUIT_CHARACTERS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
DRAW_PX = 48
"""Font size, in pixels, the faces are drawn at (times `SUPERSAMPLE`) before the fit to the
box: large enough that the reduction anti-aliases the edges."""


def available() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("PIL", "matplotlib"))


def _font_folder() -> Path:
    """matplotlib's bundled fonts, found without importing matplotlib (slow, and it writes a
    configuration folder)."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        raise RuntimeError("TrueType designs need matplotlib's fonts: pip install -e '.[train]'")
    return Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"


@lru_cache(maxsize=512)
def truetype_mask(
    text: str,
    width: int,
    height: int,
    typeface: str,
    *,
    emboldening: float = 0.0,
    bitmap_size: int = 0,
    bold_bitmap: bool = False,
) -> np.ndarray:
    """Mask of `text` in a TrueType face, filling the box like `glyphs.text_mask`;
    `emboldening` thickens strokes by that share of the glyph height. A `bitmap_size` draws
    the glyph at that font size in pixels without anti-aliasing and enlarges it in blocks, as
    bitmap-drawn and low-resolution decks print their indices; `bold_bitmap` thickens its
    strokes by a pixel."""
    from PIL import Image, ImageDraw, ImageFont  # noqa: PLC0415 (the train extra only)

    size = bitmap_size or DRAW_PX * SUPERSAMPLE
    font = ImageFont.truetype(str(_font_folder() / typeface), size)
    stroke = 1 if bitmap_size and bold_bitmap else round(emboldening * size)
    canvas = Image.new("L", (size * (len(text) + 1) + 4 * stroke, 2 * size + 4 * stroke), 0)
    draw = ImageDraw.Draw(canvas)
    if bitmap_size:
        draw.fontmode = "1"
    draw.text(
        (2 * stroke, 2 * stroke), text, font=font, fill=255, stroke_width=stroke, stroke_fill=255
    )
    drawn = np.asarray(canvas)
    if bitmap_size:
        blocks = DRAW_PX * SUPERSAMPLE // bitmap_size
        drawn = np.kron(inked_part(drawn), np.ones((blocks, blocks), np.uint8))
    return fit_ink(drawn, width, height)


def suit_glyph_mask(suit: str, width: int, height: int, typeface: str) -> np.ndarray:
    return truetype_mask(SUIT_CHARACTERS[suit], width, height, typeface)
