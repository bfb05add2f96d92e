"""One classifier dataset from several crop folders, each thinned to every Nth crop.

Later rounds of the classifier train on new crops plus a share of the older ones, so that
what it learnt from them is not forgotten. The crops are hard-linked (copied where links are
impossible), so a mix costs no disk.
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path

from models.dataset import WINDOW_FILE, crops_window, link_or_copy

log = logging.getLogger(__name__)

MIX_ENTRIES = {"train", "val", WINDOW_FILE}
"""What a mix folder holds: a folder it finds holding anything else is not replaced."""


class CropMixError(ValueError):
    """A source that cannot be mixed: malformed, missing, cut with another window, or where
    the mix would be written."""


@dataclass(frozen=True)
class CropSource:
    """A crop folder and the share of it to take: every `every`th crop of each split."""

    folder: Path
    every: int = 1

    def __str__(self) -> str:
        return f"{self.folder}:{self.every}"

    @classmethod
    def parse(cls, text: str) -> CropSource:
        """`FOLDER` or `FOLDER:N`."""
        folder, _, every = text.rpartition(":") if ":" in text else (text, "", "1")
        if not every.isdecimal() or int(every) < 1:
            raise CropMixError(f"crop source {text!r}: N in FOLDER:N must be a whole number >= 1")
        return cls(Path(folder), int(every))


def mix_crops(out: Path, train: list[CropSource], val: list[CropSource]) -> dict[str, int]:
    """Writes out/{train,val}/<class>/ with links named after their source folder; returns
    the crops per split. Every source must have been cut with the same index window."""
    windows = {crops_window(source.folder) for source in [*train, *val]}
    for source in [*train, *val]:
        if not (source.folder / "train").is_dir():
            raise CropMixError(f"crop source {source.folder} has no train/ (make it with 'crops')")
        if _overlap(out, source.folder):
            # `out` is replaced before anything is linked, so the source would be lost.
            raise CropMixError(
                f"--out {out} would overwrite crop source {source.folder}: "
                "write the mix to a folder outside every source"
            )
    if len(windows) != 1:
        raise CropMixError(f"crop sources were cut with different index windows: {windows}")
    for sources in (train, val):
        names = [source.folder.name for source in sources]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            # Links are named after their folder, so two folders of one name would collide.
            raise CropMixError(f"crop sources share a folder name: {', '.join(twice)}")
    if out.is_file():
        raise CropMixError(f"--out {out} is a file, not a folder")
    if out.exists():
        # Only an earlier mix is replaced: '--out .' once emptied the folder it was run in.
        foreign = sorted(p.name for p in out.iterdir() if p.name not in MIX_ENTRIES)
        if foreign or (any(out.iterdir()) and not (out / WINDOW_FILE).is_file()):
            shown = ", ".join(foreign[:3]) or "no index window file"
            raise CropMixError(
                f"--out {out} holds more than an earlier mix ({shown}): it would be emptied; "
                "give a new folder"
            )
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (window,) = windows
    (out / WINDOW_FILE).write_text(json.dumps({"index_window_mm": list(window)}) + "\n")
    totals = {}
    for split, sources in (("train", train), ("val", val)):
        totals[split] = sum(_link_split(source, split, out / split) for source in sources)
        log.info("%s: %d crops from %s", split, totals[split], ", ".join(map(str, sources)))
    return totals


def _overlap(first: Path, second: Path) -> bool:
    """Whether two folders are one, or one lies inside the other (links followed)."""
    first, second = first.resolve(), second.resolve()
    return first == second or first in second.parents or second in first.parents


def _link_split(source: CropSource, split: str, target: Path) -> int:
    crops = sorted((source.folder / split).glob("*/*.png"))[:: source.every]
    for crop in crops:
        folder = target / crop.parent.name
        folder.mkdir(parents=True, exist_ok=True)
        link_or_copy(crop, folder / f"{source.folder.name}_{crop.name}")
    return len(crops)
