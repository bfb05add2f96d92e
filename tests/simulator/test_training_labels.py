"""Training renders: label format, visibility from painting order, determinism."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.dataset import read_image
from simulator.backs import default_backs
from simulator.faces import CardDesign, builtin_design, load_design
from simulator.index_finder import find_index_boxes
from simulator.labels import id_image, label_scene, painting_order
from simulator.render import RenderSettings, TableRenderer
from simulator.scene import CardPose, HandPose, Scene
from simulator.sensor import cast_shadow
from simulator.training import TrainingSettings, generate_dataset, main, val_frames

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
SIZE = (320, 240)
TINY = TrainingSettings(size=SIZE, val_fraction=0.25, images_per_camera=2)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ds")
    generate_dataset(out, 8, 5, [builtin_design()], default_backs(4), settings=TINY, progress=False)
    return out


def _lines(path: Path) -> list[list[float]]:
    return [[float(v) for v in line.split()] for line in path.read_text().splitlines()]


def test_layout_and_yaml(dataset: Path) -> None:
    for split, expected in (("train", 6), ("val", 2)):
        assert len(list((dataset / "images" / split).glob("*.jpg"))) == expected
        assert len(list((dataset / "index" / "images" / split).glob("*.jpg"))) == expected
        assert len(list((dataset / "labels" / split).glob("*.txt"))) == expected
    pose_yaml = (dataset / "data.yaml").read_text()
    assert "kpt_shape: [4, 3]" in pose_yaml and "0: card_face_up" in pose_yaml
    assert "1: card_face_down" in pose_yaml and "train: images/train" in pose_yaml
    assert "0: index" in (dataset / "index" / "data.yaml").read_text()


def test_every_label_line_parses_and_is_normalised(dataset: Path) -> None:
    total_cards = total_indices = 0
    for label in (dataset / "labels").rglob("*.txt"):
        split, stem = label.parent.name, label.stem
        cards = _lines(label)
        indices = _lines(dataset / "index" / "labels" / split / f"{stem}.txt")
        meta = json.loads((dataset / "meta" / split / f"{stem}.json").read_text())
        assert len(cards) == len(meta["cards"]) and len(indices) == len(meta["indices"])
        for values, record in zip(cards, meta["cards"], strict=True):
            assert len(values) == 17 and values[0] in (0.0, 1.0)
            assert all(0.0 <= v <= 1.0 for v in values[1:5]) and values[3] > 0 and values[4] > 0
            assert (values[0] == 0.0) == record["face_up"]
            for x, y, v in zip(values[5::3], values[6::3], values[7::3], strict=True):
                assert v in (0.0, 1.0, 2.0)
                assert 0.0 <= x <= 1.0 and 0.0 <= y <= 1.0
                assert v > 0 or x == y == 0.0
            assert (
                record["card"][:-1]
                in {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}
                and record["back"]
                and record["design"]
            )
        for values, record in zip(indices, meta["indices"], strict=True):
            assert len(values) == 5 and values[0] == 0.0
            assert all(0.0 <= v <= 1.0 for v in values[1:])
            assert (
                record["corner"] in (0, 1, 2, 3)
                and record["rank"] + record["suit"] == record["card"]
            )
        total_cards += len(cards)
        total_indices += len(indices)
    assert total_cards > 20 and total_indices > 10


def test_only_visible_objects_are_labelled() -> None:
    settings = RenderSettings(size=(640, 480), table_mm=(600.0, 450.0), markers=False, seed=2)
    renderer = TableRenderer(settings, [builtin_design()], default_backs(2))
    alone = CardPose("AS", 0, 100.0, 120.0, 20.0, True)
    face_down = CardPose("2S", 1, 250.0, 120.0, -40.0, False)
    hidden = CardPose("3S", 0, 420.0, 120.0, 0.0, True)
    covering = CardPose("4S", 1, 420.0, 120.0, 0.0, True)
    fan_bottom = CardPose("5H", 0, 150.0, 300.0, 0.0, True)
    fan_top = CardPose("6H", 0, 150.0, 322.0, 0.0, True)
    scene = Scene((alone, face_down, hidden, covering, fan_bottom, fan_top), ())
    cards, indices = label_scene(renderer, scene)
    assert sorted(c.pose.card for c in cards) == ["2S", "4S", "5H", "6H", "AS"]
    assert {c.pose.card: c.class_id for c in cards}["2S"] == 1
    # Fanned: the lower card shows its top-left index only.
    assert sorted((i.pose.card, i.corner) for i in indices) == [
        ("4S", 0),
        ("4S", 1),
        ("5H", 0),
        ("6H", 0),
        ("6H", 1),
        ("AS", 0),
        ("AS", 1),
    ]
    # A hand over the lone ace hides it (and its indices) from the labels.
    covered = replace(scene, hands=(HandPose(0, 100.0, 120.0),))
    cards, indices = label_scene(renderer, covered)
    assert "AS" not in {i.pose.card for i in indices}


def test_keypoints_follow_the_card_and_stay_canonical() -> None:
    settings = RenderSettings(size=(640, 480), table_mm=(600.0, 450.0), markers=False, seed=2)
    renderer = TableRenderer(settings, [builtin_design()], default_backs(1))
    upright = label_scene(renderer, Scene((CardPose("KD", 0, 300.0, 220.0, 0.0, True),), ()))[0][0]
    turned = label_scene(renderer, Scene((CardPose("KD", 0, 300.0, 220.0, 180.0, True),), ()))[0][0]
    assert upright.keypoint_visibility == [2, 2, 2, 2]
    assert abs(upright.quad - turned.quad).max() < 1.0
    top_left = renderer.project(300.0 - 31.5, 220.0 - 44.0)
    assert abs(upright.quad[0] - top_left).max() < 0.5


def test_same_seed_same_dataset(tmp_path: Path, dataset: Path) -> None:
    again = tmp_path / "again"
    generate_dataset(
        again, 8, 5, [builtin_design()], default_backs(4), settings=TINY, progress=False
    )
    for label in (dataset / "labels").rglob("*.txt"):
        twin = again / label.relative_to(dataset)
        assert twin.read_text() == label.read_text()
    image = next((dataset / "images" / "train").glob("*.jpg"))
    assert (again / image.relative_to(dataset)).read_bytes() == image.read_bytes()


def test_command_line_entry_point(tmp_path: Path) -> None:
    assert (
        main(
            [
                "--out",
                str(tmp_path),
                "--count",
                "2",
                "--seed",
                "1",
                "--size",
                "160x120",
                "--backs",
                "red",
                "blue:dots",
            ]
        )
        == 0
    )
    assert len(list(tmp_path.glob("images/*/*.jpg"))) == 2


@pytest.mark.parametrize("size", ["1280", "axb", "0x720", "1280x720x3"])
def test_a_bad_size_is_a_one_line_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], size: str
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--out", str(tmp_path), "--count", "1", "--size", size])
    assert stop.value.code == 2
    assert f"expected WIDTHxHEIGHT, e.g. 960x540, got '{size}'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("size", "said"),
    [
        ("1x1", "1x1: each side must be at least 64 pixels"),
        ("64x1500", "64x1500: the long side may be at most 4 times the short one"),
    ],
)
def test_a_frame_no_camera_films_is_a_one_line_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], size: str, said: str
) -> None:
    # 64 x 1500 asked the canvas for exabytes; 1 x 1 raised from numpy.
    with pytest.raises(SystemExit) as stop:
        main(["--out", str(tmp_path), "--count", "1", "--size", size])
    assert stop.value.code == 2
    assert f"argument --size: {said}" in capsys.readouterr().err


def test_a_missing_deck_is_a_usage_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-deck"
    with pytest.raises(SystemExit) as stop:
        main(["--out", str(tmp_path / "out"), "--count", "2", "--deck", str(missing)])
    assert stop.value.code == 2
    assert f"deck folder not found: {missing}" in capsys.readouterr().err


def test_index_boxes_are_found_where_a_design_prints_them() -> None:
    mirrored = {card: face[:, ::-1] for card, face in builtin_design().faces.items()}
    boxes = find_index_boxes(mirrored)
    assert boxes is not None and len(boxes) == 2
    top, bottom = boxes
    assert top[0] > 0.5 and top[3] < 0.3  # top-right
    assert bottom[2] < 0.5 and bottom[1] > 0.7  # bottom-left


def test_index_boxes_of_shared_designs() -> None:
    decks = SHARED / "decks" / "train"
    if not decks.is_dir():
        pytest.skip(f"shared decks absent ({decks})")
    four_corners = load_design(decks / "gnome-bonded").index_boxes
    assert len(four_corners) == 4
    rank_top_right = load_design(decks / "kde-oxygen").index_boxes
    assert rank_top_right[0][0] > 0.5 and rank_top_right[0][3] < 0.3


def test_whole_forearm_hides_cards_in_the_id_buffer() -> None:
    settings = RenderSettings(size=(640, 480), table_mm=(600.0, 450.0), markers=False, seed=2)
    renderer = TableRenderer(settings, [builtin_design()], default_backs(2))
    carpet = tuple(
        CardPose("AS", 0, float(x), float(y), 0.0, True)
        for x in range(0, 640, 50)
        for y in range(0, 480, 70)
    )
    scene = Scene(carpet, (HandPose(0, 300.0, 150.0),))
    ids = id_image(renderer, scene, painting_order(scene))
    skin, sleeve = renderer.hand_painter.limbs_mm(scene.hands[0])
    for start, end, _, _ in skin + sleeve:
        for t in (0.25, 0.5, 0.75):
            u, v = renderer.project(*(start + (end - start) * t))
            if 0 <= u < 640 and 0 <= v < 480:
                assert ids[int(v), int(u)] == 0


def test_val_designs_stay_out_of_train_images(tmp_path: Path) -> None:
    builtin = builtin_design()
    held_out = CardDesign("held-out", builtin.faces, builtin.index_boxes)
    generate_dataset(
        tmp_path,
        8,
        3,
        [builtin],
        default_backs(4),
        val_decks=[held_out],
        settings=TINY,
        progress=False,
    )
    for meta_path in (tmp_path / "meta").rglob("*.json"):
        designs = {seat["design"] for seat in json.loads(meta_path.read_text())["seats"]}
        assert designs == ({"held-out"} if meta_path.parent.name == "val" else {"builtin"})


def test_cast_shadows_darken_part_of_a_frame_and_leave_the_labels(
    tmp_path: Path, dataset: Path
) -> None:
    shaded = tmp_path / "shaded"
    settings = replace(TINY, cast_shadow_probability=1.0, cast_shadow_depth=(0.5, 0.5))
    generate_dataset(
        shaded, 8, 5, [builtin_design()], default_backs(4), settings=settings, progress=False
    )
    for label in (dataset / "labels").rglob("*.txt"):
        assert (shaded / label.relative_to(dataset)).read_text() == label.read_text()
    darker = []
    for image in (dataset / "images" / "train").glob("*.jpg"):
        # Blurred and on lit pixels, so that JPEG's noise does not count as shade.
        plain, shadow = (
            cv2.GaussianBlur(read_image(path), (0, 0), 2).mean(axis=2)
            for path in (image, shaded / image.relative_to(dataset))
        )
        ratio = shadow[plain > 60] / plain[plain > 60]
        darker.append((ratio < 0.7).mean())
        assert np.percentile(ratio, 0.1) > 0.4
    assert all(0.02 < share < 0.95 for share in darker)


def test_cast_shadow_is_seeded() -> None:
    image = np.full((90, 160, 3), 200, np.uint8)
    first = cast_shadow(image, np.random.default_rng(3), 0.5)
    again = cast_shadow(image, np.random.default_rng(3), 0.5)
    assert np.array_equal(first, again)
    assert first.min() >= 200 * 0.5 - 1 and first.max() == 200


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--count", "0"], "argument --count: expected a whole number >= 1, got '0'"),
        (["--count", "2", "--seed", "-1"], "argument --seed: expected a whole number >= 0"),
        (["--count", "4", "--val-fraction", "1.5"], "expected a share from 0 to 1, got '1.5'"),
        (["--count", "4", "--val-fraction", "nan"], "expected a share from 0 to 1, got 'nan'"),
        (["--count", "4", "--val-fraction", "0"], "--count 4 at --val-fraction 0 leaves the"),
        (["--count", "1"], "--count 1 at --val-fraction 0.15 leaves the train or the val split"),
    ],
)
def test_a_dataset_that_could_not_train_is_refused_before_rendering(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], said: str
) -> None:
    # Each once wrote a data.yaml naming an empty split, or raised from numpy.
    with pytest.raises(SystemExit) as stop:
        main(["--out", str(tmp_path / "out"), *arguments])
    assert stop.value.code == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_val_frames_are_every_nth_and_the_last_of_a_small_set() -> None:
    assert sorted(val_frames(20, 0.15)) == [6, 13]
    assert sorted(val_frames(3, 0.15)) == [2]
    assert val_frames(1, 0.15) == set() and val_frames(10, 0.0) == set()


def test_a_second_run_into_one_folder_replaces_the_first_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    out = tmp_path / "renders"
    generate_dataset(out, 4, 1, [builtin_design()], default_backs(2), settings=TINY)
    (out / "notes.txt").write_text("mine")
    generate_dataset(out, 2, 2, [builtin_design()], default_backs(2), settings=TINY)
    frames = sorted(p.relative_to(out).as_posix() for p in out.glob("images/*/*.jpg"))
    # Left in place, the first run's 000002.jpg lay in train/ beside this run's val/ one.
    assert frames == ["images/train/000000.jpg", "images/val/000001.jpg"]
    assert (out / "notes.txt").read_text() == "mine"


def test_a_run_stopped_half_way_is_replaced_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "renders"
    written: list[str] = []
    imwrite = cv2.imwrite

    def stopped_at_the_third(path: str, image: np.ndarray, params: list[int]) -> bool:
        if len(written) == 2:
            raise KeyboardInterrupt
        written.append(path)
        return bool(imwrite(path, image, params))

    monkeypatch.setattr(cv2, "imwrite", stopped_at_the_third)
    with pytest.raises(KeyboardInterrupt):
        generate_dataset(out, 4, 1, [builtin_design()], default_backs(2), settings=TINY)
    assert not (out / "data.yaml").exists()
    monkeypatch.setattr(cv2, "imwrite", imwrite)
    generate_dataset(out, 4, 1, [builtin_design()], default_backs(2), settings=TINY)
    assert len(list(out.glob("images/*/*.jpg"))) == 4 and (out / "data.yaml").is_file()


def test_a_render_set_of_an_earlier_version_without_its_marker_is_replaced(
    tmp_path: Path,
) -> None:
    out = tmp_path / "renders"
    generate_dataset(out, 4, 1, [builtin_design()], default_backs(2), settings=TINY)
    (out / "renders.json").unlink()  # as versions before it wrote their sets: data.yaml only
    generate_dataset(out, 2, 2, [builtin_design()], default_backs(2), settings=TINY)
    assert len(list(out.glob("images/*/*.jpg"))) == 2


def test_folders_of_those_names_that_no_earlier_run_wrote_are_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder of photos in images/ (the shared real photos hold one) is not a render set."""
    photos = tmp_path / "images"
    photos.mkdir()
    (photos / "photo1.jpg").write_bytes(b"a photo")
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--count", "2", "--size", "160x90"])
    assert capsys.readouterr().err.endswith(
        f"error: --out {tmp_path} already holds images/, which no earlier run of this step "
        "wrote (no renders.json): give another --out\n"
    )
    assert (photos / "photo1.jpg").read_bytes() == b"a photo"
