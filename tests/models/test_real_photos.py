"""Real photos as detector data, and one data.yaml over several folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.real_photos import edje_dataset
from models.train import main as train

SHARED = Path(__file__).resolve().parents[3] / "shared"


@pytest.mark.skipif(not (SHARED / "real").is_dir(), reason="needs ../shared/real")
def test_edje_train_photos_become_boxes_without_corners(tmp_path: Path) -> None:
    assert edje_dataset(SHARED, tmp_path) == 527
    labels = sorted((tmp_path / "labels" / "train").glob("*.txt"))
    assert len(labels) == len(list((tmp_path / "images" / "train").iterdir())) == 296
    for label in labels:
        for line in label.read_text().splitlines():
            values = [float(v) for v in line.split()]
            assert len(values) == 17 and values[0] == 0  # card_face_up
            assert all(0 < v <= 1 for v in values[1:5]) and not any(values[5:])


def test_mix_lists_every_folder_and_validates_on_the_first(tmp_path: Path) -> None:
    for name in ("renders_a", "renders_b", "edje"):
        (tmp_path / name / "images" / "train").mkdir(parents=True)
    out = tmp_path / "round" / "data.yaml"  # a folder not made yet
    folders = [str(tmp_path / n) for n in ("renders_a", "renders_b")]
    train(["mix", "--out", str(out), "--renders", *folders, "--real", str(tmp_path / "edje")])
    text = out.read_text()
    trains = [f"{tmp_path / n}/images/train" for n in ("renders_a", "renders_b", "edje")]
    assert f"train: [{', '.join(trains)}]" in text
    assert f"val: {tmp_path / 'renders_a'}/images/val" in text
    assert "kpt_shape: [4, 3]" in text


def test_mix_names_a_folder_without_images(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match="empty has no images/train"):
        train(["mix", "--out", str(tmp_path / "m.yaml"), "--renders", str(tmp_path / "empty")])
