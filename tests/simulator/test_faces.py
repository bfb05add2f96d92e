"""Design images: 16-bit files load like their 8-bit versions."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from simulator.faces import FACE_SIZE, read_bgra


def _eight_bit_design_image() -> np.ndarray:
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (88, 63, 4), dtype=np.uint8)
    image[:10, :, 3] = 0  # some transparency, so alpha is compared too
    return image


def test_a_16_bit_png_loads_as_its_8_bit_version(tmp_path: Path) -> None:
    eight = _eight_bit_design_image()
    cv2.imwrite(str(tmp_path / "eight.png"), eight)
    # x 257 maps 0..255 onto 0..65535, as image tools widen 8-bit samples.
    cv2.imwrite(str(tmp_path / "sixteen.png"), eight.astype(np.uint16) * 257)
    loaded = read_bgra(tmp_path / "sixteen.png")
    assert loaded.dtype == np.uint8
    assert np.array_equal(loaded, read_bgra(tmp_path / "eight.png"))
    assert np.array_equal(
        read_bgra(tmp_path / "sixteen.png", FACE_SIZE), read_bgra(tmp_path / "eight.png", FACE_SIZE)
    )


def test_a_16_bit_grey_png_loads_opaque_8_bit(tmp_path: Path) -> None:
    grey = _eight_bit_design_image()[..., 0]
    cv2.imwrite(str(tmp_path / "grey.png"), grey.astype(np.uint16) * 257)
    loaded = read_bgra(tmp_path / "grey.png")
    assert loaded.dtype == np.uint8
    assert (loaded[..., 3] == 255).all()
    assert np.array_equal(loaded[..., 0], grey)
