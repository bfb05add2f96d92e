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
