"""Training runs of the recognition models with ultralytics: train, export, publish.

Each model trains from its yaml or from earlier weights (`--init`), keeps its checkpoints
under its run folder (so `--resume` continues it) and publishes its best weights to models/
with an ONNX export and a metrics file, which the model cards quote."""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any

from models import CARDS_ONNX, CORNERS_ONNX, FACES_ONNX, INDEX_ONNX, MODELS_DIR, QUANTIZED
from models.dataset import crops_window
from vision.onnx_models import INDEX_WINDOW_KEY

log = logging.getLogger(__name__)

REPO = MODELS_DIR.parent
DEFAULT_RUNS = REPO / "build" / "runs"
CARDS_IMGSZ = 416
"""The detectors' input side in pixels: a 1280 px photo shrinks by about 3 (its cards 90 px
long become 29); the runtime reads the size from each export, so retraining may change it."""
DEFAULT_WARMUP_EPOCHS = 3.0
"""ultralytics' own default, kept for runs from scratch."""
THREADS = 2
"""Torch and OpenCV threads on CPU: the cores of the machines the models were made on."""
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


def ultralytics_offline() -> Any:
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


def train_run(kind: str, model_yaml: str, args: argparse.Namespace, **overrides: Any) -> Path:
    ultralytics = ultralytics_offline()
    run_dir = Path(args.runs).resolve() / kind  # ultralytics would file a relative one elsewhere
    last = run_dir / "weights" / "last.pt"
    started = time.monotonic()
    best = run_dir / "weights" / "best.pt"
    earlier = ultralytics.YOLO(str(last)) if last.is_file() else None
    if earlier is not None and not args.resume and _resumable(earlier.ckpt):
        # Started afresh over it, ultralytics would overwrite its epochs.
        raise SystemExit(
            f"{run_dir} holds a training stopped after epoch {earlier.ckpt['epoch'] + 1}: add "
            "--resume to go on from there, or move it away to start over"
        )
    resumed = earlier if args.resume else None
    if resumed is not None and not _resumable(resumed.ckpt):
        # Finished (ultralytics strips the optimizer at the end), its export or its `.done`
        # cut short: resuming would start a new training on ultralytics' default data.
        _check_trained_as_asked(run_dir, args, finished=True)
        log.info("%s: %s finished training before; its best weights go on", kind, last)
        return best
    if resumed is not None:
        # Resumed, ultralytics keeps the settings the run was started with, bar a few.
        _check_trained_as_asked(run_dir, args, finished=False)
        _note_clock_before_resuming(run_dir)
        resumed.train(resume=True, device=args.device, workers=_workers(args))
    else:
        # --init continues from earlier weights (more epochs on top of a finished run).
        model = ultralytics.YOLO(args.init or model_yaml)
        model.train(
            data=str(args.data),
            epochs=args.epochs,
            imgsz=args.imgsz,
            batch=args.batch,
            device=args.device,
            workers=_workers(args),
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
    log.info("%s trained in %.0f s; best weights %s", kind, time.monotonic() - started, best)
    return best


def _check_trained_as_asked(run_dir: Path, args: argparse.Namespace, *, finished: bool) -> None:
    """Stops where a run, `finished` or to be resumed, was started otherwise than now asked
    (more epochs, other data): its weights would be published as if it had been, and a
    resumed run goes on as it was started."""
    asked = {"data": str(Path(args.data).resolve()), "imgsz": str(args.imgsz)}
    if args.hours is None:  # a time budget has ultralytics fit the epochs to it
        asked["epochs"] = str(args.epochs)
    trained = {key: run_setting(run_dir, key) for key in asked}
    trained["data"] = str(Path(trained["data"]).resolve())
    changed = [
        f"{key} {trained[key]} -> {asked[key]}" for key in asked if trained[key] != asked[key]
    ]
    if changed:
        how = "finished training" if finished else "was started"
        raise SystemExit(
            f"{run_dir} {how} otherwise ({'; '.join(changed)}): move it away to train again, "
            "or ask for what it was trained with"
        )


def _resumable(checkpoint: dict[str, Any] | None) -> bool:
    """Whether an ultralytics checkpoint is of a training still under way (as ultralytics
    decides in `Model.train(resume=True)`)."""
    return bool(
        checkpoint and checkpoint.get("epoch", -1) >= 0 and checkpoint.get("optimizer") is not None
    )


def publish_weights(
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
    ultralytics = ultralytics_offline()
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
    quantized = {export.name: int8.name for export, int8 in QUANTIZED.items()}
    if onnx_target.name in quantized:
        log.warning(
            "the runtime reads %s, made from this export by `python -m models.train quantize "
            "--models-dir %s` (a later step of `all`)",
            quantized[onnx_target.name],
            onnx_target.parent,
        )


def final_metrics(run_dir: Path, seconds: float, args: argparse.Namespace) -> dict[str, Any]:
    header, rows = _results(run_dir)
    timed = _training_seconds(run_dir)
    return {
        "epochs_run": len(rows),
        "train_seconds": round(seconds if timed is None else timed),
        "imgsz": args.imgsz,
        "data": str(args.data),
        "final": dict(zip(header, rows[-1], strict=False)) if rows else {},
    }


def _results(run_dir: Path) -> tuple[list[str], list[list[str]]]:
    """A run's results.csv: its column names and each epoch's cells (none without the file)."""
    results = run_dir / "results.csv"
    lines = results.read_text().splitlines() if results.is_file() else []
    table = [[cell.strip() for cell in line.split(",")] for line in lines]
    return (table[0], table[1:]) if table else ([], [])


CLOCK_BEFORE_RESUMING = "clock_before_resuming.txt"
"""Beside a run: ultralytics' clock (`time` of results.csv) where each resumption began, one
number a line. Its clock starts again in the process that resumes a run."""


def _note_clock_before_resuming(run_dir: Path) -> None:
    clock = _clock(run_dir)
    if clock:
        with (run_dir / CLOCK_BEFORE_RESUMING).open("a") as noted:
            noted.write(f"{clock[-1]}\n")


def _clock(run_dir: Path) -> list[float]:
    """The `time` column of a run's results.csv (empty without one); rows cut short skipped."""
    header, rows = _results(run_dir)
    if "time" not in header:
        return []
    column = header.index("time")
    return [float(row[column]) for row in rows if len(row) > column and row[column]]


def _training_seconds(run_dir: Path) -> float | None:
    """The time every epoch of a run took (None without a clock): the clock where each
    resumption began (`CLOCK_BEFORE_RESUMING`), and where it ends now. A run resumed before
    those were noted: each fall of the clock is taken for a new process."""
    clock = _clock(run_dir)
    if not clock:
        return None
    noted = run_dir / CLOCK_BEFORE_RESUMING
    if noted.is_file():
        starts = [float(line) for line in noted.read_text().split() if line]
    else:
        starts = [before for before, after in itertools.pairwise(clock) if after < before]
    return sum(starts) + clock[-1]


PUBLISHED = {
    "cards": CARDS_ONNX,
    "corners": CORNERS_ONNX,
    "classifier": INDEX_ONNX,
    "faces": FACES_ONNX,
}
"""What each model publishes (at the input side it was trained at)."""
CLASSIFIERS = ("classifier", "faces")
"""The classification models (YOLOv8n-cls)."""
DYNAMIC_EXPORTS = (*CLASSIFIERS, "cards")
"""Models exported with dynamic axes: a classifier reads every crop of a photo in one run, and
the card detector looks at photos of small cards larger than its own size
(`vision.reading_settings.CLOSE_LOOK_SIDE`)."""


def train_and_publish(kind: str, args: argparse.Namespace, **overrides: Any) -> None:
    started = time.monotonic()
    classifier = kind in CLASSIFIERS
    best = train_run(
        kind, "yolov8n-cls.yaml" if classifier else "yolov8n-pose.yaml", args, **overrides
    )
    if args.train_only:
        return
    metrics = final_metrics(best.parent.parent, time.monotonic() - started, args)
    publish_weights(
        best,
        Path(args.models_dir) / PUBLISHED[kind].name,
        args.imgsz,
        metrics,
        dynamic=kind in DYNAMIC_EXPORTS,
        crops=Path(args.data) if kind == "classifier" else None,
    )


def run_setting(run_dir: Path, name: str) -> str:
    """One of the arguments ultralytics saved beside a run (`data`, `imgsz`)."""
    settings = run_dir / "args.yaml"
    if settings.is_file():
        for line in settings.read_text().splitlines():
            key, _, value = line.partition(":")
            if key == name:
                return value.strip()
    raise SystemExit(f"{settings} names no {name}")


def _workers(args: argparse.Namespace) -> int:
    """--workers as given (0: batches loaded in the training process itself), else 2 on a CPU
    and every core on a GPU machine."""
    if args.workers is not None:
        return int(args.workers)
    return THREADS if args.device == "cpu" else os.cpu_count() or THREADS
