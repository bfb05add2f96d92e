"""The second opinion on a count's backs from the photo's own cards (`vision.back_doubts`)."""

from __future__ import annotations

import numpy as np

from vision.back_doubts import channel_spread, doubted
from vision.detections import CardDetection


def _pairwise(groups: list[int], within: float = 0.05, between: float = 0.4) -> np.ndarray:
    """Distances between cards that look alike within each group of the photo."""
    labels = np.array(groups)
    pairwise = np.where(labels[:, None] == labels[None, :], within, between)
    np.fill_diagonal(pairwise, 0.0)
    return pairwise


def _nearest(to_references: np.ndarray) -> np.ndarray:
    return to_references.argmin(axis=1)


def test_a_card_nearer_another_reference_but_like_its_own_cards_is_doubted() -> None:
    # Cards 0-3 look alike in the photo, as do 4-5; card 3 lies a little nearer back 1's
    # reference (photographed in other light), yet is like cards 0-2.
    to_references = np.array(
        [[0.10, 0.30], [0.12, 0.31], [0.11, 0.29], [0.20, 0.18], [0.30, 0.10], [0.31, 0.11]]
    )
    assert doubted(_pairwise([0, 0, 0, 0, 1, 1]), to_references, _nearest(to_references)) == {3: 0}


def test_cards_near_their_own_references_are_not_doubted() -> None:
    to_references = np.array(
        [[0.10, 0.30], [0.12, 0.31], [0.11, 0.29], [0.14, 0.25], [0.30, 0.10], [0.31, 0.11]]
    )
    assert doubted(_pairwise([0, 0, 0, 0, 1, 1]), to_references, _nearest(to_references)) == {}


def test_a_back_with_too_few_cards_gives_no_opinion() -> None:
    # Only cards 0-1 look alike: two cards of back 0 cannot vouch for card 2.
    to_references = np.array([[0.10, 0.30], [0.12, 0.31], [0.20, 0.18], [0.30, 0.10]])
    assert doubted(_pairwise([0, 0, 0, 1]), to_references, _nearest(to_references)) == {}


def test_a_card_unlike_every_back_keeps_its_nearest_reference() -> None:
    # Card 4 looks like none of the photo's cards: the references alone name it.
    to_references = np.array([[0.10, 0.30], [0.12, 0.31], [0.11, 0.29], [0.30, 0.10], [0.21, 0.20]])
    pairwise = _pairwise([0, 0, 0, 1, 2])
    assert doubted(pairwise, to_references, _nearest(to_references)) == {}


def test_a_card_is_doubted_against_the_back_it_was_counted_for() -> None:
    # Two references alike to the last digit: the count broke the tie for back 1 (by name);
    # the photo's cards, all of one look, agree, and nothing is doubted.
    to_references = np.array([[0.2, 0.2]] * 4)
    assert doubted(_pairwise([0, 0, 0, 0]), to_references, np.array([1, 1, 1, 1])) == {}


def test_an_opinion_that_comes_back_to_the_count_doubts_nothing() -> None:
    # Card 2 is unlike cards 0-1 and its references nearly tie: back 0's three cards send it
    # to back 1; then neither back has three cards to give an opinion, and the references
    # send it back, and so on. No state holds, so no card is doubted.
    to_references = np.array([[0.10, 0.50], [0.10, 0.50], [0.20, 0.22], [0.50, 0.10]])
    pairwise = _pairwise([0, 0, 1, 2], between=0.6)
    assert doubted(pairwise, to_references, _nearest(to_references)) == {}


def test_channel_spread_is_the_median_over_the_cards_pixels_alone() -> None:
    """Red pixels' channels lie 200 apart (0, 0, 200); the grey table around the cards is not
    looked at, and cards partly over it are told by their median."""
    image = np.full((100, 200, 3), 90, np.uint8)
    image[10:50, 10:40] = (0, 0, 200)
    red = CardDetection(np.array([[10, 10], [39, 10], [39, 49], [10, 49]], np.float32), False, 1.0)
    half = CardDetection(np.array([[27, 10], [56, 10], [56, 49], [27, 49]], np.float32), False, 1.0)
    assert channel_spread(image, []) == 0.0
    assert channel_spread(image, [red]) == 200.0
    assert channel_spread(image, [half]) == 0.0  # 13 of its 30 columns red
    assert channel_spread(image, [red, half]) == 200.0  # two in three of their pixels red
