"""Train and export the recognition models: one documented command per step.

    python -m models.train data --out build/renders --count 1500        # labelled renders
    python -m models.train crops --renders build/renders --out build/crops \
        --detector models/cards.onnx         # also cut where the detector puts corners
    python -m models.train cards --data build/renders/data.yaml --epochs 30
    python -m models.train classifier --data build/crops --epochs 10
    python -m models.train mix-crops --out build/mix --train build/crops build/old:4  # shares
    python -m models.train cards ... --init models/cards.pt   # more epochs on top of the last
    python -m models.train edje --out build/edje   # real photos, boxes only, for the detector
    python -m models.train mix --out build/mix.yaml --renders build/r1 build/r2 --real build/edje
    python -m models.train mix --out build/corners/data.yaml --renders build/r1 --index-corners
    python -m models.train corners --data build/corners/data.yaml --epochs 30  # index corners
    python -m models.train quantize    # the index classifier in 8 bits, as the runtime reads it

Each training run keeps its checkpoints under --runs (default build/runs); run the same command
with --resume to continue an interrupted run. The best weights are copied to models/ with their
ONNX export and a metrics file, which the model cards quote. Needs the `train` extra (torch,
ultralytics); nothing is downloaded: models are built from their yaml.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from models import CARDS_ONNX, CORNERS_ONNX, FACES_ONNX, INDEX_INT8_ONNX, INDEX_ONNX, MODELS_DIR
from models.crop_mix import CropMixError, CropSource, mix_crops
from models.dataset import (
    MIN_CARD_LENGTH_PX,
    ImageFileError,
    QuadFinder,
    crops_window,
    render_dataset,
    write_crops,
)
from models.face_crops import write_faces
from models.index_corners import CORNER_CLASSES, index_corner_dataset
from models.quantize import (
    CALIBRATION_RENDERS,
    QuantizeError,
    calibration_inputs,
    quantize_classifier,
)
from models.real_photos import edje_dataset
from simulator import typefaces
from simulator.labels import CARD_CLASSES
from simulator.training import frame_size, write_data_yaml
from simulator.training_scenes import SceneMix
from vision.geometry import FACE_CROP_PX, INDEX_CROP_PX, INDEX_WINDOW_MM, card_from_window
from vision.identify import CARD_IOU_MAX, CORNER_IOU_MAX, CORNER_SCORE_MIN
from vision.onnx_models import (
    CORNER_WINDOW_MM,
    INDEX_WINDOW_KEY,
    CardDetector,
    IndexClassifier,
    ModelFileError,
)

log = logging.getLogger(__name__)

REPO = MODELS_DIR.parent
DEFAULT_SHARED = REPO.parent / "shared"
DEFAULT_RUNS = REPO / "build" / "runs"
CARDS_IMGSZ = 416
RENDER_SIZE = "960x540"
"""Frame size of the renders `data` and `all` make: the size the published models' renders
were made at (the model cards)."""
ALL_RENDER_SEED_OFFSET = 1
"""`all` renders with --seed plus this and cuts and trains with --seed itself: at the default
seed, 0, that is render seed 1 and crop seed 0, the seeds `all` has always used."""
DEFAULT_WARMUP_EPOCHS = 3.0
"""ultralytics' own default, kept for runs from scratch."""
THREADS = 2
CORNER_AUGMENTATION: dict[str, Any] = {
    # No flips (a mirrored card is not a card) and no rotation: the renders have every angle.
    "fliplr": 0.0,
    "flipud": 0.0,
    "degrees": 0.0,
    "mosaic": 1.0,
    "scale": 0.5,
    "hsv_h": 0.02,
}
"""Augmentation of both pose detectors (whole cards, index corners)."""
CLASSIFIER_AUGMENTATION: dict[str, Any] = {
    # No random crop or RandAugment: their shifts and rotations cut the index out of a crop
    # already cut with the detector's corner errors (models/dataset.py), which taught noise.
    "scale": 0.0,
    "auto_augment": None,
    # Any hue: suits must be read by shape, since four-colour decks paint them blue and green.
    "hsv_h": 0.5,
    "hsv_s": 0.7,
    "hsv_v": 0.4,
    "erasing": 0.1,
    "fliplr": 0.0,
    "flipud": 0.0,
}


def _ultralytics() -> Any:
    """Imports ultralytics offline, with the thread settings it would otherwise change."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(REPO / "build" / "yolo-config"))
    os.environ.setdefault("MPLCONFIGDIR", str(REPO / "build" / "mpl-config"))
    import cv2  # noqa: PLC0415
    import torch  # noqa: PLC0415
    import ultralytics  # noqa: PLC0415

    torch.set_num_threads(THREADS)
    cv2.setNumThreads(THREADS)
    return ultralytics


def _train(kind: str, model_yaml: str, args: argparse.Namespace, **overrides: Any) -> Path:
    ultralytics = _ultralytics()
    run_dir = Path(args.runs).resolve() / kind  # ultralytics would file a relative one elsewhere
    last = run_dir / "weights" / "last.pt"
    started = time.time()
    if args.resume and last.is_file():
        model = ultralytics.YOLO(str(last))
        model.train(resume=True)
    else:
        # --init continues from earlier weights (more epochs on top of a finished run).
        model = ultralytics.YOLO(args.init or model_yaml)
        model.train(
            data=str(args.data),
            epochs=args.epochs,
            imgsz=args.imgsz,
            batch=args.batch,
            device=args.device,
            workers=args.workers or (THREADS if args.device == "cpu" else os.cpu_count()),
            project=str(run_dir.parent),
            name=run_dir.name,
            exist_ok=True,
            pretrained=bool(args.init),
            amp=False,
            plots=False,
            seed=args.seed,
            fraction=args.fraction,
            patience=max(5, args.epochs // 3),
            warmup_epochs=args.warmup_epochs,
            **({} if args.lr0 is None else {"optimizer": "AdamW", "lr0": args.lr0}),
            # ultralytics fits the epochs into this budget once it has timed the first one.
            time=args.hours,
            **overrides,
        )
    best = run_dir / "weights" / "best.pt"
    log.info("%s trained in %.0f s; best weights %s", kind, time.time() - started, best)
    return best


def _publish(
    best: Path,
    onnx_target: Path,
    imgsz: int,
    metrics: dict[str, Any],
    *,
    dynamic: bool = False,
    crops: Path | None = None,
) -> None:
    """Copies the checkpoint and its ONNX export to models/; `dynamic` exports dynamic batch
    and image axes (`DYNAMIC_EXPORTS`). A classifier names
    its `crops` folder: their index window goes into the ONNX metadata, where the runtime
    reads it, and into the metrics."""
    metadata = {}
    if crops is not None:
        width, height = crops_window(crops)
        metadata[INDEX_WINDOW_KEY] = f"{width:g},{height:g}"
        metrics = metrics | metadata
    ultralytics = _ultralytics()
    onnx_target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(best, onnx_target.with_suffix(".pt"))
    exported = Path(
        ultralytics.YOLO(str(best)).export(
            format="onnx", imgsz=imgsz, simplify=True, opset=12, dynamic=dynamic
        )
    )
    if metadata:
        import onnx  # noqa: PLC0415  (a training dependency, as ultralytics is)

        model = onnx.load(str(exported))
        for key, value in metadata.items():
            model.metadata_props.add(key=key, value=value)
        onnx.save(model, str(exported))
    shutil.copy2(exported, onnx_target)
    onnx_target.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    log.info("published %s", onnx_target)
    if onnx_target.name == INDEX_ONNX.name:
        log.warning(
            "the runtime reads %s, made from this export by `python -m models.train quantize "
            "--models-dir %s` (the next step of `all`)",
            INDEX_INT8_ONNX.name,
            onnx_target.parent,
        )


def _final_metrics(run_dir: Path, seconds: float, args: argparse.Namespace) -> dict[str, Any]:
    results = run_dir / "results.csv"
    rows = results.read_text().splitlines() if results.is_file() else []
    header = [h.strip() for h in rows[0].split(",")] if rows else []
    last = (
        dict(zip(header, (v.strip() for v in rows[-1].split(",")), strict=False))
        if len(rows) > 1
        else {}
    )
    return {
        "epochs_run": max(0, len(rows) - 1),  # no results.csv: no epochs, not -1
        "train_seconds": round(seconds),
        "imgsz": args.imgsz,
        "data": str(args.data),
        "final": last,
    }


PUBLISHED = {
    "cards": (CARDS_ONNX, CARDS_IMGSZ),
    "corners": (CORNERS_ONNX, CARDS_IMGSZ),
    "classifier": (INDEX_ONNX, INDEX_CROP_PX),
    "faces": (FACES_ONNX, FACE_CROP_PX),
}
"""What each model publishes, and the input side `publish` exports it at."""
CLASSIFIERS = ("classifier", "faces")
"""The classification models (YOLOv8n-cls)."""
DYNAMIC_EXPORTS = (*CLASSIFIERS, "cards")
"""Models exported with dynamic axes: a classifier reads every crop of a photo in one run, and
the card detector looks at photos of small cards larger than its own size
(`vision.identify.CLOSE_LOOK_SIDE`)."""


def _train_and_publish(kind: str, args: argparse.Namespace, **overrides: Any) -> None:
    started = time.time()
    classifier = kind in CLASSIFIERS
    best = _train(
        kind, "yolov8n-cls.yaml" if classifier else "yolov8n-pose.yaml", args, **overrides
    )
    if args.train_only:
        return
    metrics = _final_metrics(best.parent.parent, time.time() - started, args)
    _publish(
        best,
        Path(args.models_dir) / PUBLISHED[kind][0].name,
        args.imgsz,
        metrics,
        dynamic=kind in DYNAMIC_EXPORTS,
        crops=Path(args.data) if kind == "classifier" else None,
    )


def command_cards(args: argparse.Namespace) -> None:
    _train_and_publish("cards", args, **CORNER_AUGMENTATION)


def command_corners(args: argparse.Namespace) -> None:
    _train_and_publish("corners", args, **CORNER_AUGMENTATION)


def command_classifier(args: argparse.Namespace) -> None:
    _train_and_publish("classifier", args, **CLASSIFIER_AUGMENTATION)


def command_faces(args: argparse.Namespace) -> None:
    _train_and_publish("faces", args, **CLASSIFIER_AUGMENTATION)


def command_publish(args: argparse.Namespace) -> None:
    """Publishes the best weights of a stopped or finished run (e.g. one cut short for time)."""
    run_dir = Path(args.run)
    target, imgsz = PUBLISHED[args.model]
    metrics = _final_metrics(run_dir, 0, argparse.Namespace(imgsz=imgsz, data=str(run_dir)))
    metrics["train_seconds"] = round(float(_column(run_dir, "time")[-1]))  # cumulative
    best = run_dir / "weights" / "best.pt"
    _publish(
        best,
        Path(args.models_dir) / target.name,
        imgsz,
        metrics,
        dynamic=args.model in DYNAMIC_EXPORTS,
        crops=_run_data(run_dir) if args.model == "classifier" else None,
    )


def command_quantize(args: argparse.Namespace) -> None:
    models_dir = Path(args.models_dir)
    source, target = models_dir / INDEX_ONNX.name, models_dir / INDEX_INT8_ONNX.name
    try:
        classifier = IndexClassifier(source)
        calibration = calibration_inputs(Path(args.shared), classifier, args.renders, args.seed)
    except (QuantizeError, ModelFileError) as error:
        raise SystemExit(f"quantize: {error}") from None
    quantize_classifier(source, target, calibration)


def _run_data(run_dir: Path) -> Path:
    """The data a run trained on, from the arguments ultralytics saved beside it."""
    for line in (run_dir / "args.yaml").read_text().splitlines():
        key, _, value = line.partition(":")
        if key == "data":
            return Path(value.strip())
    raise SystemExit(f"publish: {run_dir / 'args.yaml'} names no data")


def _column(run_dir: Path, name: str) -> list[str]:
    rows = (run_dir / "results.csv").read_text().splitlines()
    header = [h.strip() for h in rows[0].split(",")]
    return [row.split(",")[header.index(name)].strip() for row in rows[1:]]


def command_data(args: argparse.Namespace) -> None:
    if args.truetype and not typefaces.available():
        raise SystemExit("data: --truetype needs pillow and matplotlib: pip install -e '.[train]'")
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


def command_crops(args: argparse.Namespace) -> None:
    find = _card_finder(args.detector, args.corners)
    try:
        write_crops(
            [Path(folder) for folder in args.renders],
            Path(args.out),
            args.seed,
            find=find,
            window_mm=tuple(args.window_mm),
            min_card_length_px=args.min_card_length,
        )
    except ImageFileError as error:
        raise SystemExit(f"crops: {error}") from None


def command_face_crops(args: argparse.Namespace) -> None:
    renders = [Path(folder) for folder in args.renders]
    find = _card_finder(args.detector)
    try:
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


def command_all(args: argparse.Namespace) -> None:
    """Every step from renders to published models, each skipped once done: run it again
    after an interruption and it goes on where it stopped (training resumes its last epoch)."""
    work = Path(args.work).resolve()
    renders, crops, runs = work / "renders", work / "crops", work / "runs"
    faces = work / "faces"
    real, mixed, corners = work / "edje", work / "cards.yaml", work / "corners" / "data.yaml"
    common = {"runs": str(runs), "init": None, "seed": args.seed, "fraction": 1.0}
    common |= {"warmup_epochs": DEFAULT_WARMUP_EPOCHS}
    common |= {"device": args.device, "models_dir": args.models_dir}
    common |= {"train_only": False, "hours": None, "workers": None, "lr0": None}

    def training(data: Path, epochs: int, imgsz: int, batch: int) -> argparse.Namespace:
        return argparse.Namespace(data=str(data), epochs=epochs, imgsz=imgsz, batch=batch, **common)

    def cutting(out: Path, **options: Any) -> argparse.Namespace:
        # At the detector just trained: the classifiers learn its corner errors.
        detector = str(Path(args.models_dir) / CARDS_ONNX.name)
        return argparse.Namespace(
            renders=[str(renders)], out=str(out), seed=args.seed, detector=detector, **options
        )

    steps: list[tuple[str, Any, argparse.Namespace]] = [
        (
            "renders",
            command_data,
            argparse.Namespace(
                out=str(renders),
                count=args.images,
                seed=args.seed + ALL_RENDER_SEED_OFFSET,
                size=frame_size(RENDER_SIZE),
                shared=args.shared,
                procedural=args.procedural,
                truetype=args.truetype,
                count_spreads=SceneMix().count_spread_probability,
                hand_fans=SceneMix().hand_fan_weight,
                tight_fans=SceneMix().tight_fan_share,
                cast_shadows=args.cast_shadows,
            ),
        ),
        ("edje", command_edje, argparse.Namespace(out=str(real), shared=args.shared)),
        (
            "mix",
            command_mix,
            argparse.Namespace(
                out=str(mixed), renders=[str(renders)], real=[str(real)], index_corners=False
            ),
        ),
        (
            "cards",
            command_cards,
            training(mixed, args.card_epochs, CARDS_IMGSZ, 16),
        ),
        (
            "corners-mix",
            command_mix,
            argparse.Namespace(
                out=str(corners), renders=[str(renders)], real=[], index_corners=True
            ),
        ),
        ("corners", command_corners, training(corners, args.card_epochs, CARDS_IMGSZ, 16)),
        (
            "crops",
            command_crops,
            cutting(
                crops, corners=None, window_mm=INDEX_WINDOW_MM, min_card_length=MIN_CARD_LENGTH_PX
            ),
        ),
        (
            "classifier",
            command_classifier,
            training(crops, args.classifier_epochs, INDEX_CROP_PX, 128),
        ),
        (
            "quantize",
            command_quantize,
            argparse.Namespace(
                models_dir=args.models_dir,
                shared=args.shared,
                renders=args.calibration_renders,
                seed=args.seed,
            ),
        ),
        ("face-crops", command_face_crops, cutting(faces)),
        ("faces", command_faces, training(faces, args.classifier_epochs, FACE_CROP_PX, 128)),
    ]
    for name, handler, step_args in steps:
        done = work / f"{name}.done"
        if done.is_file():
            log.info("%s: done before, skipped", name)
            continue
        step_args.resume = (runs / name / "weights" / "last.pt").is_file()
        log.info("%s: %s", name, "resuming" if step_args.resume else "starting")
        handler(step_args)
        done.parent.mkdir(parents=True, exist_ok=True)
        done.write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m models.train",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="step", required=True)
    data = sub.add_parser("data", help="render labelled training images from decks/train")
    data.add_argument("--out", required=True)
    data.add_argument("--count", type=int, default=1500)
    data.add_argument(
        "--size",
        type=frame_size,
        default=RENDER_SIZE,
        metavar="WxH",
        help="frame size in pixels (default: %(default)s)",
    )
    data.add_argument(
        "--shared", default=str(DEFAULT_SHARED), help="the shared/ folder with decks/"
    )
    data.add_argument(
        "--procedural",
        type=int,
        default=0,
        metavar="N",
        help="also draw N seeded designs (simulator/procedural.py) for typeface variety",
    )
    data.add_argument(
        "--truetype",
        type=int,
        default=0,
        metavar="N",
        help="also draw N seeded designs in real typefaces (simulator/typefaces.py; needs the "
        "train extra's matplotlib fonts)",
    )
    data.add_argument(
        "--count-spreads",
        type=float,
        default=SceneMix().count_spread_probability,
        metavar="SHARE",
        help="share of scenes that are end-of-round count spreads of face-down cards "
        "(default %(default)s)",
    )
    data.add_argument(
        "--hand-fans",
        type=float,
        default=SceneMix().hand_fan_weight,
        metavar="WEIGHT",
        help="weight of face-up hands fanned sideways among the piles (default %(default)s; "
        "0 gives the scenes of renders made before them)",
    )
    data.add_argument(
        "--tight-fans",
        type=float,
        default=SceneMix().tight_fan_share,
        metavar="SHARE",
        help="share of those hands fanned 5-9 mm apart and stepped down the card, as bridge "
        "hands are photographed (default %(default)s, the scenes of renders made before)",
    )
    data.add_argument(
        "--cast-shadows",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of frames half in the shadow of someone leaning over the table (default "
        "%(default)s, as renders made before it)",
    )
    data.set_defaults(handler=command_data)
    publish = sub.add_parser("publish", help="publish the best weights of a run to models/")
    publish.add_argument("model", choices=sorted(PUBLISHED))
    publish.add_argument("--run", required=True, help="the run folder, e.g. build/runs/cards")
    publish.add_argument("--models-dir", default=str(MODELS_DIR))
    publish.set_defaults(handler=command_publish)
    quantize = sub.add_parser(
        "quantize",
        help="the published index classifier in 8 bits (index_classifier.int8.onnx), what the "
        "runtime reads; calibrated on renders of decks/train",
    )
    quantize.add_argument("--models-dir", default=str(MODELS_DIR))
    quantize.add_argument("--shared", default=str(DEFAULT_SHARED), help="the shared/ folder")
    quantize.add_argument(
        "--renders",
        type=int,
        default=CALIBRATION_RENDERS,
        help="renders of decks/train to cut calibration crops from (default %(default)s)",
    )
    quantize.set_defaults(handler=command_quantize)
    every = sub.add_parser(
        "all", help="renders, crops, every model, published: one resumable command"
    )
    every.add_argument("--work", default=str(REPO / "build" / "all"), help="working folder")
    every.add_argument("--images", type=int, default=4000, help="renders to make")
    every.add_argument("--procedural", type=int, default=40, help="seeded extra designs")
    every.add_argument(
        "--truetype", type=int, default=40, help="seeded extra designs in real typefaces"
    )
    every.add_argument(
        "--cast-shadows",
        type=float,
        default=0.5,
        metavar="SHARE",
        help="share of renders half in someone's shadow (default %(default)s)",
    )
    every.add_argument("--card-epochs", type=int, default=60)
    every.add_argument(
        "--classifier-epochs", type=int, default=20, help="of the index and the face classifier"
    )
    every.add_argument(
        "--calibration-renders",
        type=int,
        default=CALIBRATION_RENDERS,
        help="renders whose index crops calibrate the 8-bit classifier (default %(default)s)",
    )
    every.add_argument("--device", default="cpu", help="cpu, or a CUDA device such as 0")
    every.add_argument("--models-dir", default=str(MODELS_DIR), help="where to publish")
    every.add_argument("--shared", default=str(DEFAULT_SHARED), help="the shared/ folder")
    every.set_defaults(handler=command_all)
    edje = sub.add_parser(
        "edje", help="real photos (edje_tf_cards/images/train) as detector data: boxes only"
    )
    edje.add_argument("--out", required=True)
    edje.add_argument("--shared", default=str(DEFAULT_SHARED), help="the shared/ folder")
    edje.set_defaults(handler=command_edje)
    mix = sub.add_parser("mix", help="one detector data.yaml over several data folders")
    mix.add_argument("--out", required=True, metavar="DATA.yaml")
    mix.add_argument("--renders", required=True, nargs="+", help="render folders ('data')")
    mix.add_argument("--real", nargs="*", default=[], help="real-photo folders ('edje')")
    mix.add_argument(
        "--index-corners",
        action="store_true",
        help="data for the index-corner detector ('corners'): every readable index window, "
        "labelled from each render's meta/ "
        "(copies each render folder beside DATA.yaml; not with --real)",
    )
    mix.set_defaults(handler=command_mix)
    blend = sub.add_parser(
        "mix-crops",
        help="one classifier dataset from shares of several crop folders (hard links)",
        description="Example: mix-crops --out build/crops_mix --train build/crops_new "
        "build/crops_old:4 --val build/crops_new:2 (every 4th crop of crops_old).",
    )
    blend.add_argument("--out", required=True, help="the dataset folder (replaced)")
    blend.add_argument(
        "--train", required=True, nargs="+", metavar="FOLDER[:N]", help="every Nth train crop"
    )
    blend.add_argument(
        "--val", nargs="+", metavar="FOLDER[:N]", help="every Nth val crop (default: the first)"
    )
    blend.set_defaults(handler=command_mix_crops)
    crops = sub.add_parser("crops", help="cut index-corner crops from renders for the classifier")
    crops.add_argument("--renders", required=True, nargs="+", help="render folders")
    crops.add_argument("--out", required=True)
    crops.add_argument(
        "--detector",
        metavar="CARDS.onnx",
        help="also cut each card where this detector puts its corners, "
        "so that the classifier learns the detector's own corner errors",
    )
    crops.add_argument(
        "--corners",
        metavar="INDEX_CORNERS.onnx",
        help="also cut each card where this index-corner detector's windows imply it lies",
    )
    crops.add_argument(
        "--window-mm",
        nargs=2,
        type=float,
        default=INDEX_WINDOW_MM,
        metavar=("WIDTH", "HEIGHT"),
        help="size of the corner cut that holds the index; the classifier trained on these "
        "crops records it and the runtime cuts the same (default: %(default)s)",
    )
    crops.add_argument(
        "--min-card-length",
        type=float,
        default=MIN_CARD_LENGTH_PX,
        metavar="PX",
        help="cut no crops of cards shorter than this in the render (default: %(default)s)",
    )
    crops.set_defaults(handler=command_crops)
    faces = sub.add_parser(
        "face-crops", help="cut whole-card crops from renders for the face classifier"
    )
    faces.add_argument("--renders", required=True, nargs="+", help="render folders")
    faces.add_argument("--out", required=True)
    faces.add_argument(
        "--detector",
        metavar="CARDS.onnx",
        help="also cut each card where this detector puts its corners",
    )
    faces.set_defaults(handler=command_face_crops)
    for name, handler, imgsz, batch, data_help in (
        ("cards", command_cards, CARDS_IMGSZ, 16, "a data.yaml from 'data' or 'mix'"),
        ("corners", command_corners, CARDS_IMGSZ, 16, "a data.yaml from 'mix --index-corners'"),
        ("classifier", command_classifier, INDEX_CROP_PX, 128, "a crop folder from 'crops'"),
        ("faces", command_faces, FACE_CROP_PX, 128, "a crop folder from 'face-crops'"),
    ):
        step = sub.add_parser(name, help=f"train and export the {name} model")
        step.add_argument("--data", required=True, help=data_help)
        step.add_argument("--epochs", type=int, default=30, help="default: %(default)s")
        step.add_argument(
            "--imgsz", type=int, default=imgsz, help="input side in pixels (default: %(default)s)"
        )
        step.add_argument("--batch", type=int, default=batch, help="default: %(default)s")
        step.add_argument("--fraction", type=float, default=1.0, help="share of the data to use")
        step.add_argument(
            "--runs", default=str(DEFAULT_RUNS), help="where runs keep their epochs and logs"
        )
        step.add_argument("--resume", action="store_true", help="continue the last run")
        step.add_argument("--init", metavar="WEIGHTS.pt", help="start from these weights")
        step.add_argument(
            "--warmup-epochs",
            type=float,
            default=DEFAULT_WARMUP_EPOCHS,
            help="epochs over which the learning rate rises to its full value (default: "
            "%(default)s); short runs continuing trained weights spend most of 3 warming up",
        )
        step.add_argument(
            "--lr0",
            type=float,
            help="AdamW's learning rate (default: ultralytics chooses; for a few epochs on top "
            "of well-trained weights a tenth of its choice keeps what they learnt)",
        )
        step.add_argument("--models-dir", default=str(MODELS_DIR), help="where to publish")
        step.add_argument(
            "--train-only",
            action="store_true",
            help="keep the run's weights without exporting or publishing them (a machine "
            "without the export's tools); publish them later with 'publish'",
        )
        step.add_argument(
            "--hours",
            type=float,
            metavar="H",
            help="stop after this much training time, fitting the epochs to it "
            "(default: the epochs alone decide)",
        )
        step.add_argument("--device", default="cpu", help="cpu, or a CUDA device such as 0")
        step.add_argument(
            "--workers",
            type=int,
            help="data loading processes (default: 2 on cpu, every core on a GPU; "
            "give each of two runs sharing a machine half)",
        )
        step.set_defaults(handler=handler)
    for step_parser in sub.choices.values():
        step_parser.add_argument(
            "--seed", type=int, default=0, help="same seed, same result (default: %(default)s)"
        )
    args = parser.parse_args(argv)
    shared = getattr(args, "shared", None)
    if shared is not None and not Path(shared).is_dir():
        parser.error(
            f"--shared {shared}: no such folder (the shared/ folder with decks/ and real/)"
        )
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args.handler(args)


if __name__ == "__main__":
    main()
