"""Rendered photos the vision tests share."""

from __future__ import annotations

import cv2
import numpy as np

from simulator.backs import back_from_spec
from simulator.faces import builtin_design
from simulator.labels import label_scene
from simulator.render import RenderSettings, TableRenderer
from simulator.scene import CardPose, Scene


def photo_of_one_card(spec: str, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """A 1280x720 photo of one face-down card of back `spec` on wood, 173 px long,
    turned `angle` degrees, and its corners: a back reference as a player takes one."""
    renderer = TableRenderer(
        RenderSettings(size=(1280, 720), table="wood", table_mm=(300.0, 169.0), seed=5),
        [builtin_design()],
        [back_from_spec(spec)],
    )
    scene = Scene((CardPose("AS", 0, 160.0, 80.0, angle, False),), ())
    (card, *_), _ = label_scene(renderer, scene)
    return renderer.render(scene, 0), card.quad


CARD_W, CARD_H = 63, 88
"""A drawn card's size in pixels (a poker card at 1 px per mm)."""
RIM_PX = 3
"""The white rim printed round a drawn back, in pixels."""


def card_quad(x: float, y: float, turn_deg: float = 0.0) -> np.ndarray:
    """A 63 x 88 px card's corners, clockwise from the top left, turned about its centre."""
    corners = np.array([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]], np.float32)
    centre = corners.mean(axis=0)
    angle = np.radians(turn_deg)
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    return ((corners - centre) @ rotation.T + centre + [x, y]).astype(np.float32)


def draw_back(image: np.ndarray, quad: np.ndarray, colour: tuple[int, int, int]) -> None:
    """A back as printed: a white rim, inside it `colour` crossed by lighter stripes."""
    cv2.fillPoly(image, [np.round(quad).astype(np.int32)], (245, 245, 245))
    centre = quad.mean(axis=0)
    inner = centre + (quad - centre) * (1 - 2 * RIM_PX / CARD_W)
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(inner).astype(np.int32)], 1)
    print_ = np.empty_like(image)
    print_[:] = colour
    for offset in range(-image.shape[0], image.shape[1], 8):  # diagonal stripes
        start, end = (offset, 0), (offset + image.shape[0], image.shape[0])
        cv2.line(print_, start, end, tuple(min(255, c + 90) for c in colour), 2)
    image[mask > 0] = print_[mask > 0]


def table(height: int = 200, width: int = 400) -> np.ndarray:
    """Brown wood with a little grain, `height` x `width` px."""
    rng = np.random.default_rng(1)
    image = np.full((height, width, 3), (40, 90, 150), np.uint8)
    return image + rng.integers(0, 20, image.shape, dtype=np.uint8)


def on_felt(poses: list[CardPose]) -> np.ndarray:
    """The cards rendered in the built-in design on felt, 2 px/mm, without markers."""
    renderer = TableRenderer(
        RenderSettings(
            size=(1280, 720), table="felt", table_mm=(640.0, 360.0), seed=5, markers=False
        ),
        [builtin_design()],
        [back_from_spec("blue:dots")],
    )
    return renderer.render(Scene(tuple(poses), ()), 0)
