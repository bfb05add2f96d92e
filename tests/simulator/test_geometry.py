"""Table geometry: every seat's piles lie on the play area, in the camera image, apart."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from simulator import geometry
from simulator.backs import default_backs
from simulator.faces import builtin_design
from simulator.geometry import TableGeometry, seat_anchor, table_for_seats
from simulator.render import RenderSettings, TableRenderer

CARD_MM = (63.0, 88.0)
TABLE_MARGIN_MM = 10.0
IMAGE_MARGIN_PX = 4.0
Box = tuple[str, np.ndarray, np.ndarray]
"""(name, lowest corner, highest corner) in table mm, axis-aligned."""


def _seat_box(
    geo: TableGeometry, seat: int, name: str, along: float, depth: tuple[float, float]
) -> Box:
    frame = geo.seats[seat]
    w, h = CARD_MM[0] / 2, CARD_MM[1] / 2
    corners = np.array(
        [frame.at(a, d) for a in (along - w, along + w) for d in (depth[0] - h, depth[1] + h)]
    )
    return (f"seat {seat} {name}", corners.min(axis=0), corners.max(axis=0))


def _pile_boxes(geo: TableGeometry) -> list[Box]:
    """Where each pile's cards can lie: a work pile fanned over its whole span, the waste's top
    card, and the foundation slots with cards laid either way round."""
    boxes = []
    pile_depth = (geometry.PILE_DEPTH_MM, geometry.PILE_DEPTH_MM)
    work_depth = (
        geometry.WORK_BASE_DEPTH_MM - geometry.WORK_FAN_SPAN_MM,
        geometry.WORK_BASE_DEPTH_MM,
    )
    for seat, frame in enumerate(geo.seats):
        assert frame.angle % 90.0 == pytest.approx(0.0, abs=1e-9), "seats sit square to an edge"
        boxes.append(_seat_box(geo, seat, "nerts", geometry.NERTS_ALONG_MM, pile_depth))
        boxes.append(_seat_box(geo, seat, "stock", geometry.STOCK_ALONG_MM, pile_depth))
        boxes.append(_seat_box(geo, seat, "waste", geometry.WASTE_ALONG_MM, pile_depth))
        for pile in range(4):
            along = geometry.WORK_FIRST_ALONG_MM + pile * geometry.WORK_STEP_MM
            boxes.append(_seat_box(geo, seat, f"work {pile}", along, work_depth))
    slots = np.array(geo.slots)
    half = max(CARD_MM) / 2
    boxes.append(("foundations", slots.min(axis=0) - half, slots.max(axis=0) + half))
    return boxes


@pytest.mark.parametrize("players", range(2, 9))
def test_every_pile_lies_on_the_play_area_apart_from_the_others(players: int) -> None:
    geo = TableGeometry(players)
    width, height = geo.table_mm
    boxes = _pile_boxes(geo)
    for name, low, high in boxes:
        assert low.min() >= TABLE_MARGIN_MM, (name, low)
        assert high[0] <= width - TABLE_MARGIN_MM and high[1] <= height - TABLE_MARGIN_MM, (
            name,
            high,
        )
    for (a, a_low, a_high), (b, b_low, b_high) in itertools.combinations(boxes, 2):
        apart = (a_high <= b_low).any() or (b_high <= a_low).any()
        assert apart, f"{players} players: {a} overlaps {b}"


@pytest.mark.parametrize("players", range(2, 9))
def test_every_pile_is_in_the_camera_image(players: int) -> None:
    geo = TableGeometry(players)
    for seed in range(3):
        settings = RenderSettings(size=(480, 270), table_mm=geo.table_mm, seed=seed)
        renderer = TableRenderer(settings, [builtin_design()], default_backs(players))
        for name, low, high in _pile_boxes(geo):
            for x, y in itertools.product((low[0], high[0]), (low[1], high[1])):
                u, v = renderer.project(x, y)
                assert IMAGE_MARGIN_PX <= u <= settings.size[0] - IMAGE_MARGIN_PX, (name, seed)
                assert IMAGE_MARGIN_PX <= v <= settings.size[1] - IMAGE_MARGIN_PX, (name, seed)


@pytest.mark.parametrize("players", range(2, 9))
def test_seats_run_clockwise_from_the_bottom_edge(players: int) -> None:
    table = table_for_seats(players)
    centre = np.array(table) / 2
    anchors = [seat_anchor(seat, players, table)[0] for seat in range(players)]
    assert anchors[0][1] == table[1], "seat 0 sits at the bottom edge"
    # Image y points down, so the angle atan2(dy, dx) grows clockwise as seen in the image.
    angles = [math.degrees(math.atan2(*(a - centre)[::-1])) for a in anchors]
    turned = [(angle - angles[0]) % 360.0 for angle in angles]
    assert turned == sorted(turned) and len(set(turned)) == players, turned


def test_two_and_four_seats_sit_at_the_edge_centres() -> None:
    width, height = table_for_seats(4)
    assert table_for_seats(2) == table_for_seats(4) == (1400.0, 1000.0)
    four = [tuple(seat_anchor(seat, 4, (width, height))[0]) for seat in range(4)]
    assert four == [(700.0, 1000.0), (0.0, 500.0), (700.0, 0.0), (1400.0, 500.0)]
    two = [tuple(seat_anchor(seat, 2, (width, height))[0]) for seat in range(2)]
    assert two == [(700.0, 1000.0), (700.0, 0.0)]
