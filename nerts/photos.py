"""Reading photos for the vision commands, with errors that name the file."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import cv2
import numpy as np

from nerts.errors import UserError, make_folder
from nerts.limits import DECODE_PIXELS_MAX, MAX_MEGAPIXELS

MIN_SIDE_PX = 32
"""Photos narrower or lower than this hold no card the models could find (cards are found
from about 50 px long); refused with a clear message."""


def check_photo(path: Path) -> None:
    """A `UserError` unless `path` is a file of a kind OpenCV decodes (told from its first
    bytes, without decoding it): every photo is checked before the first is worked on."""
    if path.is_dir():
        raise UserError(f"{path} is a folder: give the photos in it, e.g. {path / '*.jpg'}")
    if not path.is_file():
        found = path.exists()
        raise UserError(f"{path} is not a regular file" if found else f"image not found: {path}")
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        raise UserError(f"cannot read image {path}: {error.strerror or error}") from None
    if not cv2.haveImageReader(str(path)):
        raise UserError(f"cannot read image {path} (not a picture OpenCV can decode)")


def _decode(path: Path) -> np.ndarray | None:
    """`cv2.imread` in colour, None where it cannot decode the file; a `UserError` for a
    picture larger than the commands take, which OpenCV refuses by raising."""
    try:
        return cv2.imread(str(path), cv2.IMREAD_COLOR)
    except cv2.error as error:
        if "CV_IO_MAX_IMAGE_PIXELS" in str(error):
            raise UserError(f"image {path} is larger than {MAX_MEGAPIXELS} megapixels") from None
        raise UserError(
            f"cannot read image {path}: {str(error).strip().splitlines()[-1]}"
        ) from None


def read_photo(path: Path) -> np.ndarray:
    check_photo(path)
    image = _decode(path)
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
    if height * width > DECODE_PIXELS_MAX:
        raise UserError(f"image {path} is larger than {MAX_MEGAPIXELS} megapixels")
    return image


JPEG_MISSING_GREY = 128
"""What libjpeg paints every pixel of a truncated JPEG's missing part (OpenCV only warns)."""
CUT_SHORT_ROWS = 8
"""Bottom rows of exactly that grey, one block high, that mark a JPEG as cut short."""
JPEG_END = b"\xff\xd9"
"""The marker a whole JPEG ends with (before any padding of zeros)."""
JPEG_TAIL_BYTES = 64


def _cut_short(path: Path, image: np.ndarray) -> bool:
    """A JPEG that does not end with its end marker and whose last rows are the decoder's
    grey; a whole photo padded with that grey is not taken for one cut short. (Some cameras
    append data after the marker; their photos' last rows are not one flat grey.)"""
    with path.open("rb") as handle:
        if handle.read(2) != b"\xff\xd8":  # not a JPEG
            return False
        handle.seek(max(2, path.stat().st_size - JPEG_TAIL_BYTES))
        ended = handle.read().rstrip(b"\x00").endswith(JPEG_END)
    return not ended and bool((image[-CUT_SHORT_ROWS:] == JPEG_MISSING_GREY).all())


def picture_path(text: str) -> Path:
    """An --annotate argument: a path OpenCV can write a picture to, told by its extension
    (checked before any photo is read, so a mistyped name costs no work)."""
    if not cv2.haveImageWriter(text):
        raise argparse.ArgumentTypeError(f"cannot write a picture to {text!r}: name a .png or .jpg")
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(
            f"{text} is a folder: name a picture in it, e.g. {path / 'found.png'}"
        )
    # The folder it goes in is made when it is written; the nearest one that exists must let us.
    existing = next(folder for folder in path.absolute().parents if folder.exists())
    if existing.is_dir() and not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write {text}: {existing} is not writable")
    return path


def write_annotated(path: Path, image: np.ndarray) -> None:
    make_folder(path.parent)
    try:
        written = cv2.imwrite(str(path), image)
    except cv2.error as error:
        raise UserError(f"cannot write {path}: {error}") from None
    if not written:
        raise UserError(f"cannot write {path}")
