"""Packs render folders for training both pose detectors on a borrowed GPU machine.

    python -m models.gpu.pack build/renders11 build/renders10 --edje build/edje --out .gpu
    OUT=... bash models/gpu/run.sh      # on the GPU machine, from the repository root

A borrowed machine takes the repository and at most 64 MiB with it, so the images travel at
the detectors' own input size (416 px, WebP) and both detectors' labels (whole cards, index
windows from each render's meta/) share them, rounded and compressed.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import subprocess
from pathlib import Path

import cv2

from models.index_corners import index_corner_dataset
from models.runs import CARDS_IMGSZ

log = logging.getLogger(__name__)

WEBP_QUALITY = 75
"""Keeps four render sets and the edje photos inside the machine's 64 MiB."""
VAL_PER_SET = 50
"""Held-out images per render set: the runs validate every epoch, so few keep it quick."""
LABEL_DECIMALS = 4
"""0.04 px at 416 px, against 6 decimals written by the renders."""


def _shrink(source: Path, target: Path) -> None:
    image = cv2.imread(str(source))
    if image is None:
        raise SystemExit(f"pack: cannot read {source}")
    height, width = image.shape[:2]
    scale = CARDS_IMGSZ / max(height, width)
    size = (round(width * scale), round(height * scale))
    target.parent.mkdir(parents=True, exist_ok=True)
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    if not cv2.imwrite(str(target), small, [cv2.IMWRITE_WEBP_QUALITY, WEBP_QUALITY]):
        raise SystemExit(f"pack: cannot write {target}")


def _short(value: str) -> str:
    return f"{float(value):.{LABEL_DECIMALS}f}".rstrip("0").rstrip(".") or "0"


def _copy_label(source: Path, target: Path) -> None:
    rows = [line.split() for line in source.read_text().splitlines()]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(" ".join([r[0], *map(_short, r[1:])]) + "\n" for r in rows))


def pack(renders: list[Path], edje: Path | None, out: Path, limit: int | None = None) -> int:
    """Writes out/data/images/{train,val,edje} and out/labels.txz; returns the image count."""
    shutil.rmtree(out / "data", ignore_errors=True)
    staging = out / "staging"
    shutil.rmtree(staging, ignore_errors=True)
    packed = 0
    for folder in renders:
        windows = out / "index" / folder.name
        if not (windows / "labels").is_dir():
            index_corner_dataset(folder, windows)
        for split in ("train", "val"):
            stems = sorted(p.stem for p in (folder / "labels" / split).glob("*.txt"))
            stems = stems[:VAL_PER_SET] if split == "val" else stems
            for stem in stems[:limit]:
                name = f"{folder.name}_{stem}"
                image = next((folder / "images" / split).glob(f"{stem}.*"))
                _shrink(image, out / "data" / "images" / split / f"{name}.webp")
                for kind, labels in (("cards", folder), ("corners", windows)):
                    source = labels / "labels" / split / f"{stem}.txt"
                    _copy_label(source, staging / kind / split / f"{name}.txt")
                packed += 1
    if edje is not None:  # real photos: whole-card boxes for the card detector only
        for label in sorted((edje / "labels" / "train").glob("*.txt"))[:limit]:
            image = next((edje / "images" / "train").glob(f"{label.stem}.*"))
            _shrink(image, out / "data" / "images" / "edje" / f"edje_{label.stem}.webp")
            _copy_label(label, staging / "cards" / "edje" / f"edje_{label.stem}.txt")
            packed += 1
    archive = out / "labels.txz"
    subprocess.run(["tar", "cJf", str(archive), "-C", str(staging), "."], check=True)
    shutil.rmtree(staging)
    log.info("packed %d images into %s", packed, out)
    return packed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m models.gpu.pack",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("renders", nargs="+", type=Path, help="render folders ('data')")
    parser.add_argument("--edje", type=Path, help="real photos ('edje'), for the card detector")
    parser.add_argument("--out", type=Path, default=Path(".gpu"), help="default: %(default)s")
    parser.add_argument("--limit", type=int, help="images per folder and split (a quick test)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for folder in args.renders:
        if not (folder / "meta").is_dir():
            parser.error(f"{folder} is no render folder (no meta/; make it with 'data')")
    pack(args.renders, args.edje, args.out, args.limit)


if __name__ == "__main__":
    main()
