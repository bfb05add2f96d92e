"""`python -m models.train all`: every step from renders to published models, resumable."""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path
from typing import Any

from models import CARDS_INT8_ONNX
from models.dataset import MIN_CARD_LENGTH_PX
from models.runs import CARDS_IMGSZ, DEFAULT_WARMUP_EPOCHS
from models.steps import (
    command_cards,
    command_classifier,
    command_corners,
    command_crops,
    command_data,
    command_edje,
    command_face_crops,
    command_faces,
    command_mix,
    command_quantize,
)
from simulator.training import frame_size
from simulator.training_scenes import SceneMix
from vision.geometry import FACE_CROP_PX, INDEX_CROP_PX, INDEX_WINDOW_MM

log = logging.getLogger(__name__)

RENDER_SIZE = "960x540"
"""Frame size of the renders `data` and `all` make: the size the published models' renders
were made at (the model cards)."""
WHERE_NOT_WHAT = frozenset({"device", "workers"})
"""Settings of a step that say where it runs, not what it makes: a run begun on the CPU may
go on on a GPU without `all` calling it done otherwise."""
ALL_RENDER_SEED_OFFSET = 1
"""`all` renders with --seed plus this and cuts and trains with --seed itself: at the default
seed, 0, that is render seed 1 and crop seed 0, the seeds `all` has always used."""


def command_all(args: argparse.Namespace) -> None:
    """Every step from renders to published models, each skipped once done: run it again
    after an interruption and it goes on where it stopped (training resumes its last epoch)."""
    work = Path(args.work).resolve()
    # Resolved, so that a folder given another way next time is the same setting.
    args.models_dir, args.shared = (
        str(Path(path).resolve()) for path in (args.models_dir, args.shared)
    )
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
        # At the detector just trained, in 8 bits as the runtime reads it: the classifiers
        # learn its corner errors.
        detector = str(Path(args.models_dir) / CARDS_INT8_ONNX.name)
        return argparse.Namespace(
            renders=[str(renders)], out=str(out), seed=args.seed, detector=detector, **options
        )

    def quantizing(*models: str) -> argparse.Namespace:
        return argparse.Namespace(
            models=list(models),
            models_dir=args.models_dir,
            shared=args.shared,
            renders=args.calibration_renders,
            seed=args.seed,
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
        # Before the crops are cut, at the card detector as the runtime reads it.
        ("quantize-detectors", command_quantize, quantizing("cards", "corners")),
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
        ("quantize", command_quantize, quantizing("classifier")),
        ("face-crops", command_face_crops, cutting(faces)),
        ("faces", command_faces, training(faces, args.classifier_epochs, FACE_CROP_PX, 128)),
    ]
    for name, handler, step_args in steps:
        done = work / f"{name}.done"
        settings = {
            key: str(value)
            for key, value in sorted(vars(step_args).items())
            if key not in WHERE_NOT_WHAT
        }
        if done.is_file():
            _check_same_settings(done, settings, work)
            log.info("%s: done before, skipped", name)
            continue
        step_args.resume = (runs / name / "weights" / "last.pt").is_file()
        log.info("%s: %s", name, "resuming" if step_args.resume else "starting")
        handler(step_args)
        done.parent.mkdir(parents=True, exist_ok=True)
        record = {"finished": time.strftime("%Y-%m-%d %H:%M:%S"), "settings": settings}
        done.write_text(json.dumps(record, indent=1) + "\n")


def _check_same_settings(done: Path, settings: dict[str, str], work: Path) -> None:
    """Stops `all` where a step done before had other settings (more epochs, another folder to
    publish to): skipping it would keep what those made."""
    try:
        before = json.loads(done.read_text()).get("settings", settings)
    except (ValueError, AttributeError):  # written before settings were kept
        return
    changed = [
        f"{key} {before.get(key)} -> {value}"
        for key, value in settings.items()
        if before.get(key) != value
    ]
    if changed:
        raise SystemExit(
            f"all: {done.stem} was done in {work} with other settings ({'; '.join(changed)}): "
            f"give another --work, or delete {work} to start again"
        )


if __name__ == "__main__":
    raise SystemExit("the whole recipe runs as: python -m models.train all (--help says how)")
