"""mix-crops: shares of several crop folders in one dataset, refused when windows differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.crop_mix import CropMixError, CropSource, mix_crops
from models.dataset import WINDOW_FILE
from models.train import main


def crop_folder(root: Path, name: str, per_class: int, window: tuple[float, float]) -> Path:
    folder = root / name
    for split in ("train", "val"):
        for label in ("2H", "none"):
            (folder / split / label).mkdir(parents=True)
            for number in range(per_class):
                (folder / split / label / f"{number:06d}.png").write_bytes(b"png")
    (folder / WINDOW_FILE).write_text(json.dumps({"index_window_mm": list(window)}))
    return folder


def test_a_source_round_trips_through_its_text() -> None:
    assert CropSource.parse("build/crops_old:4") == CropSource(Path("build/crops_old"), 4)
    assert CropSource.parse("build/crops") == CropSource(Path("build/crops"), 1)
    assert str(CropSource(Path("a/b"), 3)) == "a/b:3"
    with pytest.raises(CropMixError, match="'a:0'"):
        CropSource.parse("a:0")


def test_every_nth_crop_of_each_source_is_linked_under_its_folder_name(tmp_path: Path) -> None:
    new = crop_folder(tmp_path, "new", 5, (26.0, 32.0))
    old = crop_folder(tmp_path, "old", 8, (26.0, 32.0))
    out = tmp_path / "mix"
    totals = mix_crops(out, [CropSource(new), CropSource(old, 4)], [CropSource(new, 2)])
    # new: 2 classes x 5; old: 16 crops sorted, every 4th = 4; val: 10 crops, every 2nd = 5.
    assert totals == {"train": 14, "val": 5}
    assert sorted(p.name for p in (out / "train" / "2H").iterdir()) == [
        *(f"new_{n:06d}.png" for n in range(5)),
        "old_000000.png",
        "old_000004.png",
    ]
    assert json.loads((out / WINDOW_FILE).read_text()) == {"index_window_mm": [26.0, 32.0]}
    assert (out / "train" / "2H" / "new_000000.png").stat().st_nlink == 2


def test_sources_cut_with_different_windows_are_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    square = crop_folder(tmp_path, "square", 1, (26.0, 26.0))
    tall = crop_folder(tmp_path, "tall", 1, (26.0, 32.0))
    with pytest.raises(SystemExit, match="different index windows"):
        main(["mix-crops", "--out", str(tmp_path / "mix"), "--train", str(square), str(tall)])
    with pytest.raises(SystemExit, match="nowhere has no train"):
        main(["mix-crops", "--out", str(tmp_path / "mix"), "--train", str(tmp_path / "nowhere")])


def test_two_sources_of_one_folder_name_are_refused(tmp_path: Path) -> None:
    first = crop_folder(tmp_path / "a", "crops", 1, (26.0, 32.0))
    second = crop_folder(tmp_path / "b", "crops", 1, (26.0, 32.0))
    with pytest.raises(CropMixError, match="share a folder name: crops"):
        mix_crops(tmp_path / "mix", [CropSource(first), CropSource(second)], [CropSource(first)])


@pytest.mark.parametrize("where", ["the source", "above it", "inside it"])
def test_a_mix_written_over_its_sources_is_refused_and_they_survive(
    tmp_path: Path, where: str
) -> None:
    source = crop_folder(tmp_path / "crops", "new", 2, (26.0, 32.0))
    out = {"the source": source, "above it": tmp_path, "inside it": source / "mix"}[where]
    crops = sorted(source.rglob("*.png"))
    with pytest.raises(CropMixError, match=f"--out {out} would overwrite crop source {source}"):
        mix_crops(out, [CropSource(source)], [CropSource(source)])
    assert crops and sorted(source.rglob("*.png")) == crops


def test_a_mix_over_a_source_stops_with_one_line(tmp_path: Path) -> None:
    source = crop_folder(tmp_path, "new", 1, (26.0, 32.0))
    with pytest.raises(SystemExit, match=r"^mix-crops: --out .* would overwrite crop source"):
        main(["mix-crops", "--out", str(source), "--train", str(source)])
    assert (source / "train" / "2H" / "000000.png").is_file()


def test_only_an_earlier_mix_is_replaced(tmp_path: Path) -> None:
    source = crop_folder(tmp_path / "crops", "new", 2, (26.0, 32.0))
    out = tmp_path / "mix"
    mix_crops(out, [CropSource(source)], [CropSource(source)])
    assert mix_crops(out, [CropSource(source, 2)], [CropSource(source)])["train"] == 2
    (out / "thesis.txt").write_text("mine")
    with pytest.raises(CropMixError, match=r"holds more than an earlier mix \(thesis.txt\)"):
        mix_crops(out, [CropSource(source)], [CropSource(source)])
    assert (out / "thesis.txt").read_text() == "mine"
    elsewhere = tmp_path / "work"
    (elsewhere / "train").mkdir(parents=True)  # a folder named so, yet no mix
    with pytest.raises(CropMixError, match=r"\(no index window file\)"):
        mix_crops(elsewhere, [CropSource(source)], [CropSource(source)])
    assert (elsewhere / "train").is_dir()
