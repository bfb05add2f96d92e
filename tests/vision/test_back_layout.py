"""Backs told apart by where they are darker: a plain back and one with faint motifs of its
colour, photographed with grain, under a light that falls off, partly covered."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import back_views
from vision.back_features import BackFeature, back_feature, card_interior, pairwise_distances
from vision.back_layout import (
    LAYOUT_MIN_CELLS_SHOWN,
    LAYOUT_SIZE,
    back_layout,
    layout_distance,
    layout_distances,
)
from vision.back_views import MARKED_CLEAR_MIN, with_backs
from vision.backs import BackMatcher
from vision.detections import CardDetection
from vision.geometry import RECTIFIED_SIZE, uncovered

WHITE = np.array([255.0, 255.0, 255.0])


def _plain_red(shaded: bool = True) -> np.ndarray:
    """A red back shaded from corner to corner (or flat), inside a white border, like
    kde-nicu's."""
    width, height = RECTIFIED_SIZE
    card = np.full((height, width, 3), 255, np.uint8)
    rows, columns = np.mgrid[: height - 24, : width - 24]
    shade = 1 - (0.35 if shaded else 0.0) * (rows / height + columns / width) / 2
    card[12:-12, 12:-12] = (np.array([20, 20, 220])[None, None] * shade[..., None]).astype(np.uint8)
    return card


def _with_motifs(card: np.ndarray, mirrored: bool = False) -> np.ndarray:
    """Two big suit-like blobs printed a shade darker than the ground, top left and bottom
    right (top right and bottom left if `mirrored`)."""
    width, height = RECTIFIED_SIZE
    motifs = np.zeros(card.shape[:2], np.uint8)
    left, right = (2 * width // 3, width // 3) if mirrored else (width // 3, 2 * width // 3)
    cv2.ellipse(motifs, (left, height // 3), (30, 45), 0, 0, 360, 1, -1)
    cv2.ellipse(motifs, (right, 2 * height // 3), (30, 45), 0, 0, 360, 1, -1)
    darker = (card * 0.88).astype(np.uint8)
    return np.where(motifs[..., None] > 0, darker, card)


def _photographed(card: np.ndarray, seed: int) -> np.ndarray:
    """Camera grain and a little softness."""
    rng = np.random.default_rng(seed)
    noisy = card.astype(np.float32) + rng.normal(0, 7, card.shape)
    return cv2.GaussianBlur(np.clip(noisy, 0, 255).astype(np.uint8), (0, 0), 0.7)


def test_a_grainy_photo_of_a_plain_back_is_not_taken_for_its_colours_faint_motifs() -> None:
    plain = _plain_red()
    motifs = _with_motifs(plain)
    matcher = BackMatcher({"plain": plain, "motifs": motifs})
    for seed in range(3):
        assert matcher.match(_photographed(plain, seed))[0] == "plain"
        assert matcher.match(_photographed(motifs, seed))[0] == "motifs"


def test_backs_whose_histograms_agree_are_told_apart_by_where_their_motifs_lie() -> None:
    # On a flat ground the two have the same histograms: only the layout tells them apart.
    plain = _plain_red(shaded=False)
    matcher = BackMatcher({"one way": _with_motifs(plain), "other way": _with_motifs(plain, True)})
    for seed in range(3):
        assert matcher.match(_photographed(_with_motifs(plain), seed))[0] == "one way"
        assert matcher.match(_photographed(_with_motifs(plain, True), seed))[0] == "other way"


def test_each_face_down_card_is_matched_on_what_the_others_leave_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    width, height = RECTIFIED_SIZE
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    cards = [
        CardDetection(corners + np.array([100, 100 + height / 2], np.float32), False, 0.8),
        CardDetection(corners + np.array([100, 100], np.float32), False, 0.9),
        CardDetection(corners + np.array([900, 100], np.float32), False, 0.7),
    ]
    # The photo: the upper card lies on the lower one, its white rim across the lower's print.
    image = np.zeros((1200, 1400, 3), np.uint8)
    for card, colour in zip(cards, [(40, 40, 160), (40, 40, 160), (160, 40, 40)], strict=True):
        outline = np.round(card.quad).astype(np.int32)
        cv2.fillPoly(image, [outline], (255, 255, 255))
        cv2.fillPoly(
            image,
            [np.round(card.quad.mean(axis=0) * 0.08 + card.quad * 0.92).astype(np.int32)],
            colour,
        )
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def recording(card_view: np.ndarray, clear: np.ndarray, shown: np.ndarray) -> BackFeature:
        seen.append((clear, shown))
        return back_feature(card_view)

    monkeypatch.setattr(back_views, "view_feature", recording)
    named = with_backs(cards, image, BackMatcher({"plain": _plain_red()}))
    assert [card.back for card in named] == ["plain"] * 3
    (lower_clear, lower_shown), (upper_clear, upper_shown), (alone_clear, alone_shown) = seen
    # Clear of every other card: the two overlapping cards each lose the half they share.
    assert not lower_clear[: height // 2 - 2].any() and lower_clear[height // 2 + 2 :].all()
    assert upper_clear[: height // 2 - 2].all() and not upper_clear[height // 2 + 2 :].any()
    # Shown: only the lower card loses its half, under the card the photo shows on top.
    assert np.array_equal(lower_shown, lower_clear) and upper_shown.all()
    assert alone_clear.all() and alone_shown.all()


def test_the_layout_of_a_card_turned_round_or_lit_from_one_side_is_the_same() -> None:
    motifs = card_interior(_with_motifs(_plain_red()))
    layout = back_layout(motifs, WHITE)
    turned = back_layout(np.ascontiguousarray(motifs[::-1, ::-1]), WHITE)
    assert layout_distance(layout, turned) < 1e-6
    falloff = np.linspace(1.0, 0.8, motifs.shape[1], dtype=np.float32)[None, :, None]
    lit = back_layout((motifs * falloff).astype(np.uint8), WHITE)
    plain = back_layout(card_interior(_plain_red()), WHITE)
    assert layout_distance(lit, layout) < 0.25 * layout_distance(plain, layout)


def test_cells_another_card_covers_are_left_out() -> None:
    plain, motifs = _plain_red(), _with_motifs(_plain_red())
    covered = motifs.copy()
    covered[: RECTIFIED_SIZE[1] // 2] = 255  # a white card lies over its top half
    shown = np.ones(covered.shape[:2], np.uint8)
    shown[: RECTIFIED_SIZE[1] // 2] = 0
    half = back_layout(covered, WHITE, shown)
    assert half[1].shape == (LAYOUT_SIZE[1], LAYOUT_SIZE[0])
    assert layout_distance(half, back_layout(motifs, WHITE)) < 0.2 * layout_distance(
        back_layout(covered, WHITE), back_layout(motifs, WHITE)
    )
    assert layout_distance(half, back_layout(motifs, WHITE)) < layout_distance(
        half, back_layout(plain, WHITE)
    )
    # Nothing shown: the layout says nothing, rather than dividing by zero.
    nothing = back_layout(covered, WHITE, np.zeros_like(shown))
    assert layout_distance(nothing, back_layout(motifs, WHITE)) == 0.0
    feature = back_feature(covered, shown)
    assert feature.layout[1].min() == 0.0 and feature.layout[1].max() == pytest.approx(1.0)


def test_uncovered_marks_where_other_cards_lie_over_the_card() -> None:
    width, height = RECTIFIED_SIZE
    quad = np.array(
        [[100, 100], [100 + width, 100], [100 + width, 100 + height], [100, 100 + height]],
        np.float32,
    )
    below = quad + np.array([0, height / 2], np.float32)  # overlaps its bottom half
    far = quad + np.array([1000, 0], np.float32)
    shown = uncovered(quad, [below, far])
    assert shown.shape == (height, width)
    assert shown[: height // 2 - 2].all() and not shown[height // 2 + 2 :].any()
    assert uncovered(quad, [far]).all()


def _layout_distance_pair_by_pair(
    first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]
) -> float:
    """What `layout_distance` means, written plainly in float64, one plane fit at a time: the
    oracle for the stacked computation."""
    height, width = first[1].shape
    rows, columns = np.mgrid[:height, :width]
    basis = np.stack([np.ones(height * width), columns.ravel() / width, rows.ravel() / height], 1)

    def flattened(layout: np.ndarray, weights: np.ndarray) -> np.ndarray:
        values = layout.reshape(-1, 3).astype(np.float64)
        fit, *_ = np.linalg.lstsq(
            basis * np.sqrt(weights.reshape(-1, 1)),
            values * np.sqrt(weights.reshape(-1, 1)),
            rcond=None,
        )
        return values - basis @ fit

    distances = []
    for other, other_shown in (second, (second[0][::-1, ::-1], second[1][::-1, ::-1])):
        weights = (first[1] * other_shown).ravel().astype(np.float64)
        if weights.sum() < LAYOUT_MIN_CELLS_SHOWN:
            continue
        gap = np.abs(flattened(first[0], weights) - flattened(other, weights)).mean(axis=1)
        distances.append(float((gap * weights).sum() / weights.sum()) / 255)
    return min(distances, default=0.0)


def test_layouts_compared_at_once_are_compared_as_one_by_one() -> None:
    rng = np.random.default_rng(3)
    height, width = LAYOUT_SIZE[1], LAYOUT_SIZE[0]
    layouts = [rng.uniform(0, 255, (height, width, 3)).astype(np.float32) for _ in range(7)]
    shown = [np.ones((height, width), np.float32) for _ in range(7)]
    shown[1][: height // 2] = 0.0  # the top half covered
    shown[2][:, : width // 3] = 0.5  # a third half covered
    shown[3][:] = 0.0
    shown[3][:2, :2] = 1.0  # 4 cells: too few to compare (nothing turned round meets them)
    shown[4][:] = 0.0
    shown[4][:2, :4] = 1.0  # 8 cells, in the top left corner
    shown[5][:] = 0.0
    shown[5][-2:, -4:] = 1.0  # 8 cells in the bottom right: they meet 4's only turned round
    others = (np.stack(layouts), np.stack(shown))
    for first in range(7):
        at_once = layout_distances((layouts[first], shown[first]), others)
        plainly = [
            _layout_distance_pair_by_pair((layouts[first], shown[first]), (layout, seen))
            for layout, seen in zip(layouts, shown, strict=True)
        ]
        assert at_once == pytest.approx(plainly, abs=1e-4)  # float32 against float64
    assert layout_distances((layouts[3], shown[3]), others).tolist() == [0.0] * 7
    assert layout_distance((layouts[4], shown[4]), (layouts[5], shown[5])) > 0.05
    features = [
        BackFeature(rng.random(8), rng.random(5), (layout, seen))
        for layout, seen in zip(layouts, shown, strict=True)
    ]
    pairwise = pairwise_distances(features)
    one_by_one = np.array([[a.distance(b) for b in features] for a in features])
    assert np.abs(pairwise - one_by_one).max() < 1e-4  # each pair measured once, in float32
    assert np.array_equal(pairwise, pairwise.T) and not pairwise.diagonal().any()


def test_a_card_far_off_covers_nothing_though_it_lies_beyond_the_cards_horizon() -> None:
    # A small card with its corners a few pixels off: its map to the rectified card puts a
    # horizon between it and a card 500 px above, which would map around the whole card.
    card = np.array([[301, 600], [344, 600], [348, 663], [300, 661]], np.float32)
    far_above = np.array([[300, 40], [345, 40], [345, 103], [300, 103]], np.float32)
    assert uncovered(card, [far_above]).all()
    on_its_left_half = card + np.array([-22, 0], np.float32)
    assert 0.3 < 1 - uncovered(card, [on_its_left_half]).mean() < 0.7


def test_identify_marks_no_card_found_mostly_over_others_as_of_a_back_not_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In a spread, such a report is likely of parts of two cards, unlike every back for that
    (`MARKED_CLEAR_MIN`)."""
    width, height = RECTIFIED_SIZE
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    shifts = [(100, 100), (100 + width // 8, 100 + height // 8), (900, 100)]  # two overlap
    cards = [CardDetection(corners + np.array(s, np.float32), False, 0.8) for s in shifts]
    image = np.zeros((1200, 1400, 3), np.uint8)
    for card in cards:
        cv2.fillPoly(image, [np.round(card.quad).astype(np.int32)], (40, 40, 160))
    clear_shares = [
        float(uncovered(card.quad, [o.quad for o in cards if o is not card]).mean())
        for card in cards
    ]
    assert clear_shares[0] < MARKED_CLEAR_MIN and clear_shares[1] < MARKED_CLEAR_MIN
    monkeypatch.setattr(back_views, "other_backs", lambda cards, *_: set(range(len(cards))))
    named = with_backs(cards, image, BackMatcher({"plain": _plain_red()}))
    assert [card.back_unlike for card in named] == [False, False, True]
