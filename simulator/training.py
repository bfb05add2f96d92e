"""Training renders: single labelled frames for the recognition models, ultralytics layout.

    python -m simulator.training --out DIR --count N --seed S [--deck DIR ...]
        [--val-deck DIR ...] [--backs SPEC ...] [--size WxH] [--val-fraction F]

Written (stem = 6-digit image number; every 1/F-th image goes to val):

    DIR/data.yaml                      whole cards, ultralytics *pose* dataset
    DIR/images/{train,val}/STEM.jpg
    DIR/labels/{train,val}/STEM.txt    one line per visible card:
        class cx cy w h  x0 y0 v0  x1 y1 v1  x2 y2 v2  x3 y3 v3   (all normalised to 0..1)
        class 0 card_face_up, 1 card_face_down; box = the whole card clipped to the image;
        keypoints = the card's corners top-left, top-right, bottom-right, bottom-left of the
        printed card, made canonical for the 180-degree symmetry (keypoints 0-1 = the edge
        facing up the image); v = 2 visible, 1 covered by a card or hand, 0 outside the
        image (then x = y = 0). Train with fliplr=0: a mirrored card is not a card.
    DIR/index/data.yaml                corner indices, ultralytics *detect* dataset
    DIR/index/images/{train,val}/      the same JPEGs (hard links)
    DIR/index/labels/{train,val}/STEM.txt   class cx cy w h, one class: 0 index
    DIR/meta/{train,val}/STEM.json     identity per object, in label-line order:
        {"cards": [{"line", "class", "card", "seat", "back", "design", "face_up", "visible",
                    "keypoints": [[x, y, v] x4] (px), "box": [x0, y0, x1, y1] (px)}],
         "indices": [{"line", "card", "rank", "suit", "seat", "design", "corner", "quad", "box"}],
         (corner = which of the design's index boxes: 0 top-left, then by position; quad =
         the index box's corners in the card's own orientation, image px)
         "seats": [{"seat", "design", "back"}], "size": [w, h]}

Why one `index` class: the detector only has to find rank+suit corners, whatever the design;
a classifier on the crop (identity from meta/) names the card. That split generalises to
unseen designs better than 52 detector classes (DESIGN.md: corner detector + classifier).
Only visible objects are labelled: a card when `min_card_visible` of it shows, an index when
`min_index_visible` of it shows and it lies wholly inside the image (labels.py).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from simulator.backs import DEFAULT_BACKS, BackDesign, back_from_spec, default_backs
from simulator.camera import frame_shape_refused
from simulator.errors import DesignError
from simulator.faces import CardDesign, builtin_design, load_design
from simulator.labels import (
    CARD_CLASSES,
    INDEX_CLASSES,
    LabelledObject,
    detect_line,
    label_scene,
    pose_line,
)
from simulator.render import DEFAULT_FRAME_SIZE, RenderSettings, TableRenderer
from simulator.scene import CARD_HEIGHT_MM
from simulator.sensor import add_glare, cast_shadow, defocus
from simulator.table import TABLES
from simulator.training_scenes import SceneMix, random_scene

logger = logging.getLogger(__name__)

SCENE_STREAM = 1
"""Separates each image's scene randomness from the camera setups' (both from the seed)."""


@dataclass(frozen=True)
class TrainingSettings:
    size: tuple[int, int] = DEFAULT_FRAME_SIZE
    val_fraction: float = 0.15
    card_length_px: tuple[float, float] = (50.0, 400.0)
    """Range of a card's long side in the image (drawn log-uniformly)."""
    images_per_camera: int = 4
    """Frames rendered per camera/table/lighting setup (setting one up costs ~0.3 s)."""
    jpeg_quality: tuple[int, int] = (55, 95)
    max_tilt_deg: float = 12.0
    lens_distortion: float = 0.08
    noise_sigma: tuple[float, float] = (1.0, 5.0)
    marker_probability: float = 0.3
    marker_max_card_px: float = 120.0
    """Markers only appear in wide views (a close-up of a few cards has none in sight)."""
    max_seats: int = 4
    max_clutter: int = 3
    """Up to this many distractors (score sheet, phone, cup, pen) per table."""
    glare_probability: float = 0.3
    glare_strength: tuple[float, float] = (0.15, 0.55)
    """Peak brightening of a glare patch, as a share of full white."""
    cast_shadow_probability: float = 0.0
    """Share of frames half in someone's shadow (`sensor.cast_shadow`); 0 keeps the random
    draws, and so the renders, of sets made before it."""
    cast_shadow_depth: tuple[float, float] = (0.3, 0.65)
    """Light taken where the shadow is darkest."""
    defocus_probability: float = 0.25
    defocus_sigma: tuple[float, float] = (0.5, 1.4)
    """Gaussian blur of a slightly out-of-focus camera, pixels."""
    scene_mix: SceneMix = field(default_factory=SceneMix)
    """What the scenes are made of (`simulator/training_scenes.py`)."""


CORNER_OKS_SIGMA = 0.04
"""Keypoint tolerance for the pose loss and metric, as a share of the card's box (COCO gives
eyes 0.025). Without it ultralytics uses 1/4 for four keypoints, under which a corner 10% off
costs almost nothing: the committed detector's corners were often that far off."""


def _write_yaml(path: Path, root: Path, names: Sequence[str], pose: bool) -> None:
    lines = [f"path: {root.resolve()}", "train: images/train", "val: images/val"]
    path.write_text("\n".join(lines + _yaml_classes(names, pose)) + "\n")


def write_data_yaml(
    path: Path, train: Sequence[Path], val: Path, names: Sequence[str], pose: bool
) -> None:
    """An ultralytics data.yaml over image folders (labels beside them in `labels/`);
    several train folders make one training set."""
    folders = ", ".join(str(folder.resolve()) for folder in train)
    lines = [f"train: [{folders}]", f"val: {val.resolve()}"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines + _yaml_classes(names, pose)) + "\n")


def _yaml_classes(names: Sequence[str], pose: bool) -> list[str]:
    lines = []
    if pose:
        sigmas = ", ".join([str(CORNER_OKS_SIGMA)] * 4)
        lines += ["kpt_shape: [4, 3]", "flip_idx: [1, 0, 3, 2]", f"kpt_oks_sigmas: [{sigmas}]"]
    return [*lines, "names:", *(f"  {i}: {name}" for i, name in enumerate(names))]


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _renderer_for(
    group: int,
    seed: int,
    settings: TrainingSettings,
    decks: Sequence[CardDesign],
    backs: Sequence[BackDesign],
) -> TableRenderer:
    rng = np.random.default_rng([seed, group])
    lo, hi = settings.card_length_px
    card_px = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
    px_per_mm = card_px / CARD_HEIGHT_MM
    width, height = settings.size
    n_seats = int(rng.integers(1, settings.max_seats + 1))
    seat_decks = [decks[int(i)] for i in rng.integers(len(decks), size=n_seats)]
    picked = rng.choice(len(backs), size=n_seats, replace=n_seats > len(backs))
    render_settings = RenderSettings(
        size=settings.size,
        table=str(rng.choice(TABLES)),
        table_mm=(width / px_per_mm, height / px_per_mm),
        seed=int(rng.integers(2**31)),
        markers=bool(rng.random() < settings.marker_probability)
        and card_px < settings.marker_max_card_px,
        view_margin_mm=0.0,
        max_tilt_deg=settings.max_tilt_deg,
        lens_distortion=settings.lens_distortion,
        noise_sigma=float(rng.uniform(*settings.noise_sigma)),
        noise_frames=1,
        patch_cache=0,  # every training scene is new: cached card patches would only cost memory
        clutter=int(rng.integers(0, settings.max_clutter + 1)),
    )
    return TableRenderer(render_settings, seat_decks, [backs[int(i)] for i in picked])


def _degrade(frame: np.ndarray, settings: TrainingSettings, rng: np.random.Generator) -> np.ndarray:
    """Optics a video frame rarely shows but a phone photo or another camera might."""
    if rng.random() < settings.glare_probability:
        frame = add_glare(frame, rng, float(rng.uniform(*settings.glare_strength)))
    if rng.random() < settings.defocus_probability:
        frame = defocus(frame, float(rng.uniform(*settings.defocus_sigma)))
    if settings.cast_shadow_probability > 0 and rng.random() < settings.cast_shadow_probability:
        frame = cast_shadow(frame, rng, float(rng.uniform(*settings.cast_shadow_depth)))
    return frame


def _card_record(line: int, obj: LabelledObject, renderer: TableRenderer) -> dict[str, object]:
    return {
        "line": line,
        "class": CARD_CLASSES[obj.class_id],
        "card": obj.pose.card,
        "seat": obj.pose.seat,
        "back": renderer.back_for(obj.pose.seat).name,
        "design": renderer.design_for(obj.pose.seat).name,
        "face_up": obj.pose.face_up,
        "visible": round(obj.visible, 3),
        "keypoints": [
            [round(float(x), 2), round(float(y), 2), v]
            for (x, y), v in zip(obj.quad, obj.keypoint_visibility, strict=True)
        ],
        "box": [round(v, 2) for v in obj.box],
    }


def _index_record(line: int, obj: LabelledObject, renderer: TableRenderer) -> dict[str, object]:
    return {
        "line": line,
        "card": obj.pose.card,
        "rank": obj.pose.card[:-1],
        "suit": obj.pose.card[-1],
        "seat": obj.pose.seat,
        "design": renderer.design_for(obj.pose.seat).name,
        "corner": obj.corner,
        "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in obj.quad],
        "box": [round(v, 2) for v in obj.box],
    }


def generate_dataset(
    out: Path,
    count: int,
    seed: int,
    decks: Sequence[CardDesign],
    backs: Sequence[BackDesign],
    *,
    val_decks: Sequence[CardDesign] | None = None,
    settings: TrainingSettings | None = None,
    progress: bool = True,
) -> dict[str, int]:
    """Render `count` labelled frames into `out`; returns object counts per kind."""
    settings = settings or TrainingSettings()
    out = Path(out)
    val = val_frames(count, settings.val_fraction)
    parts = ("images", "labels", "meta", "index", "data.yaml", RENDERS_MARKER)
    replace_earlier_output(out, parts, RENDERS_MARKER, "data.yaml")
    out.mkdir(parents=True, exist_ok=True)
    (out / RENDERS_MARKER).write_text(json.dumps({"renders": count, "seed": seed}) + "\n")
    for sub in ("images", "labels", "meta", "index/images", "index/labels"):
        for split in ("train", "val"):
            (out / sub / split).mkdir(parents=True, exist_ok=True)
    totals = {"images": 0, "cards": 0, "indices": 0}
    renderer: TableRenderer | None = None
    renderer_key: tuple[int, bool] | None = None
    for image_number in tqdm(range(count), desc="training renders", disable=not progress):
        is_val = image_number in val
        # Val images get their own renderer when they have their own designs, so val designs
        # never appear in train images.
        uses_val_designs = bool(is_val and val_decks)
        key = (image_number // settings.images_per_camera, uses_val_designs)
        if key != renderer_key:
            pool = val_decks if (uses_val_designs and val_decks) else decks
            renderer = _renderer_for(key[0] * 2 + int(key[1]), seed, settings, pool, backs)
            renderer_key = key
        assert renderer is not None
        rng = np.random.default_rng([seed, image_number, SCENE_STREAM])
        n_seats = len(renderer.backs)
        scene = random_scene(renderer.settings.table_mm, n_seats, rng, settings.scene_mix)
        renderer.reset()  # the last image's scene is another: its hands did not move here
        frame = _degrade(renderer.render(scene, image_number), settings, rng)
        cards, indices = label_scene(renderer, scene)
        split, stem = ("val" if is_val else "train"), f"{image_number:06d}"
        image_path = out / "images" / split / f"{stem}.jpg"
        quality = int(rng.integers(settings.jpeg_quality[0], settings.jpeg_quality[1] + 1))
        if not cv2.imwrite(str(image_path), frame, [cv2.IMWRITE_JPEG_QUALITY, quality]):
            raise OSError(f"cannot write image {image_path}")
        index_image = out / "index" / "images" / split / f"{stem}.jpg"
        index_image.unlink(missing_ok=True)
        _link_or_copy(image_path, index_image)
        size = settings.size
        (out / "labels" / split / f"{stem}.txt").write_text(
            "".join(pose_line(c, size) + "\n" for c in cards)
        )
        (out / "index" / "labels" / split / f"{stem}.txt").write_text(
            "".join(detect_line(i, size) + "\n" for i in indices)
        )
        meta = {
            "image": f"images/{split}/{stem}.jpg",
            "size": list(size),
            "seats": [
                {
                    "seat": s,
                    "design": renderer.design_for(s).name,
                    "back": renderer.back_for(s).name,
                }
                for s in range(n_seats)
            ],
            "cards": [_card_record(i, c, renderer) for i, c in enumerate(cards)],
            "indices": [_index_record(i, c, renderer) for i, c in enumerate(indices)],
        }
        (out / "meta" / split / f"{stem}.json").write_text(json.dumps(meta))
        totals["images"] += 1
        totals["cards"] += len(cards)
        totals["indices"] += len(indices)
    _write_yaml(out / "data.yaml", out, CARD_CLASSES, pose=True)
    _write_yaml(out / "index" / "data.yaml", out / "index", INDEX_CLASSES, pose=False)
    logger.info("wrote %s to %s", totals, out)
    return totals


def frame_size(text: str) -> tuple[int, int]:
    """argparse type for --size: "WIDTHxHEIGHT" in pixels, both positive."""
    try:
        width, height = map(int, text.lower().split("x"))  # a count other than 2 is a ValueError
    except ValueError:
        width = height = 0
    if width <= 0 or height <= 0:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, e.g. 960x540, got {text!r}")
    refused = frame_shape_refused(width, height)
    if refused is not None:
        raise argparse.ArgumentTypeError(f"{text}: {refused}")
    return width, height


class OutputFolderError(ValueError):
    """An --out folder holding things of the names a tool writes that it did not write."""


RENDERS_MARKER = "renders.json"
"""Written into a folder of training renders before the first render: a run stopped half-way
leaves it, so that running it again replaces what it left (data.yaml comes last)."""


def replace_earlier_output(out: Path, parts: Sequence[str], marker: str, *older: str) -> None:
    """Removes the `parts` of `out` an earlier run of the same tool wrote (folders or files),
    so that a run into the same folder is not mixed with the last one's leftovers (frames of
    another size, a val frame of the last run named as a train frame of this one); the rest of
    `out` is left alone. The earlier run is told by its `marker` file among the parts (or an
    `older` one, which runs of earlier versions wrote): without it, parts of those names are
    someone else's (the shared decks' train/, a folder of photos
    in images/), and `OutputFolderError` says so before anything is removed."""
    earlier = [out / part for part in parts if (out / part).exists()]
    if earlier and not any((out / name).is_file() for name in (marker, *older)):
        names = ", ".join(f"{path.name}/" if path.is_dir() else path.name for path in earlier)
        raise OutputFolderError(
            f"--out {out} already holds {names}, which no earlier run of this step wrote (no "
            f"{marker}): give another --out"
        )
    if earlier:
        logger.info("replacing the earlier run's %s in %s", ", ".join(p.name for p in earlier), out)
    for path in earlier:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def val_frames(count: int, val_fraction: float) -> set[int]:
    """The numbers of the frames of `count` that go to the val split: every Nth, and the last
    of a set too small for one N."""
    if val_fraction <= 0:
        return set()
    period = max(2, round(1 / val_fraction))
    val = {number for number in range(count) if number % period == period - 1}
    return val | ({count - 1} if 1 < count < period else set())


def whole_number(least: int) -> Callable[[str], int]:
    """argparse type: a whole number of at least `least` (a count, a seed)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {least}, got {text!r}")
        return value

    return parse


def _number_within(text: str, within: Callable[[float], bool], expected: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not within(value):  # NaN fails every comparison
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def share(text: str) -> float:
    """argparse type: a share from 0 to 1 (of scenes, of frames)."""
    return _number_within(text, lambda value: 0.0 <= value <= 1.0, "a share from 0 to 1")


def fraction(text: str) -> float:
    """argparse type: a share above 0, at most 1 (of the data to use: none would train on
    nothing)."""
    return _number_within(text, lambda value: 0.0 < value <= 1.0, "a share above 0, at most 1")


def positive(text: str) -> float:
    """argparse type: a finite number above 0 (a size, a learning rate, hours)."""
    return _number_within(text, lambda value: 0.0 < value < math.inf, "a number > 0")


def weight(text: str) -> float:
    """argparse type: a finite weight of 0 or more."""
    return _number_within(text, lambda value: 0.0 <= value < math.inf, "a number >= 0")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m simulator.training",
        description="Render labelled training frames (ultralytics).",
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=whole_number(1), required=True)
    parser.add_argument("--seed", type=whole_number(0), default=0)
    parser.add_argument(
        "--deck",
        type=Path,
        nargs="+",
        action="extend",
        default=[],
        help="deck folders (<RANK><SUIT>.png); default: the built-in design",
    )
    parser.add_argument(
        "--val-deck",
        type=Path,
        nargs="+",
        action="extend",
        default=[],
        help="deck folders used only for the val split",
    )
    parser.add_argument(
        "--backs",
        nargs="+",
        action="extend",
        default=[],
        help="back specs: colour, #rrggbb, colour:pattern or image path",
    )
    parser.add_argument("--size", type=frame_size, default=DEFAULT_FRAME_SIZE, help="WxH")
    parser.add_argument(
        "--val-fraction",
        type=share,
        default=TrainingSettings.val_fraction,
        help="share of the frames kept for validation (default %(default)s)",
    )
    args = parser.parse_args(argv)
    if not 0 < len(val_frames(args.count, args.val_fraction)) < args.count:
        # data.yaml names both splits: one left empty fails the training that reads it.
        parser.error(
            f"--count {args.count} at --val-fraction {args.val_fraction:g} leaves the train or "
            "the val split empty; give more frames or another share"
        )
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        decks = [load_design(d) for d in args.deck] or [builtin_design()]
        val_decks = [load_design(d) for d in args.val_deck] or None
        every_default_back = default_backs(len(DEFAULT_BACKS))
        backs = [back_from_spec(s) for s in args.backs] or every_default_back
    except (OSError, DesignError) as error:
        parser.error(str(error))
    settings = TrainingSettings(size=args.size, val_fraction=args.val_fraction)
    try:
        generate_dataset(
            args.out, args.count, args.seed, decks, backs, val_decks=val_decks, settings=settings
        )
    except (OSError, OutputFolderError) as error:
        # An unwritable --out is the user's to fix: one line, not a traceback.
        parser.exit(1, f"{parser.prog}: error: {error}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
