"""The steps of `python -m models.train`, one function each, given the parsed arguments:
render, cut crops, mix datasets, train, publish and quantize."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from models import INDEX_ONNX, QUANTIZED
from models.crop_mix import CropMixError, CropSource, mix_crops
from models.dataset import ImageFileError, QuadFinder, render_dataset, write_crops
from models.face_crops import write_faces
from models.index_corners import CORNER_CLASSES, index_corner_dataset
from models.quantize import (
    QuantizeError,
    calibration_inputs,
    calibration_renders,
    detector_calibration_inputs,
    quantize_classifier,
    quantize_detector,
)
from models.real_photos import edje_dataset
from models.runs import (
    CLASSIFIER_AUGMENTATION,
    CLASSIFIERS,
    CORNER_AUGMENTATION,
    DYNAMIC_EXPORTS,
    PUBLISHED,
    final_metrics,
    publish_weights,
    run_setting,
    train_and_publish,
)
from simulator import typefaces
from simulator.labels import CARD_CLASSES
from simulator.training import OutputFolderError, TrainingSettings, val_frames, write_data_yaml
from vision.geometry import card_from_window
from vision.onnx_models import CORNER_WINDOW_MM, CardDetector, IndexClassifier, ModelFileError
from vision.reading_settings import CARD_IOU_MAX, CORNER_IOU_MAX, CORNER_SCORE_MIN

TRAIN_EXTRA_INSTALL = "pip install -e '.[train]'"
TRAIN_EXTRA_MODULES = frozenset(
    {"torch", "torchvision", "ultralytics", "lap", "onnx", "onnxslim", "PIL", "matplotlib"}
)
"""Top-level modules that come with the `train` extra (pyproject.toml; pillow and matplotlib
with ultralytics): a step missing one says so in one line (`train_extra_needed`)."""


def train_extra_missing(step: str, needs: str) -> SystemExit:
    """The one line a step stops with when what it `needs` comes with the `train` extra."""
    return SystemExit(f"{step}: {needs}: {TRAIN_EXTRA_INSTALL}")


@contextmanager
def train_extra_needed(step: str) -> Iterator[None]:
    """Stops `step` with `train_extra_missing`'s line, not a traceback, where a module of the
    train extra (torch, ultralytics, onnx, ...) is not installed; any other failed import is
    raised as it is."""
    try:
        yield
    except ModuleNotFoundError as error:
        module = (error.name or "").partition(".")[0]
        if module not in TRAIN_EXTRA_MODULES:
            raise
        raise train_extra_missing(step, f"needs {module}, which is not installed") from None


def command_cards(args: argparse.Namespace) -> None:
    train_and_publish("cards", args, **CORNER_AUGMENTATION)


def command_corners(args: argparse.Namespace) -> None:
    train_and_publish("corners", args, **CORNER_AUGMENTATION)


def command_classifier(args: argparse.Namespace) -> None:
    train_and_publish("classifier", args, **CLASSIFIER_AUGMENTATION)


def command_faces(args: argparse.Namespace) -> None:
    train_and_publish("faces", args, **CLASSIFIER_AUGMENTATION)


def command_publish(args: argparse.Namespace) -> None:
    """Publishes the best weights of a stopped or finished run (e.g. one cut short for time)."""
    run_dir = Path(args.run)
    target = PUBLISHED[args.model]
    task = "classify" if args.model in CLASSIFIERS else "pose"
    trained = run_setting(run_dir, "task")
    if trained != task:  # the runtime would refuse the file only when it loads it
        raise SystemExit(
            f"{run_dir} trained a {trained} model, and {args.model} is a {task} model: give "
            "the run of that model"
        )
    # As the run was trained: a classifier trained on 32 px crops reads 32 px crops.
    imgsz, data = int(run_setting(run_dir, "imgsz")), Path(run_setting(run_dir, "data"))
    metrics = final_metrics(run_dir, 0, argparse.Namespace(imgsz=imgsz, data=str(data)))
    best = run_dir / "weights" / "best.pt"
    publish_weights(
        best,
        Path(args.models_dir) / target.name,
        imgsz,
        metrics,
        dynamic=args.model in DYNAMIC_EXPORTS,
        crops=data if args.model == "classifier" else None,
    )


QUANTIZABLE = {name: export for name, export in PUBLISHED.items() if export in QUANTIZED}
"""The models `quantize` makes 8-bit models of, by the names `publish` knows them by."""


def command_quantize(args: argparse.Namespace) -> None:
    """The chosen exports (`args.models`, names of `QUANTIZABLE`) in 8 bits, each calibrated
    on the same renders of decks/train; every export is looked for before the first is made."""
    models_dir, shared = Path(args.models_dir), Path(args.shared)
    exports = [QUANTIZABLE[name] for name in args.models]
    missing = [models_dir / export.name for export in exports]
    missing = [path for path in missing if not path.is_file()]
    if missing:
        raise SystemExit(
            f"quantize: model file not found: {', '.join(map(str, missing))} (publish the "
            "trained models first: python -m models.train publish --help)"
        )
    with calibration_renders(shared, args.renders, args.seed) as renders:
        for export in exports:
            source, target = models_dir / export.name, models_dir / QUANTIZED[export].name
            try:
                if export == INDEX_ONNX:
                    crops = calibration_inputs(renders, IndexClassifier(source), args.seed)
                    quantize_classifier(source, target, crops)
                else:
                    photos = detector_calibration_inputs(renders, CardDetector(source))
                    quantize_detector(source, target, photos)
            except (QuantizeError, ModelFileError) as error:
                raise SystemExit(f"quantize: {error}") from None


def command_data(args: argparse.Namespace) -> None:
    if args.truetype and not typefaces.available():
        raise train_extra_missing("data", "--truetype needs pillow and matplotlib")
    val = len(val_frames(args.count, TrainingSettings().val_fraction))
    if not 0 < val < args.count:  # data.yaml names both splits; training needs both
        raise SystemExit(f"data: --count {args.count} leaves the val split empty; give 2 or more")
    Path(args.out).mkdir(parents=True, exist_ok=True)  # before the designs load: said at once
    with output_folder_checked("data"):
        render_dataset(
            Path(args.out),
            args.count,
            args.seed,
            Path(args.shared),
            args.size,
            procedural=args.procedural,
            truetype=args.truetype,
            count_spreads=args.count_spreads,
            hand_fans=args.hand_fans,
            tight_fans=args.tight_fans,
            cast_shadows=args.cast_shadows,
        )


@contextmanager
def output_folder_checked(step: str) -> Iterator[None]:
    """An --out that holds another's files of the names the step writes: one line."""
    try:
        yield
    except OutputFolderError as error:
        raise SystemExit(f"{step}: {error}") from None


def _card_finder(detector_path: str | None, corners_path: str | None = None) -> QuadFinder | None:
    """Card quads where the detector finds whole cards and, given `corners_path`, where the
    index-corner detector's windows imply cards (None without either), with the runtime's own
    settings: the classifiers learn the cards and faint windows `identify` reads, and to
    refuse what they should."""
    if not (detector_path or corners_path):
        return None
    detector = CardDetector(Path(detector_path), iou_max=CARD_IOU_MAX) if detector_path else None
    corners = (
        CardDetector(Path(corners_path), CORNER_SCORE_MIN, CORNER_IOU_MAX) if corners_path else None
    )

    def find(image: np.ndarray) -> list[np.ndarray]:
        quads = [c.quad for c in (detector(image) if detector else []) if not c.index_corner]
        # A window found alone is cut where the card it implies lies, as the runtime does.
        for corner in corners(image) if corners else []:
            quads.append(card_from_window(corner.quad, CORNER_WINDOW_MM))
        return quads

    return find


def render_folders(step: str, given: list[str]) -> list[Path]:
    """The --renders folders, each one `data` made (its labels in meta/train); else the step
    stops in one line, not after cutting nothing from a folder of something else."""
    folders = [Path(folder) for folder in given]
    for folder in folders:
        if not (folder / "meta" / "train").is_dir():
            raise SystemExit(
                f"{step}: --renders {folder} holds no renders (no meta/train): give a folder "
                "that 'data' made"
            )
    return folders


def command_crops(args: argparse.Namespace) -> None:
    renders = render_folders("crops", args.renders)
    find = _card_finder(args.detector, args.corners)
    try:
        with output_folder_checked("crops"):
            write_crops(
                renders,
                Path(args.out),
                args.seed,
                find=find,
                window_mm=tuple(args.window_mm),
                min_card_length_px=args.min_card_length,
            )
    except ImageFileError as error:
        raise SystemExit(f"crops: {error}") from None


def command_face_crops(args: argparse.Namespace) -> None:
    renders = render_folders("face-crops", args.renders)
    find = _card_finder(args.detector)
    try:
        with output_folder_checked("face-crops"):
            write_faces(renders, Path(args.out), args.seed, find=find)
    except ImageFileError as error:
        raise SystemExit(f"face-crops: {error}") from None


def command_edje(args: argparse.Namespace) -> None:
    try:
        edje_dataset(Path(args.shared), Path(args.out))
    except FileNotFoundError as error:
        raise SystemExit(f"edje: {error}") from None


def command_mix(args: argparse.Namespace) -> None:
    """One detector data.yaml over several render folders and real-photo folders; validation
    on the first render folder's held-out images. With `index_corners`, the data of the
    index-corner detector instead: each render folder is copied beside the data.yaml, labelled
    with its index windows only (`models/index_corners.py`)."""
    renders, real = [Path(folder) for folder in args.renders], [Path(f) for f in args.real]
    for folder in [*renders, *real]:
        if not (folder / "images" / "train").is_dir():
            raise SystemExit(f"mix: {folder} has no images/train (make it with 'data' or 'edje')")
    classes: tuple[str, ...] = CARD_CLASSES
    if args.index_corners:
        if real:
            raise SystemExit(
                "mix: real photos have no index-corner labels, so they would teach the "
                "detector that their indices are none; leave out --real with --index-corners"
            )
        for folder in renders:
            if not (folder / "meta").is_dir():
                raise SystemExit(f"mix: {folder} has no meta/ (make it with 'data')")
        out_dir = Path(args.out).parent
        copies = [out_dir / f"{folder.name}_index" for folder in renders]
        for folder, copy in zip(renders, copies, strict=True):
            index_corner_dataset(folder, copy)
        renders, classes = copies, CORNER_CLASSES
    write_data_yaml(
        Path(args.out),
        [folder / "images" / "train" for folder in [*renders, *real]],
        renders[0] / "images" / "val",
        classes,
        pose=True,
    )


def command_mix_crops(args: argparse.Namespace) -> None:
    """One classifier dataset from shares of several crop folders."""
    try:
        train = [CropSource.parse(text) for text in args.train]
        val = [CropSource.parse(text) for text in args.val or args.train[:1]]
        mix_crops(Path(args.out), train, val)
    except CropMixError as error:
        raise SystemExit(f"mix-crops: {error}") from None
