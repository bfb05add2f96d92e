"""The committed models on small rendered fixtures: the whole inference path, exact results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from models import (
    INDEX_INT8_ONNX,
    INDEX_ONNX,
)
from models.dataset import read_image
from nerts.cli import main
from nerts.commands.identify import _table
from simulator.scene import CardPose
from tests.vision.renders import on_felt
from tests.vision.test_merging import _card
from vision import identify as identify_module
from vision import onnx_models
from vision.detections import CardDetection
from vision.geometry import (
    INDEX_WINDOW_MM,
    LEGACY_INDEX_WINDOW_MM,
    RECTIFIED_PX_PER_MM,
    card_window,
)
from vision.identify import CardReader, _stock_shares
from vision.onnx_models import (
    CORNER_WINDOW_MM,
    DETECTION_SCORE_MIN,
    IndexClassifier,
    RawCard,
)
from vision.reading_settings import (
    CORNER_SCORE_MIN,
    FACE_DOWN_READ_MIN,
    INDEX_SCORE_MIN,
    NO_INDEX_READ_MIN,
    READ_CUTS,
    READ_MARGIN_MM,
    STOCK_SHARE_MIN,
    SURE_READ_MIN,
    WindowCut,
)
from vision.votes import FACE_NONE_MAX, FACE_WEIGHT, INDEX_SURE_OVER_FACE, agreed, with_face

FACE_UP = {
    "QH": (120, 110, 10.0),
    "7S": (300, 100, -25.0),
    "AD": (480, 120, 95.0),
    "10C": (140, 260, 180.0),
    "KS": (330, 250, 40.0),
}
FACE_DOWN = [(480, 260, 15.0), (560, 250, -70.0)]


@pytest.fixture(scope="module")
def table_photo() -> np.ndarray:
    poses = [CardPose(card, 0, x, y, angle, True) for card, (x, y, angle) in FACE_UP.items()]
    poses += [CardPose("2H", 0, x, y, angle, False) for x, y, angle in FACE_DOWN]
    return on_felt(poses)


def test_names_every_face_up_card_and_finds_the_face_down_ones(
    reader: CardReader, table_photo: np.ndarray
) -> None:
    found = reader.read(table_photo)
    assert sorted(str(c.card) for c in found if c.face_up) == sorted(FACE_UP)
    assert sum(not c.face_up for c in found) == len(FACE_DOWN)
    assert all(0 < c.confidence <= 1 for c in found)


def test_the_tiled_search_finds_the_same_cards_once(
    reader: CardReader, table_photo: np.ndarray
) -> None:
    found = reader.read(table_photo, tiled=True)
    assert sorted(str(c.card) for c in found if c.face_up) == sorted(FACE_UP)
    assert sum(not c.face_up for c in found) == len(FACE_DOWN)


def test_quads_of_named_cards_start_on_a_short_side(
    reader: CardReader, table_photo: np.ndarray
) -> None:
    for card in reader.read(table_photo):
        if card.card:
            first, second, _, fourth = card.quad
            # Portrait order: the first edge is a short side of the card.
            assert np.linalg.norm(second - first) < np.linalg.norm(fourth - first)


def test_identify_json_lists_each_card_once(
    tmp_path: Path, table_photo: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), table_photo)
    assert main(["identify", str(photo), "--json", "--annotate", str(tmp_path / "a.png")]) == 0
    cards = json.loads(capsys.readouterr().out)[str(photo)]
    named = [c["card"] for c in cards if c["card"]]
    assert len(named) == len(set(named)) and set(named) == set(FACE_UP)
    assert all(len(c["quad"]) == 4 and c["back"] is None for c in cards)
    assert read_image(tmp_path / "a.png").shape == table_photo.shape


def test_identify_verbose_says_what_it_found_in_each_photo(
    tmp_path: Path, table_photo: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), table_photo)
    assert main(["identify", str(photo), "--json", "-v"]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "cards found" in line]
    assert len(said) == 1 and said[0].startswith(
        f"INFO nerts.commands.identify: {photo}: 1280 x 720 px, 7 cards found (5 face up, "
        "5 named) in "
    )


def test_identify_table_says_where_each_photo_is_drawn(
    tmp_path: Path, table_photo: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    photos = [tmp_path / "first.png", tmp_path / "second.png"]
    for photo in photos:
        cv2.imwrite(str(photo), table_photo)
    arguments = ["identify", *map(str, photos), "--annotate", str(tmp_path / "found.png")]
    assert main(arguments) == 0
    lines = capsys.readouterr().out.splitlines()
    second = next(n for n, line in enumerate(lines) if line.startswith(f"{photos[1]}: "))
    assert lines[0].startswith(f"{photos[0]}: ")
    assert lines[second - 1] == f"  drawn in {tmp_path / 'found-1.png'}"
    assert lines[-1] == f"  drawn in {tmp_path / 'found-2.png'}"
    for number in (1, 2):
        assert read_image(tmp_path / f"found-{number}.png").shape == table_photo.shape


def test_identify_warns_of_a_black_and_white_photo(
    tmp_path: Path, table_photo: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    colour, grey = tmp_path / "colour.png", tmp_path / "grey.png"
    cv2.imwrite(str(colour), table_photo)
    cv2.imwrite(str(grey), cv2.cvtColor(table_photo, cv2.COLOR_BGR2GRAY))
    assert main(["identify", str(colour), str(grey), "--json"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "black and white" in line]
    assert warnings == [
        f"warning: {grey} is black and white: suits are told apart by colour too, so a heart "
        "may be named a spade (or a diamond a club, or the other way); photograph the cards in "
        "colour"
    ]


def test_identify_stopped_names_the_photos_left_out_and_prints_those_read(
    tmp_path: Path,
    table_photo: np.ndarray,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    photos = [str(tmp_path / f"{name}.png") for name in ("one", "two", "three")]
    for photo in photos:
        cv2.imwrite(photo, table_photo)
    calls = iter(range(3))

    def read(_self: CardReader, _image: np.ndarray, tiled: bool = False) -> list[CardDetection]:
        if next(calls) == 1:  # Ctrl-C while the second photo is read
            raise KeyboardInterrupt
        return []

    monkeypatch.setattr(CardReader, "read", read)
    assert main(["identify", *photos, "--json"]) == 130
    out, err = capsys.readouterr()
    assert json.loads(out) == {photos[0]: []}
    assert f"warning: stopped: 1 of 3 photos read (those printed); left out: {photos[1]}, " in err
    assert err.endswith(f"{photos[2]}\nnerts: interrupted\n")


def test_identify_table_lists_each_card_with_how_sure_and_where() -> None:
    def card(
        name: str | None, up: bool, sure: float, x: int, back: str | None = None
    ) -> dict[str, object]:
        quad = [[x - 10, 40], [x + 10, 40], [x + 10, 80], [x - 10, 80]]
        return {"card": name, "face_up": up, "back": back, "quad": quad, "confidence": sure}

    found = [
        card(None, False, 0.9, 500, "blue"),
        card("10H", True, 0.876, 300),
        card(None, True, 0.3, 1200),
        card("2H", True, 0.994, 40),
        card(None, False, 0.7, 90, "rouge vif"),
        card(None, False, 0.5, 1275),  # cut by the photo's edge: the centre of what shows
    ]
    assert _table("t.jpg", found, (1280, 720)).splitlines() == [
        "t.jpg: 3 face up (2 named), 3 face down",
        "  card  face  back       sure  centre (x, y)",
        "  2H    up    -           99%    40,   60",
        "  10H   up    -           88%   300,   60",
        "  ?     up    -           30%  1200,   60",
        "  -     down  -           50%  1272,   60",
        "  -     down  blue        90%   500,   60",
        "  -     down  rouge vif   70%    90,   60",
        "  backs: blue 1, rouge vif 1",
    ]
    assert _table("none.jpg", [], (1280, 720)) == "none.jpg: 0 face up (0 named), 0 face down\n"


def test_the_published_classifier_cuts_the_window_it_was_trained_on() -> None:
    # The window is ONNX metadata, also written to the metrics file; a classifier exported
    # before the window was recorded was trained on the legacy square.
    classifier = IndexClassifier(INDEX_ONNX)
    recorded = json.loads(INDEX_ONNX.with_suffix(".metrics.json").read_text())
    expected = recorded.get("index_window_mm")
    if expected is None:
        assert classifier.window_mm == LEGACY_INDEX_WINDOW_MM
    else:
        assert classifier.window_mm == tuple(float(v) for v in expected.split(","))


def test_index_corners_of_surely_named_cards_are_not_read_again(reader: CardReader) -> None:
    sure, unsure, unnamed = _card(100, "6C", SURE_READ_MIN), _card(300, "9C", 0.9), _card(500)
    fanned_under = _card(130)  # 15 mm to the right of the sure card: its own window
    corners = [
        RawCard(card_window(card.quad, corner, CORNER_WINDOW_MM), True, 0.8, index_corner=True)
        for card, corner in [(sure, 0), (sure, 1), (unsure, 0), (unnamed, 1), (fanned_under, 0)]
    ]
    kept = reader._not_surely_named(corners, [sure, unsure, unnamed])
    assert [id(corner) for corner in kept] == [id(corners[i]) for i in (2, 3, 4)]


def test_a_card_with_no_index_in_either_corner_is_a_back(reader: CardReader) -> None:
    names = reader.classifier.names
    sides = np.zeros((2, len(names)), np.float32)
    sides[:, names.index("none")] = NO_INDEX_READ_MIN
    sides[:, names.index("4S")] = 1 - NO_INDEX_READ_MIN
    quad = _card(100).quad
    assert not reader._named(quad, 0.8, sides).face_up
    sides[1] = 0.0
    sides[1, names.index("4S")] = INDEX_SCORE_MIN + 0.1
    sides[1, names.index("none")] = 0.9 - INDEX_SCORE_MIN
    named = reader._named(quad, 0.8, sides)
    assert named.face_up and named.card == "4S"


def test_a_face_up_card_found_face_down_is_named_by_its_index(
    reader: CardReader, table_photo: np.ndarray
) -> None:
    """The detector takes some ornate court cards for backs: their index corners tell."""
    found = reader.read(table_photo)
    king = next(card for card in found if card.card == "KS")
    backs = [card for card in found if not card.face_up]
    taken = [RawCard(card.quad, False, 0.8) for card in [king, *backs]]
    named, *still_backs = reader._face_down(table_photo, taken)
    assert named.face_up and named.card == "KS" and named.card_score >= FACE_DOWN_READ_MIN
    assert [card.face_up for card in still_backs] == [False] * len(backs)


def test_card_stock_is_told_from_a_coloured_back() -> None:
    white = np.full((40, 30, 3), 235, np.uint8)
    printed = white.copy()
    printed[5:15, 5:12] = 20  # an index's ink is dark but not stock
    blue = np.zeros_like(white)
    blue[:] = (160, 60, 20)
    shares = _stock_shares([white, printed, blue])
    assert shares[0] == 1.0
    assert STOCK_SHARE_MIN < shares[1] < 1.0
    assert shares[2] == 0.0


def test_a_whole_face_outvotes_a_blurred_index(reader: CardReader) -> None:
    """A small 5H: its index reads 6H a little more surely than 5H; its face, five pips."""
    names = reader.classifier.names
    none = names.index("none")
    sides = np.zeros((2, len(names)), np.float32)
    sides[:, names.index("6H")], sides[:, names.index("5H")] = 0.7, 0.3
    face = np.zeros(len(names), np.float32)
    face[names.index("5H")], face[names.index("6H")] = 0.8, 0.2
    quad = _card(100).quad
    assert reader._named(quad, 0.8, sides).card == "6H"
    named = reader._named(quad, 0.8, sides, face)
    # Geometric mean, weighted: 5H 0.3^0.3 0.8^0.7 against 6H 0.7^0.3 0.2^0.7.
    five = 0.3 ** (1 - FACE_WEIGHT) * 0.8**FACE_WEIGHT
    six = 0.7 ** (1 - FACE_WEIGHT) * 0.2**FACE_WEIGHT
    assert named.card == "5H" and named.card_score == pytest.approx(five / (five + six), abs=1e-4)
    # A face read as covered is left out: the index alone names the card.
    face[none] = FACE_NONE_MAX
    assert reader._named(quad, 0.8, sides, face).card == "6H"
    assert with_face(sides.sum(axis=0), face, none) is None


def _readings(
    names: list[str], corners: dict[str, float], face: str
) -> tuple[np.ndarray, np.ndarray]:
    """Both index corners reading `corners` (name: probability), and a face read surely as
    `face`, as class probabilities."""
    sides = np.zeros((2, len(names)), np.float32)
    for name, probability in corners.items():
        sides[:, names.index(name)] = probability
    read_face = np.zeros(len(names), np.float32)
    read_face[names.index(face)] = 1.0
    return sides, read_face


def test_a_face_does_not_overturn_sure_index_corners(reader: CardReader) -> None:
    """An unseen design's court picture can read surely as another court card."""
    names = reader.classifier.names
    sure = INDEX_SURE_OVER_FACE
    sides, face = _readings(names, {"KD": sure, "JH": 1 - sure}, "JH")
    assert with_face(sides.sum(axis=0), face, names.index("none")) is None
    named = reader._named(_card(100).quad, 0.8, sides, face)
    assert named.card == "KD" and named.card_score == pytest.approx(sure)
    # Just under it, the face is heard, and here outvotes the corners.
    sides, face = _readings(names, {"KD": sure - 0.01, "JH": 1 - sure + 0.01}, "JH")
    assert reader._named(_card(100).quad, 0.8, sides, face).card == "JH"


def test_a_face_alone_cannot_name_what_no_index_corner_shows(reader: CardReader) -> None:
    names = reader.classifier.names
    sides, face = _readings(names, {"none": NO_INDEX_READ_MIN, "4S": 1 - NO_INDEX_READ_MIN}, "9C")
    assert not reader._named(_card(100).quad, 0.8, sides, face).face_up


def test_shifted_windows_name_only_what_they_agree_on() -> None:
    # Classes: 9H, QH, none. Three of five windows read the nine; two see the neighbour's
    # queen surely and rule the nine out.
    readings = np.array([[0.6, 0.05, 0.35]] * 3 + [[0.05, 0.9, 0.05]] * 2)
    assert readings.mean(axis=0).argmax() == 1
    combined = agreed(readings[None], axis=1)[0]
    assert combined.argmax() == 0 and combined.sum() == pytest.approx(1.0)
    # Windows that agree keep their reading; a zero does not make the logarithm fail.
    same = np.array([[0.6, 0.4, 0.0]] * 5)
    assert agreed(same, axis=0) == pytest.approx([0.6, 0.4, 0.0], abs=1e-5)


class _CountingClassifier:
    """Reads a crop's first pixel as its percent of `9H`, and counts the crops read."""

    def __init__(self) -> None:
        self.names = ["9H", "none"]
        self.window_mm = INDEX_WINDOW_MM
        self.crops_read = 0

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        self.crops_read += len(crops)
        return np.array([[c.flat[0] / 100, 1 - c.flat[0] / 100] for c in crops])


def test_a_sure_window_is_not_read_again_from_its_other_cuts() -> None:
    reader = CardReader.__new__(CardReader)
    reader.classifier = classifier = _CountingClassifier()  # type: ignore[assignment]
    reader.sure_read_min = SURE_READ_MIN
    cuts = len(READ_CUTS)
    # Views whose window starts on a block of its own: only the moved cuts start elsewhere.
    unshifted = round(READ_MARGIN_MM * RECTIFIED_PX_PER_MM)
    block = slice(unshifted, unshifted + 4)
    sure, unsure = np.zeros((140, 140), np.uint8), np.full((140, 140), 50, np.uint8)
    sure[block, block], unsure[block, block] = 100, 60
    readings = reader._read_windows([sure, unsure])
    assert readings.shape == (2, cuts, 2)
    assert classifier.crops_read == 2 + (cuts - 1)
    assert readings[0] == pytest.approx(np.array([[1.0, 0.0]] * cuts))
    moved = [cut.right_mm != 0 or cut.down_mm != 0 for cut in READ_CUTS]
    assert readings[1, :, 0] == pytest.approx([0.5 if m else 0.6 for m in moved])
    assert reader._read_windows([]).shape == (0, cuts, 2)


@pytest.mark.parametrize("scale", [0.85, 1.0, 1.15])
def test_a_scaled_cut_keeps_the_window_corner_and_reaches_scale_times_as_far(scale: float) -> None:
    reader = CardReader.__new__(CardReader)
    reader.classifier = _CountingClassifier()  # type: ignore[assignment]
    width_mm, height_mm = INDEX_WINDOW_MM
    margin = READ_MARGIN_MM * RECTIFIED_PX_PER_MM
    # Each pixel holds its own column (x ramp) or row (y ramp), in a view just large enough.
    side = round((max(width_mm, height_mm) * 1.15 + 2 * READ_MARGIN_MM) * RECTIFIED_PX_PER_MM)
    ramp = np.arange(side, dtype=np.float32)
    columns, rows = np.tile(ramp, (side, 1)), np.tile(ramp[:, None], (1, side))
    crop_x = reader._crop(columns, WindowCut(0.0, 0.0, scale))
    crop_y = reader._crop(rows, WindowCut(0.0, 0.0, scale))
    assert crop_x[0, 0] == pytest.approx(margin, abs=2)
    assert crop_y[0, 0] == pytest.approx(margin, abs=2)
    assert crop_x[0, -1] == pytest.approx(margin + width_mm * scale * RECTIFIED_PX_PER_MM, abs=3)
    assert crop_y[-1, 0] == pytest.approx(margin + height_mm * scale * RECTIFIED_PX_PER_MM, abs=3)


def test_the_index_corner_detector_keeps_its_own_lower_floor(
    reader: CardReader, table_photo: np.ndarray
) -> None:
    corners = reader.corner_detector
    assert corners is not None and corners.score_min == CORNER_SCORE_MIN < DETECTION_SCORE_MIN
    low = corners(table_photo)
    assert all(found.score >= CORNER_SCORE_MIN for found in low)
    assert reader.detector.score_min == DETECTION_SCORE_MIN
    corners.score_min = DETECTION_SCORE_MIN
    try:
        high = corners(table_photo)
    finally:
        corners.score_min = CORNER_SCORE_MIN
    assert len(high) <= len(low)
    assert all(found.score >= DETECTION_SCORE_MIN for found in high)


def test_nothing_shorter_than_a_card_can_be_is_found_in_a_small_noisy_photo() -> None:
    # Enlarged to the detectors' input, 40 px of noise had held over a thousand specks.
    noise = np.random.default_rng(0).integers(0, 256, (40, 40, 3), np.uint8)
    reader = CardReader()
    assert reader.find(noise) == []
    assert reader.read(noise) == []


def test_a_large_photo_of_a_whole_table_is_looked_at_in_tiles(
    reader: CardReader, table_photo: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nine tables side by side, 3840 x 2160: at the detector's 416 px the cards are 19 px
    long; in tiles of 1280 px they look as in the 1280 px photo, and each is found once. (On
    these clean renders the whole photo's coarse view still names every face-up card, but
    finds the face-down ones twice; on real photos it missed most: `vision/tiles.py`.)"""
    large = np.tile(table_photo, (3, 3, 1))
    found = reader.read(large)
    assert sorted(str(c.card) for c in found if c.face_up) == sorted(list(FACE_UP) * 9)
    assert sum(not c.face_up for c in found) == len(FACE_DOWN) * 9
    monkeypatch.setattr(identify_module, "grid_for_size", lambda width, height, card_px: None)
    assert sum(not c.face_up for c in reader.read(large)) > len(FACE_DOWN) * 9


def test_the_classifier_reads_many_crops_in_runs_of_a_bounded_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """onnxruntime keeps the memory of its largest run: a thousand cards' crops go in runs of
    `CROPS_RUN_MAX`, read as in one."""
    classifier = IndexClassifier(INDEX_INT8_ONNX)
    rng = np.random.default_rng(3)
    crops = [rng.integers(0, 255, (40, 30, 3), np.uint8) for _ in range(7)]
    whole = classifier.probabilities(crops)
    runs: list[int] = []
    session_run = classifier.session.run

    def counted(outputs: Any, feeds: dict[str, np.ndarray]) -> Any:
        runs.append(len(next(iter(feeds.values()))))
        return session_run(outputs, feeds)

    monkeypatch.setattr(onnx_models, "CROPS_RUN_MAX", 3)
    monkeypatch.setattr(classifier.session, "run", counted)
    assert np.allclose(classifier.probabilities(crops), whole, atol=1e-6) and runs == [3, 3, 1]
