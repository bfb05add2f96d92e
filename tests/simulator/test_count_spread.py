"""The count's spread as a photo (`simulator.count_spread`)."""

from __future__ import annotations

import numpy as np

from simulator.backs import default_backs
from simulator.count_spread import COUNT_PHOTO_SIZE, SPREAD_EDGE_MM, count_photo, spread_poses
from simulator.scene import CARD_HEIGHT_MM


def test_a_spread_lays_every_card_face_down_in_the_order_given() -> None:
    order = [2, 0, 1, 1, 0, 2, 2]
    poses = spread_poses(order, np.random.default_rng(1))
    assert [pose.seat for pose in poses] == order
    assert not any(pose.face_up for pose in poses)
    # Six to a row at least: the seventh starts the second, a card's length further down.
    second_row = SPREAD_EDGE_MM + CARD_HEIGHT_MM / 2
    assert [pose.y > second_row for pose in poses] == [False] * 6 + [True]


def test_a_count_photo_is_the_same_for_the_same_seed_and_another_for_another() -> None:
    backs = default_backs(3)
    photo = count_photo([3, 0, 2], backs, seed=5)
    assert photo.shape == (COUNT_PHOTO_SIZE[1], COUNT_PHOTO_SIZE[0], 3)
    assert np.array_equal(photo, count_photo([3, 0, 2], backs, seed=5))
    assert not np.array_equal(photo, count_photo([3, 0, 2], backs, seed=6))
