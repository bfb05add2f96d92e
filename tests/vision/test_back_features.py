"""The back feature: histograms that do not jump bins, brightness on the card's own scale,
and references matched at the size the card was seen."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from simulator.backs import back_from_spec
from vision.back_features import (
    FREQUENCY_BANDS,
    _circular_histogram,
    _frequency_bands,
    _linear_histogram,
    _percentile_of_bytes,
    back_feature,
    exposed_back_features,
)
from vision.backs import (
    EXPOSURE_GAINS,
    NEAR_REFERENCE_DISTANCE,
    TAKE_MARGIN,
    BackMatcher,
    _nearest_in_all,
    _on_white,
    _seen_at,
)
from vision.geometry import RECTIFIED_SIZE


def _bordered(colour: tuple[int, int, int]) -> np.ndarray:
    """A back of one colour inside a white border, at the rectified size."""
    width, height = RECTIFIED_SIZE
    card = np.full((height, width, 3), 255, np.uint8)
    card[12:-12, 12:-12] = colour
    return card


def _dotted(colour: tuple[int, int, int]) -> np.ndarray:
    """A back printed with white dots 3 px (1 mm) apart: a pattern a small card loses."""
    card = _bordered(colour)
    card[14:-14:3, 14:-14:3] = 255
    return card


def test_a_value_on_a_bin_edge_is_shared_by_both_bins_and_wraps_round() -> None:
    # 12 hue bins over 180: centres at 7.5, 22.5, ... 172.5; 120 is the edge of bins 7 and 8.
    edge = _circular_histogram(np.array([120.0]), 12, 180, np.array([2.0]))
    assert edge[7] == pytest.approx(1.0) and edge[8] == pytest.approx(1.0)
    wrapped = _circular_histogram(np.array([179.0]), 12, 180, np.array([1.0]))
    assert wrapped[11] + wrapped[0] == pytest.approx(1.0) and wrapped[0] > 0
    assert wrapped.sum() == pytest.approx(1.0)


def test_a_hue_moved_a_hair_moves_the_histogram_a_hair() -> None:
    before = _circular_histogram(np.array([119.5]), 12, 180, np.array([1.0]))
    after = _circular_histogram(np.array([120.5]), 12, 180, np.array([1.0]))
    assert np.abs(before - after).sum() < 0.15


def test_linear_histogram_has_centres_at_both_ends() -> None:
    values = np.array([0.0, 255.0, 127.5])
    counts = _linear_histogram(values, 4, 255, np.ones(3))
    assert counts == pytest.approx([1.0, 0.5, 0.5, 1.0])


def test_a_dim_photo_of_a_light_back_is_not_taken_for_a_dark_back_of_its_hue() -> None:
    aqua, teal = _bordered((255, 255, 0)), _bordered((128, 128, 0))
    matcher = BackMatcher({"aqua": aqua, "teal": teal})
    dim_aqua = (aqua * 0.6).astype(np.uint8)  # white border and all, as in a dark room
    bright_teal = np.minimum(teal * 1.2, 255).astype(np.uint8)
    assert matcher.match(dim_aqua)[0] == "aqua"
    assert matcher.match(bright_teal)[0] == "teal"


def test_a_black_back_under_a_warm_lamp_is_not_taken_for_a_red_one() -> None:
    black, red = _bordered((45, 45, 45)), _bordered((40, 40, 190))
    matcher = BackMatcher({"black": black, "red": red, "blue": _bordered((190, 60, 40))})
    warm = np.clip(black * np.array([0.75, 1.0, 1.3], np.float32), 0, 255).astype(np.uint8)
    assert matcher.match(warm)[0] == "black"
    assert (
        matcher.match(
            np.clip(red * np.array([1.2, 1.0, 0.8], np.float32), 0, 255).astype(np.uint8)
        )[0]
        == "red"
    )
    # A back printed to its edge, with no white to measure against.
    bare_black, bare_red = np.full_like(black, 45), np.full_like(red, (40, 40, 190))
    matcher = BackMatcher({"black": bare_black, "red": bare_red})
    for cast in ([0.85, 1.0, 1.15], [1.15, 1.0, 0.85]):
        tinted = np.clip(bare_black * np.array(cast, np.float32), 0, 255).astype(np.uint8)
        assert matcher.match(tinted)[0] == "black"


def test_a_reference_photographed_sideways_is_turned_upright() -> None:
    upright = _bordered((200, 60, 30))
    upright[40:-40:12, 20:-20] = 255  # stripes across the card
    matcher = BackMatcher({"sideways": np.ascontiguousarray(np.rot90(upright))})
    assert matcher.features["sideways"].distance(back_feature(upright)) < 0.01
    seen = matcher.references_at(64)["sideways"][0]
    assert seen.distance(back_feature(_seen_at(upright, 64))) < 0.01


def test_a_small_card_is_matched_against_its_design_seen_as_small() -> None:
    dotted = _dotted((200, 60, 30))
    seen_small = _seen_at(dotted, 64)
    # A plain back in the colour the dots blur into: what the small card looks like.
    blue, green, red = (int(c) for c in seen_small[60:-60, 40:-40].mean(axis=(0, 1)))
    plain = _bordered((blue, green, red))
    matcher = BackMatcher({"dotted": dotted, "plain": plain})
    assert matcher.match(seen_small)[0] == "plain"  # the design file's dots mislead
    assert matcher.match(seen_small, seen_width_px=64)[0] == "dotted"
    assert matcher.match(dotted, seen_width_px=RECTIFIED_SIZE[0])[0] == "dotted"


def _faint_suits(motif: tuple[int, int, int]) -> np.ndarray:
    """A blue back with two big motifs a shade darker than its ground."""
    card = _bordered((170, 50, 20))
    height, width = card.shape[:2]
    card[30:90, 25:70] = card[height - 90 : height - 30, width - 70 : width - 25] = motif
    return card


def test_an_overexposed_reference_is_also_matched_as_exposed_less() -> None:
    card = _faint_suits((150, 44, 18))
    # A photo of the same back exposed 1.3 times too long: its white border clips at 255 and
    # its blue shows brighter against it than on the card.
    overexposed = np.clip(card * np.float32(1.3), 0, 255).astype(np.uint8)
    plain = _bordered((165, 48, 19))
    matcher = BackMatcher({"suits": overexposed, "plain": plain})
    assert matcher.match(card)[0] == "suits"
    distances = matcher.distances(back_feature(card))
    assert distances["suits"] < 0.02
    assert distances["plain"] > 0.1
    # Without the exposures, the plain back's colour was nearer.
    assert back_feature(card).distance(matcher.features["suits"]) > distances["plain"]


def test_a_photo_settles_an_overexposed_reference_at_the_exposure_its_cards_show() -> None:
    card, plain_card = _faint_suits((150, 44, 18)), _bordered((165, 48, 19))
    overexposed = np.clip(card * np.float32(1.3), 0, 255).astype(np.uint8)
    matcher = BackMatcher({"suits": overexposed, "plain": plain_card})
    photo = [(back_feature(card), None)] * 3 + [(back_feature(plain_card), None)] * 2
    settled = matcher.settled(photo)
    assert settled.white_gains == {"suits": (1.3,), "plain": (1.0,)}
    assert settled.match(card).name == "suits"
    assert settled.match(plain_card).name == "plain"
    assert matcher.white_gains["suits"] == (1.0, *EXPOSURE_GAINS)  # the registered one is kept


def test_a_bright_back_taken_darker_does_not_take_its_dark_twins_cards() -> None:
    # Blue and navy design files; the navy cards come out a little brighter than the file.
    blue, navy = _bordered((230, 40, 20)), _bordered((120, 20, 10))
    navy_card = _bordered((150, 26, 13))
    matcher = BackMatcher({"blue": blue, "navy": navy})
    assert matcher.match(navy_card).name == "blue"  # each card at its nearest exposure
    photo = [(back_feature(blue), None)] * 2 + [(back_feature(navy_card), None)] * 2
    settled = matcher.settled(photo)
    assert settled.white_gains == {"blue": (1.0,), "navy": (1.0,)}
    assert settled.match(navy_card).name == "navy"


@pytest.mark.parametrize("blue_cards", [0, 1])
def test_a_bright_back_with_next_to_no_cards_does_not_take_its_dark_twins(blue_cards: int) -> None:
    # Taken darker, blue would lie nearer these navy cards than navy does, and the cards in
    # all nearer their nearest references; but blue's own cards, if any, show it as it is.
    blue, navy = _bordered((230, 40, 20)), _bordered((120, 20, 10))
    navy_card = _bordered((150, 26, 13))
    matcher = BackMatcher({"blue": blue, "navy": navy})
    photo = [(back_feature(blue), None)] * blue_cards + [(back_feature(navy_card), None)] * 6
    settled = matcher.settled(photo)
    assert settled.white_gains == {"blue": (1.0,), "navy": (1.0,)}
    assert settled.match(navy_card).name == "navy"


@pytest.mark.parametrize(
    ("between", "darker_distance", "moved"),
    [
        (0.4, 0.26, True),  # designs apart: a small gain counts
        (0.2, 0.26, False),  # near, as two shades of one design: not by a small margin
        (0.2, 0.2, True),  # near, but the cards lie clearly nearer: it counts
    ],
)
def test_cards_move_between_near_references_only_by_a_clear_margin(
    between: float, darker_distance: float, moved: bool
) -> None:
    # Three cards lie 0.28 from reference B and 0.30 from A as it shows; A taken darker lies
    # `darker_distance` from them, `between` from B.
    assert 0.28 - 0.26 < TAKE_MARGIN <= 0.28 - 0.2
    assert 0.2 < NEAR_REFERENCE_DISTANCE <= 0.4
    a = np.array([[0.30, darker_distance]] * 3)
    b = np.array([[0.28]] * 3)
    a_from_b = np.array([[between + 0.05], [between]])
    apart = [[np.zeros((2, 2)), a_from_b], [a_from_b.T, np.zeros((1, 1))]]
    assert _nearest_in_all([a, b], apart) == [1 if moved else 0, 0]


def test_a_reference_no_card_lies_nearest_stays_as_it_shows() -> None:
    blue, red = _bordered((230, 40, 20)), _bordered((20, 40, 230))
    matcher = BackMatcher({"blue": blue, "red": red})
    settled = matcher.settled([(back_feature(blue), 64.0)] * 3)
    assert settled.white_gains == {"blue": (1.0,), "red": (1.0,)}
    assert len(settled.references_at(40.0)["red"]) == 1  # sizes seen later: one exposure too


def test_only_a_reference_with_a_clipped_white_is_matched_at_other_exposures() -> None:
    card = _faint_suits((150, 44, 18))
    dim = (card * np.float32(0.8)).astype(np.uint8)
    matcher = BackMatcher({"clipped": card, "dim": dim})
    for seen_width_px in (None, 64.0, 40.0):  # judged once, however small the card is seen
        exposures = matcher.references_at(seen_width_px)
        assert len(exposures["clipped"]) == 1 + len(EXPOSURE_GAINS)
        assert len(exposures["dim"]) == 1


def test_a_card_exposed_brighter_is_the_card_with_its_white_taken_brighter() -> None:
    # The same inks on a card whose white border shows at 250 and on one whose border shows
    # at 200: taking the second one's white as 1.25 times brighter makes them one feature,
    # pattern and layout (scaled, not measured again) as well as colour.
    bright, dim = _faint_suits((150, 44, 18)), _faint_suits((150, 44, 18))
    bright[bright == 255], dim[dim == 255] = 250, 200
    expected = back_feature(bright)
    same_card, taken_brighter = exposed_back_features(dim, (1.0, 1.25))
    assert same_card.distance(back_feature(dim)) == 0
    np.testing.assert_allclose(taken_brighter.colour, expected.colour, atol=1e-6)
    np.testing.assert_allclose(taken_brighter.pattern, expected.pattern, atol=1e-6)
    np.testing.assert_allclose(taken_brighter.layout[0], expected.layout[0], atol=1e-3)
    assert taken_brighter.distance(expected) < 1e-5
    assert same_card.distance(expected) > 0.01


def test_references_seen_as_small_are_cached_per_quarter_octave() -> None:
    matcher = BackMatcher({"dotted": _dotted((200, 60, 30))})
    card = _seen_at(_dotted((200, 60, 30)), 64)
    for width in (62.0, 64.0, 66.0, 90.0):
        matcher.match(card, seen_width_px=width)
    # Full size (None) is made with the matcher; two quarter-octave steps besides.
    assert sorted(matcher._references_by_size, key=str) == [24, 26, None]


def test_percentile_of_bytes_is_numpys_percentile() -> None:
    rng = np.random.default_rng(3)
    for size in (1, 2, 7, 100, 5_000):
        values = rng.integers(0, 256, size).astype(np.uint8)
        for percent in (0.0, 50.0, 95.0, 100.0):
            assert _percentile_of_bytes(values, percent) == pytest.approx(
                float(np.percentile(values, percent))
            )


def test_frequency_bands_are_numpys_histogram_of_the_radius() -> None:
    height, width = 40, 27
    rows, columns = np.mgrid[:height, :width]
    radius = np.hypot((rows - height / 2) / height, (columns - width / 2) / width)
    weights = np.random.default_rng(4).random((height, width))
    band_of, shares = _frequency_bands((height, width))
    bands = np.bincount(band_of, weights.ravel(), FREQUENCY_BANDS + 1)[:FREQUENCY_BANDS]
    expected = np.histogram(radius, FREQUENCY_BANDS, (0, 0.5), weights=weights)[0]
    assert bands == pytest.approx(expected)
    counts = np.histogram(radius, FREQUENCY_BANDS, (0, 0.5))[0]
    assert shares == pytest.approx(counts / radius.size)


def test_a_match_says_how_far_the_card_lies_from_its_nearest_back() -> None:
    plain, dotted = _bordered((40, 40, 200)), _dotted((200, 60, 20))
    matcher = BackMatcher({"plain": plain, "dotted": dotted})
    card = _dotted((190, 70, 30))
    match = matcher.match(card)
    assert match.name == "dotted"
    assert match.distance == pytest.approx(back_feature(card).distance(matcher.features["dotted"]))
    assert matcher.match(plain).distance == pytest.approx(0.0, abs=1e-6)
    assert matcher.match_feature(back_feature(card)) == match


def test_backs_the_matcher_cannot_tell_apart_are_named() -> None:
    """Two backs alike but for a small mark in one corner are one design to the matcher; the
    same pattern in red and maroon, or in another colour, are not."""
    lattice = _on_white(back_from_spec("red:lattice").image)
    marked = lattice.copy()
    height, width = marked.shape[:2]
    cv2.circle(marked, (width // 5, height // 5), width // 30, (255, 255, 255), -1)
    references = {
        "anna": lattice,
        "ben": marked,
        "cleo": _on_white(back_from_spec("maroon:lattice").image),
        "dan": _on_white(back_from_spec("blue:lattice").image),
    }
    assert BackMatcher(references).alike() == [("anna", "ben")]


def test_a_back_under_a_cold_lamp_is_matched_on_its_own_white() -> None:
    """A bluish cast turns a purple back blue; measured against the card's white rim (as cold
    as the back), purple it stays."""
    references = {
        "blue": _bordered((190, 90, 40)),
        "purple": _bordered((170, 60, 140)),
        "teal": _bordered((150, 140, 20)),
    }
    matcher = BackMatcher(references)
    for cast in ([1.3, 1.0, 0.75], [1.25, 1.1, 0.7]):
        for name, back in references.items():
            cold = np.clip(back * np.array(cast, np.float32), 0, 255).astype(np.uint8)
            assert matcher.match(cold)[0] == name
