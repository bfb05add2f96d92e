"""Real photos for the card detector: `real/edje_tf_cards/images/train` as a pose dataset.

Its labels are whole-card boxes (axis-aligned, every card face up) without corners, so each
card is written with its four keypoints absent (visibility 0): ultralytics then trains the box
and the face-up class on real light and lenses, and the corners on renders alone. Only the
train folder is used; `images/test` is for measuring.
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path

from models.dataset import link_or_copy

log = logging.getLogger(__name__)

EDJE = Path("real") / "edje_tf_cards" / "images"
FACE_UP_CLASS = 0
"""`card_face_up` in the renders' data.yaml (simulator/training.py)."""
NO_CORNERS = " ".join(["0.000000"] * 12)


def edje_dataset(shared: Path, out: Path) -> int:
    """Writes out/images/train and out/labels/train (ultralytics layout); returns the count
    of labelled cards."""
    source = shared / EDJE
    labels_csv = source / "train_labels.csv"
    if not labels_csv.is_file():
        raise FileNotFoundError(f"no edje labels at {labels_csv} (is --shared right?)")
    lines: dict[str, list[str]] = {}
    with labels_csv.open() as handle:
        for row in csv.DictReader(handle):
            width, height = float(row["width"]), float(row["height"])
            x0, y0 = float(row["xmin"]) / width, float(row["ymin"]) / height
            x1, y1 = float(row["xmax"]) / width, float(row["ymax"]) / height
            box = f"{(x0 + x1) / 2:.6f} {(y0 + y1) / 2:.6f} {x1 - x0:.6f} {y1 - y0:.6f}"
            lines.setdefault(row["filename"], []).append(f"{FACE_UP_CLASS} {box} {NO_CORNERS}")
    images, labels = out / "images" / "train", out / "labels" / "train"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    for name, card_lines in lines.items():
        photo = source / "train" / name
        target = images / name
        if not target.exists():
            link_or_copy(photo, target)
        (labels / f"{Path(name).stem}.txt").write_text("\n".join(card_lines) + "\n")
    count = sum(len(card_lines) for card_lines in lines.values())
    log.info("edje: %d photos, %d cards -> %s", len(lines), count, out)
    return count
