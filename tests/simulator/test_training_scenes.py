"""Random training scenes: the end-of-round count spread."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.training_scenes import SceneMix, random_scene

COUNT_ONLY = SceneMix(count_spread_probability=1.0)


@pytest.mark.parametrize("seed", range(8))
def test_a_count_spread_is_rows_of_distinct_face_down_cards(seed: int) -> None:
    scene = random_scene((600.0, 340.0), 3, np.random.default_rng(seed), COUNT_ONLY)
    spread = [card for card in scene.cards if card.lift == 0]  # not a card carried by a hand
    assert len(spread) >= 2
    assert not any(card.face_up for card in spread)
    assert len({(card.card, card.seat) for card in spread}) == len(spread)
    # All cards lie one way, give or take a few degrees, either way up.
    turns = np.radians([card.angle for card in spread])
    axis = np.angle(np.mean(np.exp(2j * turns)))
    spread_from_axis = np.degrees(np.abs(np.angle(np.exp(2j * turns - 1j * axis)))) / 2
    assert spread_from_axis.max() < 45


@pytest.mark.parametrize("seed", range(4))
def test_a_hand_fan_shows_a_strip_of_every_card_it_covers(seed: int) -> None:
    only_fans = SceneMix(
        pile_weights=(0.0, 0.0, 0.0, 0.0, 0.0),
        hand_fan_weight=1.0,
        count_spread_probability=0.0,
        game_layout_probability=0.0,
        hand_probability=0.0,
    )
    scene = random_scene((600.0, 340.0), 2, np.random.default_rng(seed), only_fans)
    assert scene.cards and all(card.face_up for card in scene.cards)
    # Neighbours in a fan sit 9-26 mm apart (a strip wide enough for the index), one seat each;
    # a jump to farther away starts the next fan.
    gaps = [
        float(np.hypot(b.x - a.x, b.y - a.y))
        for a, b in zip(scene.cards, scene.cards[1:], strict=False)
        if a.seat == b.seat
    ]
    in_fans = [gap for gap in gaps if gap < 40]
    assert in_fans and all(7 < gap < 28 for gap in in_fans)
