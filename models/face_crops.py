"""Training data for the face classifier: whole cards rectified and squeezed square.

A card at least `VISIBLE_NAMED` visible is labelled with its name; one mostly covered, and a
share of face-down cards, with `none`, so that the classifier says when a face does not show.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from models.dataset import QuadFinder, found_quad, jittered, read_image, write_classes
from simulator.training import replace_earlier_output
from vision.geometry import face_crop, rectify
from vision.reading_settings import NONE_CLASS

FACES_MARKER = "faces.json"
"""Written beside a face-crop set: a later run into its folder may replace it."""
VISIBLE_NAMED = 0.9
"""A face-up card showing at least this share of itself is cut with its name."""
VISIBLE_NONE = 0.45
"""A face-up card showing less than this is cut as `none` (covered); between the two, not
cut: its face is half another card's."""
FACE_DOWN_SHARE = 0.15
"""Share of face-down cards cut as `none` (backs are many in count spreads)."""
FACE_JITTER = 0.04
"""Corners moved by up to this share of the card's size for the cut at the true corners."""
NONE_KEEP = 1 / 6
"""Share of the `none` crops written: covered cards outnumber whole ones five to one."""


def labelled_faces(
    render_dir: Path, split: str, rng: np.random.Generator, find: QuadFinder | None = None
) -> Iterator[tuple[str, np.ndarray]]:
    """(class, face crop) for the cards of a split: cut at jittered true corners and, given
    `find`, also at the corners it finds; half turned 180 degrees (a card lies either way)."""
    for meta_path in sorted((render_dir / "meta" / split).glob("*.json")):
        meta = json.loads(meta_path.read_text())
        image = read_image(render_dir / "images" / split / f"{meta_path.stem}.jpg")
        found = find(image) if find is not None else []
        for card in meta["cards"]:
            if card["face_up"] and card["visible"] >= VISIBLE_NAMED:
                label = card["card"]
            elif (card["face_up"] and card["visible"] < VISIBLE_NONE) or (
                not card["face_up"] and rng.random() < FACE_DOWN_SHARE
            ):
                label = NONE_CLASS
            else:
                continue
            true_quad = np.array([k[:2] for k in card["keypoints"]], np.float32)
            cuts = [jittered(true_quad, rng, FACE_JITTER)]
            quad = found_quad(true_quad, found)
            if quad is not None:
                cuts.append(quad)
            for cut in cuts:
                crop = face_crop(rectify(image, cut))
                yield label, cv2.rotate(crop, cv2.ROTATE_180) if rng.random() < 0.5 else crop


def write_faces(
    render_dirs: list[Path], out: Path, seed: int, *, find: QuadFinder | None = None
) -> dict[str, int]:
    """Classification dataset (out/{train,val}/<class>/*.png) of whole faces, and the
    `FACES_MARKER` that tells it from other folders of those names."""
    rng = np.random.default_rng(seed)
    totals = {}
    replace_earlier_output(out, ("train", "val", FACES_MARKER), FACES_MARKER)
    out.mkdir(parents=True, exist_ok=True)
    (out / FACES_MARKER).write_text(json.dumps({"crops": "whole card faces"}) + "\n")
    for split in ("train", "val"):
        cut = (crop for folder in render_dirs for crop in labelled_faces(folder, split, rng, find))
        totals[split] = write_classes(cut, out / split, NONE_KEEP, rng, f"faces {split}")
    return totals
