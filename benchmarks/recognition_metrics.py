"""What the recognition benchmark's measurements share: how a card found matches a true one, how
a share is printed, and writing every figure (`--metrics`) with the day, the commit measured
(and whether its measured code had uncommitted changes) and the options."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from vision.detections import CardDetection

Reader = Callable[[np.ndarray], list[CardDetection]]
"""A way of reading a photo's cards (the pipeline, with or without tiles)."""
Figures = dict[str, dict[str, object]]
"""Every figure printed, by measurement: what `--metrics` writes."""
MATCH_OVERLAP = 0.5
"""A card found matches a true card at this overlap of their outlines."""


def percent(part: int, whole: int) -> str:
    """`part` of `whole` as a percentage; n/a of nothing (a small run may hold no such card)."""
    return f"{part / whole:.1%}" if whole else "n/a"


def refuse_unwritable(parser: argparse.ArgumentParser, path: Path) -> None:
    """A usage error where the metrics file cannot be written (its folder is made if missing)."""
    folder = next((p for p in [path.parent, *path.parent.parents] if p.exists()), Path("."))
    if path.is_dir() or not os.access(path if path.exists() else folder, os.W_OK):
        parser.error(f"--metrics {path}: cannot be written here")


MEASURED_CODE = ("vision", "models", "benchmarks", "simulator")
"""What the figures depend on: changed and not committed, the commit recorded says so."""
METRICS_FILES = "models/*.metrics.json"
"""Figures, not code: an evaluation's own file, not yet committed, changes nothing measured."""


def write_metrics(
    path: Path,
    options: dict[str, object],
    targets: dict[str, float],
    figures: Figures,
) -> None:
    """Every figure of the run as JSON, with the day, the commit measured, the options and the
    targets."""
    repository = Path(__file__).resolve().parents[1]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
        cwd=repository,
    ).stdout.strip()
    # Changed or new files (a module not yet added), bar figures.
    changed = subprocess.run(
        ["git", "status", "--porcelain", "--", *MEASURED_CODE, f":(exclude){METRICS_FILES}"],
        capture_output=True,
        text=True,
        check=False,
        cwd=repository,
    ).stdout.strip()
    if commit and changed:  # the code measured is not the commit's alone
        commit += " with uncommitted changes"

    def shown(value: object) -> object:  # the repository's own files by their place in it
        if not isinstance(value, Path):
            return value
        whole = value.resolve()
        return str(whole.relative_to(repository) if whole.is_relative_to(repository) else value)

    record = {
        "measured": time.strftime("%Y-%m-%d"),
        "commit": commit or None,
        "options": {key: shown(value) for key, value in options.items()},
        "targets": targets,
        "figures": figures,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=1) + "\n")
    except OSError as error:  # a read-only mount, a full disk: the figures stand printed above
        raise SystemExit(
            f"cannot write {path}: {error.strerror or error} (figures above)"
        ) from None
    print(f"figures written to {path}")
