"""Random training scenes: the end-of-round count spread, hands fanned on the table."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from simulator.scene import Scene
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


ONLY_FANS = SceneMix(
    pile_weights=(0.0, 0.0, 0.0, 0.0, 0.0),
    hand_fan_weight=1.0,
    count_spread_probability=0.0,
    game_layout_probability=0.0,
    hand_probability=0.0,
)


def _gaps_in_fans(scene: Scene, farthest: float) -> list[float]:
    """Distances between neighbours of one seat; a jump farther than `farthest` starts the
    next fan."""
    gaps = [
        float(np.hypot(b.x - a.x, b.y - a.y))
        for a, b in zip(scene.cards, scene.cards[1:], strict=False)
        if a.seat == b.seat
    ]
    return [gap for gap in gaps if gap < farthest]


@pytest.mark.parametrize("seed", range(4))
def test_a_hand_fan_shows_a_strip_of_every_card_it_covers(seed: int) -> None:
    scene = random_scene((600.0, 340.0), 2, np.random.default_rng(seed), ONLY_FANS)
    assert scene.cards and all(card.face_up for card in scene.cards)
    # Neighbours in a fan sit 9-26 mm apart (a strip wide enough for the index), one seat each.
    in_fans = _gaps_in_fans(scene, 40)
    assert in_fans and all(7 < gap < 28 for gap in in_fans)


@pytest.mark.parametrize("seed", range(4))
def test_a_tight_fan_shows_a_strip_narrower_than_the_index(seed: int) -> None:
    tight = replace(ONLY_FANS, tight_fan_share=1.0)
    scene = random_scene((600.0, 340.0), 2, np.random.default_rng(seed), tight)
    # 5-9 mm sideways and up to 0.6 of that down the card, give or take the placing noise.
    in_fans = _gaps_in_fans(scene, 20)
    assert in_fans and all(2 < gap < 14 for gap in in_fans)
