"""Renderer: designs, determinism, camera model agreement, cache correctness, video sink."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from simulator.backs import back_from_spec, default_backs
from simulator.errors import DesignError
from simulator.faces import ALL_CARDS, FACE_SIZE, builtin_design, load_design, read_bgra
from simulator.geometry import seat_anchor
from simulator.layer import CardLayer
from simulator.render import RenderSettings, TableRenderer, VideoSink
from simulator.sample_scenes import full_table, playing_frames
from simulator.scene import CardPose, HandPose, Scene
from simulator.table import MARKER_DICTIONARY, marker_corners_mm

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
SMALL = RenderSettings(size=(480, 270), table_mm=(700.0, 400.0), seed=3)


def _renderer(settings: RenderSettings = SMALL, seats: int = 2) -> TableRenderer:
    return TableRenderer(settings, [builtin_design()], default_backs(seats))


def test_builtin_design_has_52_distinct_faces() -> None:
    design = builtin_design()
    assert sorted(design.faces) == sorted(ALL_CARDS)
    assert all(face.shape == (FACE_SIZE[1], FACE_SIZE[0], 4) for face in design.faces.values())
    assert len({face.tobytes() for face in design.faces.values()}) == 52


def test_red_and_black_suits_are_coloured(tmp_path: Path) -> None:
    faces = builtin_design().faces
    for card in ("AH", "7D"):
        ink = faces[card][..., :3].reshape(-1, 3)
        assert ((ink[:, 2] > 150) & (ink[:, 1] < 80)).sum() > 500, card
    ink = faces["7S"][..., :3].reshape(-1, 3)
    assert ((ink[:, 2] > 150) & (ink[:, 1] < 80)).sum() == 0


def test_load_design_names_the_missing_file(tmp_path: Path) -> None:
    for card, face in builtin_design().faces.items():
        if card != "7H":
            cv2.imwrite(str(tmp_path / f"{card}.png"), face)
    with pytest.raises(FileNotFoundError, match=r"7H\.png"):
        load_design(tmp_path)
    cv2.imwrite(str(tmp_path / "7H.png"), builtin_design().faces["7H"][..., :3])
    design = load_design(tmp_path)
    assert design.faces["7H"].shape == (FACE_SIZE[1], FACE_SIZE[0], 4)


@pytest.mark.parametrize(
    ("height", "width"),
    [(1, 1), (88, 31), (60, 70), (194, 750), (88, 43)],  # a speck, too narrow, squat, sideways
)
def test_a_card_picture_of_no_card_shape_is_refused_by_name(
    tmp_path: Path, height: int, width: int
) -> None:
    for card, face in builtin_design().faces.items():
        cv2.imwrite(str(tmp_path / f"{card}.png"), face)
    cv2.imwrite(str(tmp_path / "QS.png"), np.full((height, width, 3), 200, np.uint8))
    with pytest.raises(DesignError) as refused:
        load_design(tmp_path)
    assert str(refused.value) == (
        f"{tmp_path / 'QS.png'} is {width}x{height} px: a card's picture is upright, about 5:7 "
        "(its width 0.5 to 0.9 of its height) and at least 32 px wide"
    )
    cv2.imwrite(str(tmp_path / "QS.png"), np.full((88, 44, 3), 200, np.uint8))  # 0.5: taken
    assert load_design(tmp_path).faces["QS"].shape[:2] == (FACE_SIZE[1], FACE_SIZE[0])


def test_a_deck_folder_without_cards_says_so_and_a_long_list_is_cut(tmp_path: Path) -> None:
    message = f"deck folder {tmp_path} holds none of the 52 card images (each named "
    with pytest.raises(FileNotFoundError, match=re.escape(message)):
        load_design(tmp_path)
    for card in ("AS", "2S"):
        cv2.imwrite(str(tmp_path / f"{card}.png"), np.zeros((88, 63, 3), np.uint8))
    with pytest.raises(FileNotFoundError) as missing:
        load_design(tmp_path)
    assert str(missing.value) == (
        f"deck folder {tmp_path} is missing 3S.png, 4S.png, 5S.png, 6S.png, 7S.png, 8S.png, "
        "9S.png, 10S.png and 42 more"
    )


def test_load_design_from_shared_decks() -> None:
    folder = SHARED / "decks" / "train" / "gnome-bonded"
    if not folder.is_dir():
        pytest.skip(f"shared decks absent ({folder}); the built-in design covers the rest")
    design = load_design(folder)
    assert len(design.faces) == 52 and design.name == "gnome-bonded"


def test_a_deck_named_otherwise_says_its_cards_are_there(tmp_path: Path) -> None:
    face = np.full((88, 63, 3), 200, np.uint8)
    for card in ALL_CARDS:
        cv2.imwrite(str(tmp_path / f"{card.lower()}.png"), face)
    if (tmp_path / "AS.png").is_file():
        pytest.skip("a file system that ignores case finds AS.png as as.png")
    with pytest.raises(FileNotFoundError, match=r"are there under other names or as JPEG"):
        load_design(tmp_path)


def test_a_card_image_of_too_many_pixels_is_a_value_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    huge = tmp_path / "huge.png"
    cv2.imwrite(str(huge), np.zeros((100, 100, 3), np.uint8))

    def refused(path: str, flags: int) -> np.ndarray:
        raise cv2.error("imread_: (-215:Assertion failed) pixels <= CV_IO_MAX_IMAGE_PIXELS")

    monkeypatch.setattr(cv2, "imread", refused)
    with pytest.raises(DesignError, match=f"cannot read image {huge}: .*CV_IO_MAX_IMAGE_PIXELS"):
        read_bgra(huge)


def test_backs_differ_by_colour_and_pattern() -> None:
    backs = default_backs(8)
    assert len({b.name for b in backs}) == 8
    assert len({b.image.tobytes() for b in backs}) == 8
    assert (
        back_from_spec("blue:dots").image.tobytes()
        != back_from_spec("blue:lattice").image.tobytes()
    )
    assert back_from_spec("#2040a0").name == "#2040a0"
    with pytest.raises(DesignError, match="neither a colour"):
        back_from_spec("no-such-colour")


def test_seats_sit_bottom_left_top_right() -> None:
    table = (1000.0, 600.0)
    normals = [tuple(seat_anchor(seat, 4, table)[1]) for seat in range(4)]
    assert normals == [(0.0, 1.0), (-1.0, 0.0), (0.0, -1.0), (1.0, 0.0)]
    assert tuple(seat_anchor(1, 2, table)[0]) == (500.0, 0.0)


def test_same_seed_gives_identical_bytes_and_another_seed_differs() -> None:
    scenes = playing_frames(4, n_seats=2)
    settings = replace(SMALL, table_mm=(1400.0, 1000.0))
    once = _renderer(settings)
    first = [once.render(s, i) for i, s in enumerate(scenes)]
    again = _renderer(settings)
    second = [again.render(s, i) for i, s in enumerate(scenes)]
    assert all(a.tobytes() == b.tobytes() for a, b in zip(first, second, strict=True))
    other = _renderer(replace(settings, seed=4)).render(scenes[0], 0)
    assert other.tobytes() != first[0].tobytes()
    assert first[0].shape == (270, 480, 3) and first[0].dtype == np.uint8


def test_project_matches_where_a_card_is_drawn() -> None:
    renderer = _renderer(replace(SMALL, table="plain", noise_sigma=0.0))
    x, y = 350.0, 200.0
    empty = renderer.render(Scene((), ()), 0)
    # A face-down blue back: strongly blue where project() says the card's centre is.
    scene = Scene((CardPose("AS", 1, x, y, 30.0, False),), ())
    frame = renderer.render(scene, 0)
    u, v = (round(c) for c in renderer.project(x, y))
    b, g, r = frame[v, u].astype(int)
    assert b > r + 40, (b, g, r)
    off_u, off_v = (round(c) for c in renderer.project(x + 80.0, y))
    assert np.abs(frame[off_v, off_u].astype(int) - empty[off_v, off_u].astype(int)).max() < 25


def test_markers_are_found_where_project_puts_them() -> None:
    renderer = _renderer(replace(SMALL, size=(960, 540), noise_sigma=1.0))
    frame = renderer.render(Scene((), ()), 0)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY))
    corners, ids, _ = detector.detectMarkers(frame)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    expected = marker_corners_mm(renderer.settings.table_mm)
    for found, marker in zip(corners, ids.ravel(), strict=True):
        projected = np.array([renderer.project(*p) for p in expected[int(marker)]])
        assert np.abs(found[0] - projected).max() < 2.0, marker


def test_cached_card_layer_equals_painting_from_scratch() -> None:
    renderer = _renderer(replace(SMALL, table_mm=(1400.0, 1000.0)), seats=4)
    cards = list(full_table(4, foundation=20).cards)
    moved = [*cards[:30], replace(cards[30], x=cards[30].x + 9), *cards[31:]]
    removed = moved[:50] + moved[51:]
    swapped = [*removed[:10], removed[11], removed[10], *removed[12:]]
    added = [*swapped, CardPose("KH", 0, 700.0, 500.0, 12.0, True)]
    for step in (cards, moved, removed, swapped, added, cards):
        cached = renderer.layer.update(step).copy()
        fresh = CardLayer(renderer.background, renderer.patches).update(step)
        assert cached.tobytes() == fresh.tobytes()


def test_hand_covers_the_table_near_its_palm() -> None:
    renderer = _renderer(replace(SMALL, table="plain", noise_sigma=0.0))
    empty = renderer.render(Scene((), ()), 0)
    with_hand = renderer.render(Scene((), (HandPose(0, 350.0, 200.0),)), 1)
    u, v = (round(c) for c in renderer.project(350.0, 200.0))
    window = (slice(v - 3, v + 4), slice(u - 3, u + 4))
    assert np.abs(with_hand[window].astype(int) - empty[window].astype(int)).mean() > 30


def test_carried_card_is_motion_blurred() -> None:
    renderer = _renderer(replace(SMALL, table="plain", noise_sigma=0.0))
    still = [Scene((CardPose("QS", 0, 300.0, 200.0, 0.0, True, lift=20.0),), ())] * 2
    moving = [
        Scene((CardPose("QS", 0, 300.0 + 40 * i, 200.0, 0.0, True, lift=20.0),), ())
        for i in range(2)
    ]
    sharp = [renderer.render(s, i) for i, s in enumerate(still)][-1]
    blurred = [renderer.render(s, i + 10) for i, s in enumerate(moving)][-1]

    def edge_energy(image: np.ndarray, x_mm: float) -> float:
        u, v = (round(c) for c in renderer.project(x_mm, 200.0))
        crop = cv2.cvtColor(image[v - 25 : v + 25, u - 25 : u + 25], cv2.COLOR_BGR2GRAY)
        return float(np.abs(cv2.Sobel(crop, cv2.CV_32F, 1, 0)).sum())

    assert edge_energy(blurred, 340.0) < 0.8 * edge_energy(sharp, 300.0)


def test_video_sink_keeps_frames_after_an_exception(tmp_path: Path) -> None:
    path = tmp_path / "clip.mp4"
    frame = _renderer().render(Scene((), ()), 0)
    with pytest.raises(RuntimeError, match="boom"), VideoSink(path, 30.0, (480, 270)) as sink:
        for _ in range(5):
            sink.write(frame)
        raise RuntimeError("boom")
    capture = cv2.VideoCapture(str(path))
    assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == 5
    capture.release()
    with VideoSink(tmp_path / "other.mp4", 30.0, (480, 270)) as sink, pytest.raises(ValueError):
        sink.write(np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ValueError, match="even"):
        VideoSink(tmp_path / "odd.mp4", 30.0, (481, 270))


class _DroppingWriter:
    """A video writer that stops writing after `kept` frames, silently, as on a full disk."""

    def __init__(self, writer: cv2.VideoWriter, kept: int) -> None:
        self.writer, self.kept = writer, kept

    def write(self, frame: np.ndarray) -> None:
        if self.kept > 0:
            self.writer.write(frame)
            self.kept -= 1

    def release(self) -> None:
        self.writer.release()


def test_video_sink_says_when_frames_were_not_written(tmp_path: Path) -> None:
    frame = _renderer().render(Scene((), ()), 0)
    path = tmp_path / "clip.mp4"
    said = r"only 2 of 5 frames could be written \(is the disk full\?\): '.*clip.mp4'"
    with pytest.raises(OSError, match=said), VideoSink(path, 30.0, (480, 270)) as sink:
        sink._writer = _DroppingWriter(sink._writer, 2)  # type: ignore[arg-type,assignment]
        for _ in range(5):
            sink.write(frame)


def test_moving_hand_is_blurred_and_a_jump_is_not() -> None:
    renderer = _renderer(replace(SMALL, table="plain", noise_sigma=0.0, exposure_jitter=0.0))

    def sharpness(frames: list[Scene], first: int) -> float:
        image = [renderer.render(s, first + i) for i, s in enumerate(frames)][-1]
        u, v = (round(c) for c in renderer.project(350.0, 200.0))
        grey = cv2.cvtColor(image[v - 30 : v + 30, u - 30 : u + 30], cv2.COLOR_BGR2GRAY)
        return float(np.abs(cv2.Laplacian(grey, cv2.CV_32F)).sum())

    still = sharpness([Scene((), (HandPose(0, 350.0, 200.0),))] * 2, 0)
    moving = sharpness([Scene((), (HandPose(0, 350.0 + 60 * i, 200.0),)) for i in (-1, 0)], 10)
    jumped = sharpness([Scene((), (HandPose(0, 350.0 + 400 * i, 200.0),)) for i in (-1, 0)], 20)
    assert moving < 0.85 * still
    assert abs(jumped - still) < 0.05 * still


def test_after_a_reset_the_next_frame_is_not_smeared_by_the_last() -> None:
    """Training renders are unrelated scenes at consecutive numbers: a hand near the last
    scene's had been smeared as if it moved."""
    renderer = _renderer(replace(SMALL, table="plain", noise_sigma=0.0, exposure_jitter=0.0))
    here, near = (Scene((), (HandPose(0, 350.0 + dx, 200.0),)) for dx in (0.0, -60.0))
    alone = renderer.render(here, 31)
    renderer.render(near, 30)
    smeared = renderer.render(here, 31)
    renderer.render(near, 30)
    renderer.reset()
    assert not np.array_equal(smeared, alone)
    assert np.array_equal(renderer.render(here, 31), alone)
