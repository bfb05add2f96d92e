"""Reading photos for the vision commands, with errors that name the file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from nerts.errors import UserError

MAX_MEGAPIXELS = 64


def read_photo(path: Path) -> np.ndarray:
    if path.is_dir():
        raise UserError(f"{path} is a folder: give the photos in it, e.g. {path / '*.jpg'}")
    if not path.is_file():
        raise UserError(f"image not found: {path}")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise UserError(f"cannot read image {path} (not a picture OpenCV can decode)")
    if image.shape[0] * image.shape[1] > MAX_MEGAPIXELS * 1_000_000:
        raise UserError(f"image {path} is larger than {MAX_MEGAPIXELS} megapixels")
    return image


def write_annotated(path: Path, image: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), image):
        raise UserError(f"cannot write {path} (use a .png or .jpg name)")
