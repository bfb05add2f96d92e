"""Reading photos for the vision commands, with errors that name the file."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from nerts.errors import UserError, make_folder

MAX_MEGAPIXELS = 64
"""Larger photos are refused: the commands are made for 1-24 megapixel camera photos, and
decoding much larger ones takes gigabytes (a 64 MP photo is 192 MB as pixels, and the
detectors' letterboxes and tiles copy it) for no gain, as the models look at it shrunk."""
MIN_SIDE_PX = 32
"""Photos narrower or lower than this hold no card the models could find (cards are found
from about 50 px long); refused with a clear message."""


def read_photo(path: Path) -> np.ndarray:
    if path.is_dir():
        raise UserError(f"{path} is a folder: give the photos in it, e.g. {path / '*.jpg'}")
    if not path.is_file():
        found = path.exists()
        raise UserError(f"{path} is not a regular file" if found else f"image not found: {path}")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise UserError(f"cannot read image {path} (not a picture OpenCV can decode)")
    height, width = image.shape[:2]
    if min(height, width) < MIN_SIDE_PX:
        raise UserError(
            f"image {path} is {width} x {height} pixels: too small to show a card "
            f"(at least {MIN_SIDE_PX} each way)"
        )
    if _cut_short(path, image):
        raise UserError(
            f"image {path} is cut short: its last rows are the grey a JPEG decoder puts where "
            "data is missing (copy the file again)"
        )
    if height * width > MAX_MEGAPIXELS * 1_000_000:
        raise UserError(f"image {path} is larger than {MAX_MEGAPIXELS} megapixels")
    return image


JPEG_MISSING_GREY = 128
"""What libjpeg paints every pixel of a truncated JPEG's missing part (OpenCV only warns)."""
CUT_SHORT_ROWS = 8
"""Bottom rows of exactly that grey, one block high, that mark a JPEG as cut short: a real
photo's rows always vary, so the check costs no true photo."""


def _cut_short(path: Path, image: np.ndarray) -> bool:
    with path.open("rb") as handle:
        if handle.read(2) != b"\xff\xd8":  # not a JPEG
            return False
    return bool((image[-CUT_SHORT_ROWS:] == JPEG_MISSING_GREY).all())


def picture_path(text: str) -> Path:
    """An --annotate argument: a path OpenCV can write a picture to, told by its extension
    (checked before any photo is read, so a mistyped name costs no work)."""
    if not cv2.haveImageWriter(text):
        raise argparse.ArgumentTypeError(f"cannot write a picture to {text!r}: name a .png or .jpg")
    return Path(text)


def write_annotated(path: Path, image: np.ndarray) -> None:
    make_folder(path.parent)
    try:
        written = cv2.imwrite(str(path), image)
    except cv2.error as error:
        raise UserError(f"cannot write {path}: {error}") from None
    if not written:
        raise UserError(f"cannot write {path}")
