"""The pack that carries render folders to a borrowed GPU machine keeps every label."""

from __future__ import annotations

import tarfile
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.dataset import read_image
from models.gpu.pack import _shrink, pack
from simulator.backs import default_backs
from simulator.faces import builtin_design
from simulator.training import TrainingSettings, generate_dataset


def _rows(text: str) -> list[list[float]]:
    return [[float(v) for v in line.split()] for line in text.splitlines()]


def test_pack_shrinks_images_and_keeps_both_detectors_labels(tmp_path: Path) -> None:
    renders = tmp_path / "renders"
    settings = TrainingSettings(size=(640, 360), val_fraction=0.5, card_length_px=(60, 120))
    generate_dataset(
        renders, 4, 0, [builtin_design()], default_backs(2), settings=settings, progress=False
    )
    out = tmp_path / "pack"
    assert pack([renders], None, out) == 4
    images = sorted((out / "data" / "images").glob("*/*.webp"))
    assert len(images) == 4
    for image in images:
        assert read_image(image).shape[:2] == (234, 416)
    with tarfile.open(out / "labels.txz") as archive:
        labels = {
            Path(m.name).as_posix().removeprefix("./"): archive.extractfile(m).read().decode()  # type: ignore[union-attr]
            for m in archive.getmembers()
            if m.isfile()
        }
    for image in images:
        split, name = image.parent.name, image.stem
        stem = name.removeprefix("renders_")
        original = _rows((renders / "labels" / split / f"{stem}.txt").read_text())
        packed = _rows(labels[f"cards/{split}/{name}.txt"])
        assert np.allclose(packed, original, atol=0.5e-4)
        assert f"corners/{split}/{name}.txt" in labels
    assert any(labels[k] for k in labels if k.startswith("corners/"))


def test_an_image_that_cannot_be_written_stops_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "render.jpg"
    assert cv2.imwrite(str(source), np.zeros((54, 96, 3), np.uint8))
    monkeypatch.setattr(cv2, "imwrite", lambda *_: False)
    target = tmp_path / "pack" / "render.webp"
    with pytest.raises(SystemExit, match=f"^pack: cannot write {target}$"):
        _shrink(source, target)
