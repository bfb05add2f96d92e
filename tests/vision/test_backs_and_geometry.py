"""Rectification and back matching on rendered cards whose corners are known exactly."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from simulator.backs import back_from_spec
from simulator.faces import builtin_design
from simulator.labels import card_points_mm
from simulator.render import RenderSettings, TableRenderer
from simulator.scene import CardPose, Scene
from vision.back_features import back_feature
from vision.backs import BackMatcher, read_reference
from vision.geometry import (
    CARD_CORNERS_MM,
    INDEX_CROP_PX,
    INDEX_WINDOW_MM,
    RECTIFIED_PX_PER_MM,
    RECTIFIED_SIZE,
    card_from_window,
    card_window,
    corner_window_mm,
    index_crops,
    intersection_over_union,
    moved_card,
    portrait_order,
    rectify,
    visible_centre,
)

CORNERS = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
SPECS = ["blue:dots", "blue:stripes", "red:lattice", "green:checks"]


def reference(spec: str) -> np.ndarray:
    image = back_from_spec(spec).image
    alpha = image[:, :, 3:4].astype(np.float32) / 255
    return (image[:, :, :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)


def rendered_table(poses: list[CardPose], seed: int = 3) -> tuple[np.ndarray, list[np.ndarray]]:
    renderer = TableRenderer(
        RenderSettings(
            size=(960, 540), table="felt", table_mm=(700.0, 394.0), seed=seed, markers=False
        ),
        [builtin_design()],
        [back_from_spec(s) for s in SPECS],
    )
    image = renderer.render(Scene(tuple(poses), ()), 0)
    quads = [
        np.array([renderer.project(x, y) for x, y in card_points_mm(p, CORNERS)], np.float32)
        for p in poses
    ]
    return image, quads


def test_portrait_order_starts_on_a_short_side() -> None:
    landscape = np.array([[0, 0], [88, 0], [88, 63], [0, 63]], np.float32)
    ordered = portrait_order(landscape)
    assert np.linalg.norm(ordered[1] - ordered[0]) == pytest.approx(63)


def test_rectified_face_shows_its_index_in_both_corners() -> None:
    image, (quad,) = rendered_table([CardPose("QH", 0, 350, 200, 37.0, True)])
    card = rectify(image, quad)
    assert card.shape[:2] == (RECTIFIED_SIZE[1], RECTIFIED_SIZE[0])
    first, opposite = index_crops(card)
    # Both corners carry the same red index, turned upright: their red ink nearly agrees.
    red = [((c[:, :, 2] > 150) & (c[:, :, 1] < 110)).mean() for c in (first, opposite)]
    assert min(red) > 0.03 and abs(red[0] - red[1]) < 0.03


def test_backs_of_the_same_colour_and_different_pattern_are_told_apart() -> None:
    poses = [
        CardPose("AS", seat, 90 + 170 * seat, 120 + 150 * (seat % 2), 25.0 * seat - 40, False)
        for seat in range(4)
    ]
    image, quads = rendered_table(poses)
    matcher = BackMatcher(
        {spec.split(":")[0] + "-" + spec.split(":")[1]: reference(spec) for spec in SPECS}
    )
    names = [matcher.match(rectify(image, quad))[0] for quad in quads]
    assert names == ["blue-dots", "blue-stripes", "red-lattice", "green-checks"]


def test_a_design_file_on_a_larger_transparent_canvas_is_cut_to_its_card(
    tmp_path: Path,
) -> None:
    card = back_from_spec("blue:dots").image
    canvas = np.zeros((card.shape[0] + 200, card.shape[1] + 300, 4), np.uint8)
    canvas[120 : 120 + card.shape[0], 40 : 40 + card.shape[1]] = card
    cv2.imwrite(str(tmp_path / "framed.png"), canvas)
    cv2.imwrite(str(tmp_path / "bare.png"), card)
    matcher = BackMatcher(
        {name: read_reference(name, tmp_path / f"{name}.png") for name in ("framed", "bare")}
    )
    assert matcher.features["framed"].distance(matcher.features["bare"]) < 1e-6


def test_back_feature_is_the_same_for_a_card_turned_round() -> None:
    back = reference("blue:dots")
    turned = np.ascontiguousarray(back[::-1, ::-1])
    assert back_feature(back).distance(back_feature(turned)) < 0.02
    assert back_feature(back).distance(back_feature(reference("blue:stripes"))) > 0.1


def test_a_margin_keeps_the_card_where_the_plain_rectification_puts_it() -> None:
    image, (quad,) = rendered_table([CardPose("QH", 0, 350, 200, -23.0, True)])
    plain = rectify(image, quad)
    margin_px = round(4.0 * RECTIFIED_PX_PER_MM)
    framed = rectify(image, quad, margin_mm=4.0)
    inner = framed[margin_px : margin_px + plain.shape[0], margin_px : margin_px + plain.shape[1]]
    assert framed.shape[:2] == (plain.shape[0] + 2 * margin_px, plain.shape[1] + 2 * margin_px)
    assert np.abs(inner.astype(int) - plain.astype(int)).mean() < 3


def test_a_rectified_extent_is_the_whole_cards_top_left() -> None:
    image, (quad,) = rendered_table([CardPose("QH", 0, 350, 200, -23.0, True)])
    whole = rectify(image, quad, margin_mm=2.0)
    part = rectify(image, quad, margin_mm=2.0, extent_mm=(26.0, 32.0))
    assert part.shape[:2] == (round(36 * RECTIFIED_PX_PER_MM), round(30 * RECTIFIED_PX_PER_MM))
    # warpPerspective rounds a few pixels differently in a smaller output.
    difference = np.abs(part.astype(int) - whole[: part.shape[0], : part.shape[1]].astype(int))
    assert difference.max() <= 1 and difference.mean() < 0.05


def test_shifted_index_crops_come_corner_by_corner_and_move_with_the_shift() -> None:
    card = np.zeros((RECTIFIED_SIZE[1] + 24, RECTIFIED_SIZE[0] + 24, 3), np.uint8)
    card[12 + 30, 12 + 30] = 255  # one bright dot 10 mm into the top-left corner
    shifts = ((0.0, 0.0), (2.0, 0.0), (0.0, -2.0))
    crops = index_crops(card, shifts, margin_mm=4.0)
    assert len(crops) == 6
    assert all(c.shape == (INDEX_CROP_PX, INDEX_CROP_PX, 3) for c in crops)
    dots = [np.unravel_index(int(c[:, :, 0].argmax()), c.shape[:2]) for c in crops[:3]]
    width_mm, height_mm = INDEX_WINDOW_MM
    scale_x = INDEX_CROP_PX / (width_mm * RECTIFIED_PX_PER_MM)
    scale_y = INDEX_CROP_PX / (height_mm * RECTIFIED_PX_PER_MM)
    # The window moved 2 mm right, so the dot sits 6 px (at 3 px/mm) further left in it.
    assert dots[1][1] == pytest.approx(dots[0][1] - 6 * scale_x, abs=1)
    assert dots[2][0] == pytest.approx(dots[0][0] + 6 * scale_y, abs=1)
    assert crops[3].max() == 0  # the opposite corner has no dot


def test_the_index_window_sets_how_far_down_a_crop_reaches() -> None:
    card = np.zeros((RECTIFIED_SIZE[1], RECTIFIED_SIZE[0], 3), np.uint8)
    card[3 * 29, 3 * 10] = 255  # a suit 29 mm down: below a 26 mm square, inside 32 mm
    square, _ = index_crops(card, window_mm=(26.0, 26.0))
    tall, _ = index_crops(card, window_mm=(26.0, 32.0))
    assert square.max() == 0
    assert tall.max() > 0
    assert tall.shape == square.shape == (INDEX_CROP_PX, INDEX_CROP_PX, 3)


def test_intersection_over_union_of_card_quads() -> None:
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    assert intersection_over_union(square, square) == pytest.approx(1.0)
    assert intersection_over_union(square, square + 20) == 0.0
    # Shifted by half its width: 50 shared over 150 covered.
    assert intersection_over_union(square, square + np.array([5, 0], np.float32)) == pytest.approx(
        1 / 3
    )


@pytest.mark.parametrize("error_deg", [-12.0, -6.0, 6.0, 12.0])
def test_a_striped_back_cut_a_few_degrees_off_is_still_striped(error_deg: float) -> None:
    """Detected corners are often degrees off; the stripes then turn by as much."""
    pose = CardPose("AS", 1, 350.0, 197.0, 30.0, False)
    image, (quad,) = rendered_table([pose])
    centre = quad.mean(axis=0)
    turn = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), error_deg, 1.0)
    off_quad = cv2.transform(quad.reshape(-1, 1, 2), turn).reshape(4, 2)
    matcher = BackMatcher({"dots": reference("blue:dots"), "stripes": reference("blue:stripes")})
    assert matcher.match(rectify(image, off_quad))[0] == "stripes"


def test_a_card_is_implied_by_either_index_window_with_that_corner_first() -> None:
    turn = cv2.getRotationMatrix2D((0, 0), 30.0, 2.5)  # a card turned 30 degrees, 2.5 px/mm
    quad = cv2.transform(CARD_CORNERS_MM.reshape(1, 4, 2), turn)[0] + np.array(
        [300, 100], np.float32
    )
    first = card_window(quad, 0)
    assert first[0] == pytest.approx(quad[0], abs=1e-3)
    assert card_from_window(first, INDEX_WINDOW_MM) == pytest.approx(quad, abs=1e-2)
    # The opposite window, read turned round, implies the same card from its own corner.
    opposite = card_window(quad, 1)
    assert card_from_window(opposite, INDEX_WINDOW_MM) == pytest.approx(
        np.roll(quad, -2, axis=0), abs=1e-2
    )
    assert corner_window_mm(1)[0].tolist() == CARD_CORNERS_MM[2].tolist()


def test_a_card_implied_by_a_skewed_window_is_the_least_squares_affine_fit() -> None:
    """Detected windows are a few pixels off every way; the card is the affine map that fits
    all four of their points best, extended to the card's corners."""
    rng = np.random.default_rng(4)
    for _ in range(20):
        window = rng.uniform(0, 400, (4, 2)).astype(np.float32)
        points_mm = np.column_stack([corner_window_mm(0, (26.0, 32.0)), np.ones(4)])
        fit, *_ = np.linalg.lstsq(points_mm, window.astype(np.float64), rcond=None)
        expected = np.column_stack([CARD_CORNERS_MM, np.ones(4)]) @ fit
        assert card_from_window(window, (26.0, 32.0)) == pytest.approx(expected, abs=1e-2)


def test_without_the_opposite_corner_only_the_first_is_cut() -> None:
    image, (quad,) = rendered_table([CardPose("QH", 0, 350, 200, 37.0, True)])
    card = rectify(image, quad, 2.0)
    shifts = ((0.0, 0.0), (1.0, 1.0))
    both = index_crops(card, shifts, 2.0)
    first = index_crops(card, shifts, 2.0, opposite=False)
    assert len(both) == 4 and len(first) == 2
    assert all(np.array_equal(a, b) for a, b in zip(first, both[:2], strict=True))


def test_a_card_moves_in_its_own_frame() -> None:
    """A card turned a quarter clockwise at 2 px/mm: its first edge runs down the image."""
    quad = np.array([[200, 100], [200, 226], [24, 226], [24, 100]], np.float32)
    moved = moved_card(quad, -12.0, 5.0)
    np.testing.assert_allclose(moved, quad + np.array([-10, -24], np.float32), atol=1e-4)


def test_a_card_cut_by_the_photos_edge_is_placed_by_the_part_that_shows() -> None:
    card = np.array([[-60, 100], [40, 100], [40, 240], [-60, 240]], np.float32)
    assert visible_centre(card, (640, 480)).tolist() == pytest.approx([20, 170])
    assert visible_centre(
        card + np.array([100, 0], np.float32), (640, 480)
    ).tolist() == pytest.approx([90, 170])
    beyond = card - np.array(
        [200, 0], np.float32
    )  # nothing of it within: its centre, brought to the edge
    assert visible_centre(beyond, (640, 480)).tolist() == [0, 170]
