"""The index-corner detector's data: a card's index corner, found on its own.

A card fanned under others, as bridge deals and Nerts work piles lie, may show little more than
its index strip: too little for the card detector to find it reliably. An `index_corner`
detection is the classifier's window at one index corner (`CORNER_WINDOW_MM`), with the
window's four corners as keypoints in reading order (top-left, top-right, bottom-right,
bottom-left of the upright index). Its first keypoint is the card's own corner, so the window
also says where the whole card lies (`vision/identify.py`).

A model of its own, not a third class of the card detector: tried as one (4 epochs from the
card detector's weights), it found under 1% of the index corners, since a window lies inside
its card's box and the training's assigner gives the anchors there to the card.

The labels are made from a render folder's `meta/` (which index of which card shows), so
renders made before this model existed train it too: `index_corner_dataset` writes a copy of
a render folder, the images hard-linked, labelled with its index corners only.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from models.dataset import link_or_copy, readable_corners
from vision.geometry import card_window
from vision.onnx_models import CORNER_WINDOW_MM, INDEX_CORNER_CLASS

log = logging.getLogger(__name__)

CORNER_CLASSES = (INDEX_CORNER_CLASS,)
"""The index-corner detector's one class."""


def index_windows(
    card_quad: np.ndarray,
    index_quads: list[np.ndarray],
    window: tuple[float, float] = CORNER_WINDOW_MM,
) -> dict[int, np.ndarray]:
    """Image quads of the windows (by corner, 0 or 1) of a card at `card_quad` (its true
    corners, first one an index corner) that hold the centre of one of its readable indices."""
    quads = [quad.tolist() for quad in index_quads]
    return {
        corner: card_window(card_quad, corner, window)
        for corner in sorted(readable_corners(card_quad, quads, window))
    }


def index_corner_line(quad: np.ndarray, size: tuple[int, int]) -> str | None:
    """The pose label line of one window (None when it lies wholly outside the image)."""
    width, height = size
    x0, y0 = np.clip(quad.min(axis=0), 0, None)
    x1, y1 = min(float(quad[:, 0].max()), width), min(float(quad[:, 1].max()), height)
    if x1 <= x0 or y1 <= y0:
        return None
    values = [(x0 + x1) / 2 / width, (y0 + y1) / 2 / height, (x1 - x0) / width, (y1 - y0) / height]
    for x, y in quad:
        inside = 0 <= x < width and 0 <= y < height
        values += [x / width, y / height, 2.0] if inside else [0.0, 0.0, 0.0]
    return f"{CORNER_CLASSES.index(INDEX_CORNER_CLASS)} " + " ".join(f"{v:.6f}" for v in values)


def index_corner_lines(meta: dict[str, Any]) -> list[str]:
    """Label lines of every readable index window of one render, from its meta record."""
    width, height = meta["size"]
    quads: dict[tuple[str, int], np.ndarray] = {}
    for card in meta["cards"]:
        quads[(card["card"], card["seat"])] = np.array(
            [point[:2] for point in card["keypoints"]], np.float32
        )
    shown: dict[tuple[str, int], list[np.ndarray]] = {}
    for index in meta["indices"]:
        shown.setdefault((index["card"], index["seat"]), []).append(
            np.array(index["quad"], np.float32)
        )
    lines = []
    for key, index_quads in shown.items():
        if key not in quads:
            continue
        for window in index_windows(quads[key], index_quads).values():
            line = index_corner_line(window, (width, height))
            if line is not None:
                lines.append(line)
    return lines


def index_corner_dataset(renders: Path, out: Path) -> int:
    """A copy of a render folder (`images/` hard-linked, `labels/` new) labelled with its
    index corners only; returns how many."""
    added = 0
    for meta_path in sorted((renders / "meta").glob("*/*.json")):
        split, stem = meta_path.parent.name, meta_path.stem
        meta = json.loads(meta_path.read_text())
        image = renders / meta["image"]
        lines = index_corner_lines(meta)
        added += len(lines)
        for sub in ("images", "labels"):
            (out / sub / split).mkdir(parents=True, exist_ok=True)
        target = out / "images" / split / image.name
        if not target.exists():
            link_or_copy(image, target)
        (out / "labels" / split / f"{stem}.txt").write_text("".join(f"{line}\n" for line in lines))
    log.info("%s: %d index corners -> %s", renders, added, out)
    return added
