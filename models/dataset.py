"""Training data: renders of the train decks, and index-corner crops cut from them.

Only `decks/train` designs (and `decks/backs`) are used; `decks/val` is for measuring.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from simulator.backs import back_from_spec
from simulator.faces import builtin_design, load_design
from simulator.procedural import procedural_design, truetype_design
from simulator.training import TrainingSettings, generate_dataset, replace_earlier_output
from simulator.training_scenes import SceneMix
from vision.geometry import (
    CARD_HEIGHT_MM,
    CARD_WIDTH_MM,
    INDEX_WINDOW_MM,
    LEGACY_INDEX_WINDOW_MM,
    index_crops,
    intersection_over_union,
    portrait_order,
    rectify,
)
from vision.reading_settings import NONE_CLASS

log = logging.getLogger(__name__)

MIN_CARD_LENGTH_PX = 70.0
"""Cards shorter than this in a render give no crops (`--min-card-length` in `crops`). Cut
down to 40 px (classifier round 21) the crops taught no better reading of the small val cards,
and 12 fewer were named (`index_classifier.md`)."""
QUAD_JITTER = 0.08
"""Corners moved by up to this share of the card's size, as the detector's corners are
(measured: errors of 5-10% are common)."""
CROPS_PER_INDEX = 2
"""Each readable index is cut this many times, each time with other corner errors."""
DETECTION_MATCH_OVERLAP = 0.5
"""A found quad is a labelled card when their intersection over union exceeds this."""
FOUND_JITTER = 0.02
"""A card cut at found corners is cut a second time with them moved by up to this share of
its size, as the runtime reads windows a few millimetres apart."""
WINDOW_FILE = "index_window.json"
"""Beside a crop folder's splits: the index window its crops were cut with."""

DESIGN_SEED_STRIDE = 1000
"""The seeds of a render set's drawn designs: its procedural ones from seed x 1000, its
TrueType ones from there + `TRUETYPE_SEEDS`; the next seed's follow, so at most
`TRUETYPE_SEEDS` of each kind keep every set's designs its own."""
TRUETYPE_SEEDS = 500
"""TrueType designs are seeded from here on within each render seed's thousand, after the
Hershey designs' seeds, so that both kinds can be asked for in one render set."""
NONE_KEEP = 0.32
"""Share of the `none` index crops (covered corners, backs) kept, drawn at random: the share
the published index classifier's crops were cut with (the code wrote it `none_share=0.08`
times 4, which is why older notes say 8%)."""


class ImageFileError(OSError):
    """An image that cannot be read or written (a damaged render folder, a full disk)."""


def link_or_copy(source: Path, target: Path) -> None:
    """`target` hard-linked to `source`, which costs no disk; copied where links are impossible
    (another file system, or one without links)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def read_image(path: Path) -> np.ndarray:
    """The BGR image at `path`; ImageFileError naming it when it is missing or unreadable
    (`cv2.imread` says so only by returning None)."""
    image = cv2.imread(str(path))
    if image is None:
        raise ImageFileError(f"cannot read image {path}")
    return image


def shared_decks(shared: Path) -> tuple[list[Path], list[Path]]:
    """Train design folders (all 52 faces present) and back images, from a `shared/decks`."""
    train = sorted(p for p in (shared / "decks" / "train").iterdir() if (p / "AS.png").is_file())
    backs = sorted((shared / "decks" / "backs").glob("*.png"))
    backs += [p / "back.png" for p in train if (p / "back.png").is_file()]
    return train, backs


def render_dataset(
    out: Path,
    count: int,
    seed: int,
    shared: Path,
    size: tuple[int, int],
    *,
    procedural: int = 0,
    truetype: int = 0,
    count_spreads: float = SceneMix().count_spread_probability,
    hand_fans: float = SceneMix().hand_fan_weight,
    tight_fans: float = SceneMix().tight_fan_share,
    cast_shadows: float = 0.0,
) -> None:
    """Renders of the train decks, the built-in design, `procedural` seeded Hershey designs
    and `truetype` seeded designs in real typefaces (`typefaces.available()` must be True);
    `count_spreads` is the share of end-of-round count scenes, `hand_fans` the weight of
    face-up hands fanned sideways among the piles (`SceneMix`), `tight_fans` the share of those
    fanned tightly, `cast_shadows` the share of frames half in someone's shadow."""
    folders, back_files = shared_decks(shared)
    decks = [load_design(folder) for folder in folders] + [builtin_design()]
    first = seed * DESIGN_SEED_STRIDE
    decks += [procedural_design(first + number) for number in range(procedural)]
    decks += [truetype_design(first + TRUETYPE_SEEDS + number) for number in range(truetype)]
    backs = [back_from_spec(str(path)) for path in back_files]
    # The simulator's card lengths are for its own frame size: scaled, cards fill another
    # frame as they fill that one.
    defaults = TrainingSettings()
    scale = size[0] / defaults.size[0]
    settings = TrainingSettings(
        size=size,
        card_length_px=(
            defaults.card_length_px[0] * scale,
            defaults.card_length_px[1] * scale,
        ),
        scene_mix=SceneMix(
            count_spread_probability=count_spreads,
            hand_fan_weight=hand_fans,
            tight_fan_share=tight_fans,
        ),
        cast_shadow_probability=cast_shadows,
    )
    log.info("rendering %d images from %d designs and %d backs", count, len(decks), len(backs))
    generate_dataset(out, count, seed, decks, backs, settings=settings)


def readable_corners(
    quad: np.ndarray,
    index_quads: list[list[list[float]]],
    window_mm: tuple[float, float] = INDEX_WINDOW_MM,
) -> set[int]:
    """The crops of a card cut at `quad` that hold an index centre: 0 for the first (top-left)
    corner window, 1 for the opposite one. Judged from where the crop is cut, not from the true
    corners, so a crop whose corner error cut the index out is not labelled with it."""
    width, height = CARD_WIDTH_MM, CARD_HEIGHT_MM
    window_w, window_h = window_mm
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(portrait_order(quad), target)
    corners = set()
    for index_quad in index_quads:
        centre = np.mean(np.asarray(index_quad, np.float32), axis=0).reshape(1, 1, 2)
        x, y = cv2.perspectiveTransform(centre, matrix)[0, 0]
        if 0 <= x < window_w and 0 <= y < window_h:
            corners.add(0)
        elif width - window_w < x <= width and height - window_h < y <= height:
            corners.add(1)
    return corners


def jittered(quad: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    span = float(np.linalg.norm(quad[2] - quad[0]))
    return quad + rng.uniform(-share, share, quad.shape) * span


QuadFinder = Callable[[np.ndarray], list[np.ndarray]]
"""Card quads found in an image, e.g. by the card detector."""


def found_quad(true_quad: np.ndarray, found: list[np.ndarray]) -> np.ndarray | None:
    """The found quad that is this card (the most overlapping, if it overlaps enough)."""
    best = max(found, key=lambda quad: intersection_over_union(true_quad, quad), default=None)
    if best is None or intersection_over_union(true_quad, best) <= DETECTION_MATCH_OVERLAP:
        return None
    return best.astype(np.float32)


def labelled_crops(
    render_dir: Path,
    split: str,
    rng: np.random.Generator,
    find: QuadFinder | None = None,
    window_mm: tuple[float, float] = INDEX_WINDOW_MM,
    *,
    min_card_length_px: float = MIN_CARD_LENGTH_PX,
) -> Iterator[tuple[str, np.ndarray]]:
    """(class, 64x64 crop) for every index corner of every labelled card at least
    `min_card_length_px` long in a split, cut `window_mm` large at jittered true corners and,
    given `find`, also at the corners it finds (its own errors)."""
    for meta_path in sorted((render_dir / "meta" / split).glob("*.json")):
        meta = json.loads(meta_path.read_text())
        image = read_image(render_dir / "images" / split / f"{meta_path.stem}.jpg")
        found = find(image) if find is not None else []
        indices: dict[tuple[str, int], list[list[list[float]]]] = {}
        for index in meta["indices"]:
            indices.setdefault((index["card"], index["seat"]), []).append(index["quad"])
        for card in meta["cards"]:
            true_quad = np.array([k[:2] for k in card["keypoints"]], np.float32)
            upright = portrait_order(true_quad)
            length = np.linalg.norm(upright[3] - upright[0])
            if length < min_card_length_px:
                continue
            cuts = [jittered(true_quad, rng, QUAD_JITTER) for _ in range(CROPS_PER_INDEX)]
            quad = found_quad(true_quad, found)
            if quad is not None:
                cuts += [quad, jittered(quad, rng, FOUND_JITTER)]
            for number, cut in enumerate(cuts):
                crops = index_crops(rectify(image, cut), window_mm=window_mm)
                if not card["face_up"]:
                    yield NONE_CLASS, crops[int(rng.integers(2))]
                    continue
                readable = readable_corners(
                    cut, indices.get((card["card"], card["seat"]), []), window_mm
                )
                for corner, crop in enumerate(crops):
                    if corner in readable:
                        yield card["card"], crop
                    elif number == 0 and _corner_covered(card["keypoints"], cut, corner):
                        yield NONE_CLASS, crop


def _corner_covered(keypoints: list[list[float]], cut: np.ndarray, corner: int) -> bool:
    """Whether the true card corner nearest crop `corner` (0 first, 1 opposite) of a card cut
    at `cut` is covered."""
    point = portrait_order(cut)[2 * corner]
    true_points = np.array([k[:2] for k in keypoints], np.float32)
    nearest = int(np.argmin(np.linalg.norm(true_points - point, axis=1)))
    return keypoints[nearest][2] == 1


def write_crops(
    render_dirs: list[Path],
    out: Path,
    seed: int,
    none_keep: float = NONE_KEEP,
    *,
    find: QuadFinder | None = None,
    window_mm: tuple[float, float] = INDEX_WINDOW_MM,
    min_card_length_px: float = MIN_CARD_LENGTH_PX,
) -> dict[str, int]:
    """Classification dataset (out/{train,val}/<class>/*.png) from render folders, cut
    `window_mm` large at jittered true corners and, given `find`, also at the corners it finds,
    keeping a `none_keep` share of the `none` crops; the window is written beside them
    (`crops_window`)."""
    rng = np.random.default_rng(seed)
    totals: dict[str, int] = {}
    replace_earlier_output(out, ("train", "val", WINDOW_FILE), WINDOW_FILE)
    out.mkdir(parents=True, exist_ok=True)
    (out / WINDOW_FILE).write_text(json.dumps({"index_window_mm": list(window_mm)}) + "\n")
    for split in ("train", "val"):
        crops = (
            crop
            for folder in render_dirs
            for crop in labelled_crops(
                folder, split, rng, find, window_mm, min_card_length_px=min_card_length_px
            )
        )
        totals[split] = write_classes(crops, out / split, none_keep, rng, f"crops {split}")
    return totals


def write_classes(
    crops: Iterable[tuple[str, np.ndarray]],
    out: Path,
    none_keep: float,
    rng: np.random.Generator,
    description: str,
) -> int:
    """Writes (class, crop) pairs as out/<class>/NNNNNN.png, keeping a `none_keep` share of
    the `none` crops; returns how many it wrote."""
    counts: dict[str, int] = {}
    for label, crop in tqdm(crops, desc=description, unit=" crops"):
        if label == NONE_CLASS and rng.random() > none_keep:
            continue
        folder = out / label
        folder.mkdir(parents=True, exist_ok=True)
        number = counts.get(label, 0)
        path = folder / f"{number:06d}.png"
        if not cv2.imwrite(str(path), crop):
            raise ImageFileError(f"cannot write image {path}")
        counts[label] = number + 1
    total = sum(counts.values())
    log.info("%s: %d written in %d classes", description, total, len(counts))
    return total


def crops_window(crops: Path) -> tuple[float, float]:
    """The index window (width, height in mm) a crop folder was cut with; folders cut before
    it was recorded used the legacy square."""
    recorded = crops / WINDOW_FILE
    if not recorded.is_file():
        return LEGACY_INDEX_WINDOW_MM
    width, height = json.loads(recorded.read_text())["index_window_mm"]
    return float(width), float(height)
