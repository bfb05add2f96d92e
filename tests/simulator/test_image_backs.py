"""Back images: a card on a transparent canvas is cut out; a bare pattern is printed on a card."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from simulator.backs import back_from_spec
from simulator.errors import DesignError
from simulator.faces import CORNER_RADIUS_MM, FACE_PX_PER_MM, FACE_SIZE, rounded_card_alpha

RED_BGR = (0, 0, 255)


def _card_alpha() -> np.ndarray:
    return rounded_card_alpha(*FACE_SIZE, round(CORNER_RADIUS_MM * FACE_PX_PER_MM))


def _write(path: Path, image: np.ndarray) -> Path:
    cv2.imwrite(str(path), image)
    return path


def test_a_card_on_a_larger_transparent_canvas_is_cut_to_the_card(tmp_path: Path) -> None:
    canvas = np.zeros((300, 300, 4), np.uint8)
    canvas[50:260, 75:225] = (*RED_BGR, 255)  # 150 x 210: card-shaped
    back = back_from_spec(str(_write(tmp_path / "framed.png", canvas)))
    assert back.name == "framed"
    assert back.image.shape[:2] == (FACE_SIZE[1], FACE_SIZE[0])
    # Cut to the card, the red reaches every edge: no table shows through any margin.
    assert (back.image[..., 3] == 255).all()
    assert (back.image[..., :3] == RED_BGR).all()


def test_a_bare_pattern_is_tiled_on_an_opaque_ground(tmp_path: Path) -> None:
    strip = np.zeros((40, 200, 4), np.uint8)  # white rings on nothing, like the GNOME bellot backs
    for x in range(20, 200, 40):
        cv2.circle(strip, (x, 20), 14, (255, 255, 255, 255), 6)
    path = _write(tmp_path / "rings.png", strip)
    back = back_from_spec(str(path))
    # Only the rounded corners are transparent: the card is solid.
    assert np.array_equal(back.image[..., 3], _card_alpha())
    height, width = back.image.shape[:2]
    inner = back.image[height // 4 : 3 * height // 4, width // 4 : 3 * width // 4, :3]
    white = (inner.min(axis=2) > 240).mean()
    assert 0.1 < white < 0.6, "the rings repeat down the card, over a coloured ground"
    assert np.array_equal(back_from_spec(str(path)).image, back.image)


def test_the_ground_colour_follows_the_file_name(tmp_path: Path) -> None:
    strip = np.zeros((40, 200, 4), np.uint8)
    cv2.circle(strip, (100, 20), 14, (255, 255, 255, 255), 6)
    grounds = {
        back_from_spec(str(_write(tmp_path / f"{name}.png", strip))).image[60, 125, :3].tobytes()
        for name in ("alpha", "beta", "gamma", "delta")
    }
    assert len(grounds) > 1


def test_an_opaque_card_image_is_used_whole(tmp_path: Path) -> None:
    card = np.full((350, 250, 3), (20, 200, 20), np.uint8)
    card[:10] = (255, 255, 255)  # a white top edge stays: an opaque image is not cut
    back = back_from_spec(str(_write(tmp_path / "green.jpg", card)))
    assert (back.image[..., 3] == 255).all()
    assert (back.image[0, :, :3] > 240).all()


def test_a_back_image_too_small_for_a_pattern_is_refused_by_name(tmp_path: Path) -> None:
    path = _write(tmp_path / "speck.png", np.full((1, 1, 3), 90, np.uint8))
    message = "speck.png is 1x1 px: too small to show a back or its pattern (at least 8 px"
    with pytest.raises(DesignError, match=re.escape(message)):
        back_from_spec(str(path))
    assert back_from_spec(str(_write(tmp_path / "tile.png", np.full((8, 8, 3), 90, np.uint8))))


def test_a_wholly_transparent_image_is_refused_by_name(tmp_path: Path) -> None:
    path = _write(tmp_path / "empty.png", np.zeros((50, 50, 4), np.uint8))
    with pytest.raises(DesignError, match=r"empty\.png is wholly transparent"):
        back_from_spec(str(path))


@pytest.mark.parametrize(("spec", "normalised"), [("#2040A0", "#2040a0"), (" red", "red")])
def test_specs_naming_the_same_colour_give_the_same_back(spec: str, normalised: str) -> None:
    back, twin = back_from_spec(spec), back_from_spec(normalised)
    assert back.name == twin.name == normalised
    assert np.array_equal(back.image, twin.image)
