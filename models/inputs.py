"""Checks of `python -m models.train` arguments before any work: a missing input named at once,
not as a traceback, nor as ultralytics' attempt to download a dataset of that name."""

from __future__ import annotations

import argparse
from pathlib import Path

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
