"""Training data: renders of the train decks, and index-corner crops cut from them.

Only `decks/train` designs (and `decks/backs`) are used; `decks/val` is for measuring.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from simulator.backs import back_from_spec
from simulator.faces import builtin_design, load_design
from simulator.procedural import procedural_design
from simulator.training import TrainingSettings, generate_dataset
from vision.geometry import (
    CARD_HEIGHT_MM,
    CARD_WIDTH_MM,
    INDEX_CROP_MM,
    index_crops,
    portrait_order,
    rectify,
)

log = logging.getLogger(__name__)

NONE_CLASS = "none"
"""Classifier class for a corner that shows no readable index (covered, or a back)."""
MIN_CARD_LENGTH_PX = 70.0
"""Cards shorter than this in a render give index crops too blurred to teach anything."""
QUAD_JITTER = 0.08
"""Corners moved by up to this share of the card's size, as the detector's corners are
(measured: errors of 5-10% are common)."""
CROPS_PER_INDEX = 2
"""Each readable index is cut this many times, each time with other corner errors."""


def shared_decks(shared: Path) -> tuple[list[Path], list[Path]]:
    """Train design folders (all 52 faces present) and back images, from a `shared/decks`."""
    train = sorted(p for p in (shared / "decks" / "train").iterdir() if (p / "AS.png").is_file())
    backs = sorted((shared / "decks" / "backs").glob("*.png"))
    backs += [p / "back.png" for p in train if (p / "back.png").is_file()]
    return train, backs


def render_dataset(
    out: Path, count: int, seed: int, shared: Path, size: tuple[int, int], *, procedural: int = 0
) -> None:
    """Renders of the train decks, the built-in design and `procedural` seeded designs."""
    folders, back_files = shared_decks(shared)
    decks = [load_design(folder) for folder in folders] + [builtin_design()]
    decks += [procedural_design(seed * 1000 + number) for number in range(procedural)]
    backs = [back_from_spec(str(path)) for path in back_files]
    scale = size[0] / 1280
    settings = TrainingSettings(size=size, card_length_px=(50.0 * scale, 400.0 * scale))
    log.info("rendering %d images from %d designs and %d backs", count, len(decks), len(backs))
    generate_dataset(out, count, seed, decks, backs, settings=settings)


def _corner_of_index(quad: np.ndarray, index_quad: list[list[float]]) -> int | None:
    """0 if an index box lies in the card's first (top-left) corner square, 1 if in the
    opposite one, else None (e.g. a four-corner design's other indices)."""
    width, height = CARD_WIDTH_MM, CARD_HEIGHT_MM
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(portrait_order(quad), target)
    centre = np.mean(np.asarray(index_quad, np.float32), axis=0).reshape(1, 1, 2)
    x, y = cv2.perspectiveTransform(centre, matrix)[0, 0]
    if x < INDEX_CROP_MM and y < INDEX_CROP_MM:
        return 0
    if x > width - INDEX_CROP_MM and y > height - INDEX_CROP_MM:
        return 1
    return None


def _jittered(quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    span = float(np.linalg.norm(quad[2] - quad[0]))
    return quad + rng.uniform(-QUAD_JITTER, QUAD_JITTER, quad.shape) * span


def labelled_crops(
    render_dir: Path, split: str, rng: np.random.Generator
) -> Iterator[tuple[str, np.ndarray]]:
    """(class, 64x64 crop) for every index corner of every labelled card of a split."""
    for meta_path in sorted((render_dir / "meta" / split).glob("*.json")):
        meta = json.loads(meta_path.read_text())
        image = cv2.imread(str(render_dir / "images" / split / f"{meta_path.stem}.jpg"))
        visible_indices: dict[tuple[str, int], list[int]] = {}
        cards = meta["cards"]
        for card in cards:
            visible_indices[(card["card"], card["seat"])] = []
        quads = {
            (c["card"], c["seat"]): np.array([k[:2] for k in c["keypoints"]], np.float32)
            for c in cards
        }
        for index in meta["indices"]:
            key = (index["card"], index["seat"])
            if key in quads:
                corner = _corner_of_index(quads[key], index["quad"])
                if corner is not None:
                    visible_indices[key].append(corner)
        for card in cards:
            key = (card["card"], card["seat"])
            quad = portrait_order(quads[key])
            if np.linalg.norm(quad[3] - quad[0]) < MIN_CARD_LENGTH_PX:
                continue
            for cut in range(CROPS_PER_INDEX):
                crops = index_crops(rectify(image, _jittered(quad, rng)))
                if not card["face_up"]:
                    yield NONE_CLASS, crops[int(rng.integers(2))]
                    continue
                for corner, crop in enumerate(crops):
                    if corner in visible_indices[key]:
                        yield card["card"], crop
                    elif cut == 0 and _corner_covered(card["keypoints"], quads[key], corner):
                        yield NONE_CLASS, crop


def _corner_covered(keypoints: list[list[float]], quad: np.ndarray, corner: int) -> bool:
    """Whether the card corner behind crop `corner` (0 first, 1 opposite) is covered."""
    first = portrait_order(quad)[0]
    start = int(np.argmin(np.linalg.norm(quad - first, axis=1)))
    point = (start + 2 * corner) % 4
    return keypoints[point][2] == 1


def write_crops(
    render_dirs: list[Path], out: Path, seed: int, none_share: float = 0.08
) -> dict[str, int]:
    """Classification dataset (out/{train,val}/<class>/*.png) from render folders."""
    rng = np.random.default_rng(seed)
    totals: dict[str, int] = {}
    for split in ("train", "val"):
        counts: dict[str, int] = {}
        crops = (c for folder in render_dirs for c in labelled_crops(folder, split, rng))
        for label, crop in tqdm(crops, desc=f"crops {split}", unit=" crops"):
            if label == NONE_CLASS and rng.random() > none_share * 4:
                continue
            folder = out / split / label
            folder.mkdir(parents=True, exist_ok=True)
            number = counts.get(label, 0)
            cv2.imwrite(str(folder / f"{number:06d}.png"), crop)
            counts[label] = number + 1
        totals[split] = sum(counts.values())
        log.info("%s: %d crops in %d classes", split, totals[split], len(counts))
    return totals
