"""Ground truth for the recognition benchmark: val renders, real photos, face-down spreads."""

from __future__ import annotations

import csv
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.dataset import read_image
from simulator.backs import BackDesign, back_from_spec
from simulator.count_spread import (
    COUNT_PHOTO_SIZE,
    COUNT_TABLE_MM,
    count_table_renderer,
    spread_poses,
)
from simulator.faces import load_design
from simulator.labels import label_scene
from simulator.scene import CardPose, Scene
from simulator.sensor import LightSettings
from simulator.training import TrainingSettings, generate_dataset
from simulator.training_scenes import SceneMix
from vision.geometry import rectify

RANK_WORDS = {"nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}


@dataclass
class TruthCard:
    quad: np.ndarray
    face_up: bool
    card: str | None
    index_visible: bool
    design: str = ""
    visible_share: float = 1.0


FIRST_SCENES = SceneMix(count_spread_probability=0.0, hand_fan_weight=0.0)
"""The scenes of the first measurements, kept so that figures compare across sessions
(count spreads and hand fans came later; bidly measures fanned hands on real photos).
The cards changed once: since commit 61fcc75 back images are printed as opaque cards,
so face-down figures from before it are not comparable."""
HAND_FAN_SCENES = SceneMix(count_spread_probability=0.0, hand_fan_weight=1.0, tight_fan_share=0.5)
"""Scenes where half the piles are hands fanned on the table, half of those tightly."""


def render_val(
    out: Path, shared: Path, count: int, seed: int, scenes: SceneMix = FIRST_SCENES
) -> list[tuple[Path, list[TruthCard]]]:
    """Renders of decks/val designs (never trained on), with their labelled cards."""
    folders = sorted(p for p in (shared / "decks" / "val").iterdir() if (p / "AS.png").is_file())
    decks = [load_design(p) for p in folders]
    backs = [back_from_spec(str(p)) for p in sorted((shared / "decks" / "backs").glob("*.png"))]
    settings = TrainingSettings(size=(1280, 720), val_fraction=0.0, scene_mix=scenes)
    generate_dataset(out, count, seed, decks, backs, settings=settings, progress=False)
    samples = []
    for meta_path in sorted((out / "meta" / "train").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        visible = {(i["card"], i["seat"]) for i in meta["indices"]}
        cards = [
            TruthCard(
                np.array([k[:2] for k in c["keypoints"]], np.float32),
                c["face_up"],
                c["card"],
                (c["card"], c["seat"]) in visible,
                c["design"],
                c["visible"],
            )
            for c in meta["cards"]
        ]
        samples.append((out / "images" / "train" / f"{meta_path.stem}.jpg", cards))
    return samples


def bidly_single_cards(shared: Path) -> list[tuple[Path, str]]:
    """Photos of one card each, cut to the card (bidly's classifier data), with its name."""
    folder = shared / "real" / "bidly_bridge_deals" / "rawdata" / "data" / "cards"
    return [(path, path.stem.upper()) for path in sorted(folder.glob("*.jpg"))]


def bidly_deals(shared: Path) -> list[tuple[Path, list[tuple[str, float, float]]]]:
    """Deal photos with their labelled index corners: (card, centre x, centre y) in pixels."""
    folder = shared / "real" / "bidly_bridge_deals" / "detector" / "evaluation" / "test-deals"
    samples = []
    for labels in sorted(folder.glob("*-labels.json")):
        image = folder / labels.name.replace("-net1280-labels.json", ".jpg")
        height, width = read_image(image).shape[:2]
        boxes = []
        for item in json.loads(labels.read_text()):
            name = item["name"]
            card = name[:-1].upper() + name[-1].upper()
            box = item["relative_coordinates"]
            boxes.append((card, box["center_x"] * width, box["center_y"] * height))
        samples.append((image, boxes))
    return samples


def edje_test(shared: Path) -> list[tuple[Path, list[tuple[str, np.ndarray]]]]:
    """Real photos with whole-card boxes labelled by rank only: (rank, [x0, y0, x1, y1])."""
    root = shared / "real" / "edje_tf_cards" / "images"
    by_image: dict[str, list[tuple[str, np.ndarray]]] = {}
    with (root / "test_labels.csv").open() as handle:
        for row in csv.DictReader(handle):
            box = np.array([float(row[k]) for k in ("xmin", "ymin", "xmax", "ymax")])
            by_image.setdefault(row["filename"], []).append((RANK_WORDS[row["class"]], box))
    return [(root / "test" / name, boxes) for name, boxes in sorted(by_image.items())]


HARSH_LIGHT = LightSettings(colour_temperature=0.25, exposure=(0.6, 1.3), gradient=0.3, hotspot=0.3)
"""A warm or cool lamp (casts to 25%), an under- or overexposed photo, a strong gradient."""


def count_scene(
    n_cards: int,
    backs: list[BackDesign],
    seed: int,
    lights: LightSettings | None = None,
    shown: tuple[float, float] | None = None,
    *,
    size: tuple[int, int] = COUNT_PHOTO_SIZE,
    shares: np.ndarray | None = None,
) -> tuple[np.ndarray, dict[str, int]]:
    """Face-down cards of several backs pushed into overlapping rows, as at a round's count,
    photographed `size` (width, height) large; `lights` other than the renderer's own.
    `shown` (low, high): rows pushed closer, each card showing that share of its width (drawn
    per spread) beside the next. `shares`: each back's chance of a card (default: even)."""
    rng = np.random.default_rng(seed)
    if shares is None:
        seats = rng.integers(len(backs), size=n_cards)
    else:
        seats = rng.choice(len(backs), size=n_cards, p=shares)
    poses = spread_poses(seats.tolist(), rng, shown)
    renderer = count_table_renderer(rng, seed, backs, lights, size=size)
    counts = {back.name: int((seats == i).sum()) for i, back in enumerate(backs)}
    return renderer.render(Scene(poses, ()), 0), counts


SCATTER_MARGIN_MM = 70.0
"""A scattered spread's card centres keep this far from the table's edges (in the photo)."""
SCATTER_SHOWN_MIN = 0.15
"""Every card of a scattered spread shows at least this share of itself: a card hidden whole
cannot be counted from any photo, so a spread with one is drawn again."""


def scattered_count_scene(
    n_cards: int,
    backs: list[BackDesign],
    seed: int,
    lights: LightSettings | None = None,
    *,
    size: tuple[int, int] = COUNT_PHOTO_SIZE,
) -> tuple[np.ndarray, dict[str, int]]:
    """Face-down cards tossed anywhere on the table at any angle, as players may spread them
    loosely instead of in rows; drawn again (another draw of the same seed) until every card
    shows at least `SCATTER_SHOWN_MIN` of itself."""
    width, height = COUNT_TABLE_MM
    for attempt in itertools.count():
        rng = np.random.default_rng([seed, attempt])
        seats = rng.integers(len(backs), size=n_cards)
        scene = Scene(
            tuple(
                CardPose(
                    "AS",
                    int(seat),
                    float(rng.uniform(SCATTER_MARGIN_MM, width - SCATTER_MARGIN_MM)),
                    float(rng.uniform(SCATTER_MARGIN_MM, height - SCATTER_MARGIN_MM)),
                    float(rng.uniform(0, 360)),
                    False,
                )
                for seat in seats
            ),
            (),
        )
        renderer = count_table_renderer(rng, seed, backs, lights, size=size)
        shown = [label.visible for label in label_scene(renderer, scene)[0]]
        if len(shown) == n_cards and min(shown) >= SCATTER_SHOWN_MIN:
            counts = {back.name: int((seats == i).sum()) for i, back in enumerate(backs)}
            return renderer.render(scene, 0), counts
    raise AssertionError("unreachable")


def photo_reference(back: BackDesign, seed: int, lights: LightSettings | None = None) -> np.ndarray:
    """A reference as a player makes one: one card of the back photographed on its own (in
    another photo than the count's) and cut out along its true outline."""
    rng = np.random.default_rng(seed)
    pose = CardPose("AS", 0, 450.0, 253.0, float(rng.uniform(-30, 30)), False)
    renderer = count_table_renderer(rng, seed, [back], lights)
    scene = Scene((pose,), ())
    image = renderer.render(scene, 0)
    (card, *_), _ = label_scene(renderer, scene)
    return rectify(image, card.quad)


REFERENCE_PHOTO_TABLE_MM = (300.0, 169.0)
"""The table an uncropped reference photo shows: the card about 280 px long at 1280x720."""
REFERENCE_OFF_CENTRE = (0.15, 0.1)
"""How far the card of an uncropped reference photo may lie off its centre, as a share of the
table's width and height."""


def uncropped_reference(
    back: BackDesign, seed: int, lights: LightSettings | None = None
) -> np.ndarray:
    """A reference as a player may give it uncropped: a photo of one card of the back lying
    on the table, turned any way, off the photo's centre."""
    rng = np.random.default_rng(seed)
    width, height = REFERENCE_PHOTO_TABLE_MM
    off_x, off_y = REFERENCE_OFF_CENTRE
    x = width * (0.5 + rng.uniform(-off_x, off_x))
    y = height * (0.5 + rng.uniform(-off_y, off_y))
    pose = CardPose("AS", 0, x, y, float(rng.uniform(0, 360)), False)
    renderer = count_table_renderer(rng, seed, [back], lights, REFERENCE_PHOTO_TABLE_MM)
    return renderer.render(Scene((pose,), ()), 0)


def back_reference(back: BackDesign) -> np.ndarray:
    return back.printed()
