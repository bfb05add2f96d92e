"""Index-corner labels: the classifier's window at every readable index, from a render's meta."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.index_corners import CORNER_CLASSES, index_corner_dataset, index_corner_lines
from models.train import main as train
from simulator.backs import default_backs
from simulator.faces import builtin_design
from simulator.training import TrainingSettings, generate_dataset
from vision.geometry import CARD_HEIGHT_MM, CARD_WIDTH_MM

SCALE = 4.0  # px per mm
ORIGIN = np.array([100.0, 50.0])  # the upright card's top-left corner in the image


def _px(points_mm: list[tuple[float, float]]) -> list[list[float]]:
    return [[float(x), float(y)] for x, y in np.array(points_mm) * SCALE + ORIGIN]


def _meta(index_boxes_mm: list[tuple[float, float]], size: tuple[int, int]) -> dict[str, object]:
    """One upright card (keypoints from its top-left corner) with 6 x 14 mm index boxes."""
    corners = [(0, 0), (CARD_WIDTH_MM, 0), (CARD_WIDTH_MM, CARD_HEIGHT_MM), (0, CARD_HEIGHT_MM)]
    card = {"card": "7D", "seat": 0, "keypoints": [[x, y, 2] for x, y in _px(corners)]}
    indices = [
        {"card": "7D", "seat": 0, "quad": _px([(x, y), (x + 6, y), (x + 6, y + 14), (x, y + 14)])}
        for x, y in index_boxes_mm
    ]
    return {"size": list(size), "cards": [card], "indices": indices}


def _keypoints(line: str, size: tuple[int, int]) -> np.ndarray:
    values = np.array(line.split()[5:], float).reshape(4, 3)
    return values[:, :2] * size


def test_each_readable_index_gives_its_window_in_reading_order() -> None:
    size = (500, 500)
    lines = index_corner_lines(_meta([(2, 3), (CARD_WIDTH_MM - 8, CARD_HEIGHT_MM - 17)], size))
    assert [line.split()[0] for line in lines] == ["0", "0"]
    assert CORNER_CLASSES == ("index_corner",)
    top_left = _px([(0, 0), (26, 0), (26, 32), (0, 32)])
    assert _keypoints(lines[0], size) == pytest.approx(np.array(top_left), abs=0.01)
    # The bottom-right window is read turned round: its first corner is the card's corner.
    w, h = CARD_WIDTH_MM, CARD_HEIGHT_MM
    bottom_right = _px([(w, h), (w - 26, h), (w - 26, h - 32), (w, h - 32)])
    assert _keypoints(lines[1], size) == pytest.approx(np.array(bottom_right), abs=0.01)
    # The box is the window's, normalised: centre x of the top-left window is 13 mm in.
    assert float(lines[0].split()[1]) == pytest.approx((100 + 13 * SCALE) / 500, abs=1e-5)


def test_an_index_in_no_window_and_an_index_outside_the_image_give_nothing() -> None:
    # A four-index design's top-right index lies in neither window.
    assert index_corner_lines(_meta([(CARD_WIDTH_MM - 8, 3)], (500, 500))) == []
    # A window wholly left of the image: the card is moved far off.
    meta = _meta([(2, 3)], (500, 500))
    for card in meta["cards"]:  # type: ignore[attr-defined]
        card["keypoints"] = [[x - 1000, y, v] for x, y, v in card["keypoints"]]
    for index in meta["indices"]:  # type: ignore[attr-defined]
        index["quad"] = [[x - 1000, y] for x, y in index["quad"]]
    assert index_corner_lines(meta) == []


def test_a_window_partly_outside_keeps_its_inside_corners_only() -> None:
    lines = index_corner_lines(_meta([(2, 3)], (180, 500)))  # the window spans x 100-204 px
    visibility = np.array(lines[0].split()[5:], float).reshape(4, 3)[:, 2]
    assert visibility.tolist() == [2.0, 0.0, 0.0, 2.0]


@pytest.fixture(scope="module")
def renders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("renders")
    settings = TrainingSettings(size=(480, 270), val_fraction=0.5, card_length_px=(120, 200))
    generate_dataset(
        out, 4, 2, [builtin_design()], default_backs(2), settings=settings, progress=False
    )
    return out


def test_the_dataset_copy_labels_every_render_with_its_windows_only(
    renders: Path, tmp_path: Path
) -> None:
    added = index_corner_dataset(renders, tmp_path / "copy")
    assert added > 0
    metas = sorted((renders / "meta").glob("*/*.json"))
    labels = sorted((tmp_path / "copy" / "labels").glob("*/*.txt"))
    assert [p.stem for p in metas] == [p.stem for p in labels]
    for meta, label in zip(metas, labels, strict=True):
        assert label.read_text().splitlines() == index_corner_lines(json.loads(meta.read_text()))
    assert sum(len(p.read_text().splitlines()) for p in labels) == added
    assert len(list((tmp_path / "copy" / "images").glob("*/*.jpg"))) == len(metas)


def test_mix_with_index_corners_writes_the_corner_class_and_refuses_real_photos(
    renders: Path, tmp_path: Path
) -> None:
    data = tmp_path / "mix" / "data.yaml"
    train(["mix", "--out", str(data), "--renders", str(renders), "--index-corners"])
    text = data.read_text()
    assert text.endswith("names:\n  0: index_corner\n") and f"{renders.name}_index" in text
    with pytest.raises(SystemExit, match="real photos have no index-corner labels"):
        real = ["--real", str(renders)]
        train(["mix", "--out", str(data), "--renders", str(renders), *real, "--index-corners"])
