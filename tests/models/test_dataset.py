"""Classifier crops: labels follow where a crop is cut, not where the card truly lies."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.dataset import (
    ImageFileError,
    labelled_crops,
    read_image,
    readable_corners,
    write_classes,
)
from models.face_crops import VISIBLE_NAMED, VISIBLE_NONE, labelled_faces
from models.train import main as train_main
from simulator import typefaces
from simulator.backs import default_backs
from simulator.faces import builtin_design
from simulator.training import TrainingSettings, generate_dataset
from vision.geometry import CARD_HEIGHT_MM, CARD_WIDTH_MM, FACE_CROP_PX
from vision.reading_settings import NONE_CLASS

SCALE = 4.0  # px per mm of an upright card drawn at the origin
CARD = np.array(
    [[0, 0], [CARD_WIDTH_MM, 0], [CARD_WIDTH_MM, CARD_HEIGHT_MM], [0, CARD_HEIGHT_MM]], np.float32
)


def _box(x_mm: float, y_mm: float) -> list[list[float]]:
    """A 6 x 14 mm index box at (x, y) on the upright card, in image px."""
    corners = [(x_mm, y_mm), (x_mm + 6, y_mm), (x_mm + 6, y_mm + 14), (x_mm, y_mm + 14)]
    return [[x * SCALE, y * SCALE] for x, y in corners]


def test_index_corners_follow_the_cut() -> None:
    quad = CARD * SCALE
    top_left, bottom_right = _box(3, 4), _box(CARD_WIDTH_MM - 9, CARD_HEIGHT_MM - 18)
    assert readable_corners(quad, [top_left]) == {0}
    assert readable_corners(quad, [top_left, bottom_right]) == {0, 1}
    # The same card cut from its other end: the first crop is the bottom-right corner.
    assert readable_corners(np.roll(quad, 2, axis=0), [top_left]) == {1}
    # Corners 30 mm off to the right: the top-left index is no longer in any crop.
    assert readable_corners(quad + np.array([30 * SCALE, 0], np.float32), [top_left]) == set()


def test_a_taller_window_holds_an_index_printed_lower() -> None:
    low = _box(3, 16)  # centre 23 mm down
    assert readable_corners(CARD * SCALE, [low], window_mm=(26.0, 22.0)) == set()
    assert readable_corners(CARD * SCALE, [low], window_mm=(26.0, 32.0)) == {0}


@pytest.fixture(scope="module")
def renders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("renders")
    settings = TrainingSettings(size=(480, 320), val_fraction=0.5, card_length_px=(110, 160))
    generate_dataset(out, 4, 2, [builtin_design()], default_backs(2), settings=settings)
    return out


def _true_quads(renders: Path, image: np.ndarray) -> list[np.ndarray]:
    """A perfect finder: the labelled corners of the render that `image` is."""
    for meta_path in sorted((renders / "meta" / "train").glob("*.json")):
        photo = read_image(renders / "images" / "train" / f"{meta_path.stem}.jpg")
        if np.array_equal(photo, image):
            cards = json.loads(meta_path.read_text())["cards"]
            return [np.array([k[:2] for k in c["keypoints"]], np.float32) for c in cards]
    raise AssertionError("not one of the renders")


def test_finding_nothing_cuts_what_jittered_corners_cut(renders: Path) -> None:
    plain = list(labelled_crops(renders, "train", np.random.default_rng(0)))
    nothing = list(labelled_crops(renders, "train", np.random.default_rng(0), lambda _: []))
    assert [label for label, _ in plain] == [label for label, _ in nothing]
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(plain, nothing, strict=True))


def test_found_corners_add_crops_labelled_with_cards_in_the_render(renders: Path) -> None:
    metas = [json.loads(p.read_text()) for p in (renders / "meta" / "train").glob("*.json")]
    face_up = {c["card"] for meta in metas for c in meta["cards"] if c["face_up"]}
    plain = [label for label, _ in labelled_crops(renders, "train", np.random.default_rng(0))]

    def perfect(image: np.ndarray) -> list[np.ndarray]:
        return _true_quads(renders, image)

    found = [
        label for label, _ in labelled_crops(renders, "train", np.random.default_rng(0), perfect)
    ]
    assert len(found) > len(plain)
    assert set(found) - {NONE_CLASS} <= face_up


def test_cards_shorter_than_the_minimum_length_give_no_crops(renders: Path) -> None:
    """The renders' cards are drawn 91-125 px long (110-160 px before the camera's tilt)."""
    default = [label for label, _ in labelled_crops(renders, "train", np.random.default_rng(0))]
    shorter = labelled_crops(renders, "train", np.random.default_rng(0), min_card_length_px=60)
    assert [label for label, _ in shorter] == default
    some = list(labelled_crops(renders, "train", np.random.default_rng(0), min_card_length_px=105))
    assert 0 < len(some) < len(default)
    longer = labelled_crops(renders, "train", np.random.default_rng(0), min_card_length_px=250)
    assert list(longer) == []


def test_faces_are_named_when_whole_and_none_when_mostly_covered(renders: Path) -> None:
    cards = [
        card
        for path in sorted((renders / "meta" / "train").glob("*.json"))
        for card in json.loads(path.read_text())["cards"]
    ]
    whole = {c["card"] for c in cards if c["face_up"] and c["visible"] >= VISIBLE_NAMED}
    covered = any(c["face_up"] and c["visible"] < VISIBLE_NONE for c in cards)
    faces = list(labelled_faces(renders, "train", np.random.default_rng(0)))
    labels = {label for label, _ in faces}
    assert whole and labels - {NONE_CLASS} == whole
    assert covered and NONE_CLASS in labels
    assert all(crop.shape == (FACE_CROP_PX, FACE_CROP_PX, 3) for _, crop in faces)


def test_truetype_designs_without_their_fonts_stop_with_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(typefaces, "available", lambda: False)
    with pytest.raises(SystemExit, match=r"--truetype needs pillow and matplotlib"):
        # A folder shaped as shared/: the fonts are checked before it is read.
        (tmp_path / "decks").mkdir()
        command = ["data", "--out", str(tmp_path / "r"), "--count", "1", "--truetype", "2"]
        train_main([*command, "--shared", str(tmp_path)])
    assert not (tmp_path / "r").exists()


def test_a_render_without_its_image_stops_naming_it(tmp_path: Path) -> None:
    renders = tmp_path / "renders"
    (renders / "meta" / "train").mkdir(parents=True)
    (renders / "meta" / "train" / "000000.json").write_text('{"cards": [], "indices": []}')
    missing = renders / "images" / "train" / "000000.jpg"
    with pytest.raises(ImageFileError, match=f"cannot read image {missing}"):
        list(labelled_crops(renders, "train", np.random.default_rng(0)))
    with pytest.raises(ImageFileError, match=f"cannot read image {missing}"):
        list(labelled_faces(renders, "train", np.random.default_rng(0)))
    for step in ("crops", "face-crops"):
        with pytest.raises(SystemExit, match=f"^{step}: cannot read image {missing}$"):
            train_main([step, "--renders", str(renders), "--out", str(tmp_path / step)])


def test_a_crop_that_cannot_be_written_stops_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cv2, "imwrite", lambda *_: False)
    crop = np.zeros((8, 8, 3), np.uint8)
    with pytest.raises(ImageFileError, match=f"cannot write image {tmp_path / '2H' / '000000'}"):
        write_classes([("2H", crop)], tmp_path, 1.0, np.random.default_rng(0), "test")
