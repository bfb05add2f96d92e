"""Rendered photos the vision tests share."""

from __future__ import annotations

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
