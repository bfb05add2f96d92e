"""Checks of `python -m models.train` arguments before any work: a missing input named at once,
not as a traceback, nor as ultralytics' attempt to download a dataset of that name."""

from __future__ import annotations

import argparse
from pathlib import Path

from models.dataset import TRUETYPE_SEEDS

INPUT_PATHS = {
    "data": "path",
    "init": "file",
    "run": "folder",
    "renders": "folder",
    "real": "folder",
    "detector": "file",
    "corners": "file",
}
"""Options naming inputs, and what each must be (`path`: a file or a folder)."""
COUNTS = ("count", "images", "epochs", "card_epochs", "classifier_epochs", "batch", "imgsz")
"""Options that count things: at least 1."""


def check_inputs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """`parser.error` (exit 2, one line) for an input that is not there or a count under 1."""
    for name, kind in INPUT_PATHS.items():
        value = getattr(args, name, None)
        given = value if isinstance(value, list) else [value]
        for path in (Path(text) for text in given if isinstance(text, str)):
            there = {"file": path.is_file, "folder": path.is_dir, "path": path.exists}[kind]()
            if not there:
                what = "file or folder" if kind == "path" else kind
                parser.error(f"--{name.replace('_', '-')} {path}: no such {what}")
    run = getattr(args, "run", None)
    if isinstance(run, str) and not (Path(run) / "weights" / "best.pt").is_file():
        parser.error(f"--run {run}: no weights/best.pt in it (not an ultralytics run folder)")
    for name in COUNTS:
        value = getattr(args, name, None)
        if isinstance(value, int) and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, not {value}")
    for name in ("procedural", "truetype"):
        value = getattr(args, name, None)
        if isinstance(value, int) and value > DRAWN_DESIGNS_MAX:
            parser.error(
                f"--{name} {value}: at most {DRAWN_DESIGNS_MAX} (more would draw the designs of "
                "another seed's renders)"
            )
    out = getattr(args, "out", None)
    if getattr(args, "step", "") != "mix" and isinstance(out, str) and Path(out).is_file():
        parser.error(f"--out {out} is a file: give a folder for what the step writes")
    data = getattr(args, "data", None)
    if isinstance(data, str):
        _check_training_data(parser, getattr(args, "step", ""), Path(data))
    device = getattr(args, "device", None)
    if isinstance(device, str) and device.strip().lower() not in ("", "cpu"):
        _check_device(parser, device.strip().lower())


def _check_device(parser: argparse.ArgumentParser, device: str) -> None:
    """`parser.error` for a --device this machine lacks, said before any work (ultralytics
    says it with a traceback, in `all` after the renders are made)."""
    try:
        import torch  # noqa: PLC0415  (the train extra: without it, the step says so itself)
    except ImportError:
        return
    if device == "mps":
        if not torch.backends.mps.is_available():
            parser.error("--device mps: no Apple GPU here; give --device cpu")
        return
    count = torch.cuda.device_count()
    if device in ("cuda", "-1") and count:  # the first GPU; the idlest (ultralytics' -1)
        return
    wanted = [part.strip().removeprefix("cuda:") for part in device.split(",")]
    if all(part.isdigit() and int(part) < count for part in wanted):
        return
    here = f"CUDA devices 0 to {count - 1}" if count else "no CUDA GPU"
    parser.error(f"--device {device}: this machine has {here}; give --device cpu, or 0 for a GPU")


DRAWN_DESIGNS_MAX = TRUETYPE_SEEDS
"""The most procedural or TrueType designs a render set draws: the seeds of each kind follow
on (`models.dataset.DESIGN_SEED_STRIDE`)."""
DETECTOR_STEPS = {"cards": "'data' or 'mix'", "corners": "'mix --index-corners'"}
"""The detector trainings, with the steps that write their data.yaml."""
CLASSIFIER_STEPS = {"classifier": "'crops'", "faces": "'face-crops'"}
"""The classifier trainings, with the steps that write their crop folders."""


def _check_training_data(parser: argparse.ArgumentParser, step: str, data: Path) -> None:
    """`parser.error` unless a training's --data is of its kind: given another (a render
    folder to the classifier), ultralytics would make up classes from its subfolders and
    publish what it learnt over the committed model, or fail deep in torchvision."""
    if step in DETECTOR_STEPS and data.suffix not in (".yaml", ".yml"):
        parser.error(
            f"--data {data}: give a data.yaml, as {DETECTOR_STEPS[step]} writes"
            + (f" (e.g. {data / 'data.yaml'})" if (data / "data.yaml").is_file() else "")
        )
    if step in CLASSIFIER_STEPS:
        empty = [split for split in ("train", "val") if not any(data.glob(f"{split}/*/*.*"))]
        if empty:
            parser.error(
                f"--data {data}: no crops in {' or '.join(f'{split}/' for split in empty)}: give "
                f"a crop folder as {CLASSIFIER_STEPS[step]} writes (train/ and val/, a folder of "
                "crops for each class; val/ holds the crops of the renders' val split)"
            )
