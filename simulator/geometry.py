"""Where things lie on the simulated table: the seats, each seat's piles and the foundation slots.

Table millimetres, origin at the play area's top-left corner (see scene.py). Each seat has its
own frame: `right` runs along its edge as the player sees it, `inward` points to the centre.

Seats sit on the play area's edges: seat 0 at the bottom edge, then clockwise as seen in the
image (4 seats: bottom, left, top, right; 2: bottom, top). A seat's piles reach about 330 mm to
its left and 280 mm to its right along its edge, so no seat may sit near a corner: each edge
takes a whole number of seats (`SEATS_PER_EDGE`), spread evenly along it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

NERTS_ALONG_MM = -300.0
WORK_FIRST_ALONG_MM = -190.0
WORK_STEP_MM = 82.0
STOCK_ALONG_MM = 160.0
WASTE_ALONG_MM = 245.0
WASTE_FAN_MM = 14.0
"""The waste's top three cards show side by side, so the playable top is obvious."""
PILE_DEPTH_MM = 110.0
"""Nerts pile, stock and waste: distance of their centres from the seat's edge."""
WORK_BASE_DEPTH_MM = 205.0
WORK_FAN_MM = 20.0
WORK_FAN_SPAN_MM = 140.0
"""A long work pile fans tighter so that it stays inside the seat's area."""
HAND_REST_DEPTH_MM = -120.0
"""Where a hand waits between moves: off the play area, beyond the seat's edge."""
SLOT_COLUMNS_UP_TO_4_SEATS = 6
SLOT_COLUMNS_MORE_SEATS = 8
SLOT_STEP_MM = (112.0, 118.0)
"""Wide enough for a card laid crosswise (by a player at a side edge) beside its neighbour."""


TABLE_UP_TO_4_SEATS_MM = (1400.0, 1000.0)
TABLE_5_6_SEATS_MM = (1800.0, 1200.0)
TABLE_7_8_SEATS_MM = (2200.0, 1200.0)
"""Play areas that fit the seats' layouts (`SEATS_PER_EDGE`) and that a 16:9 camera frames
well. The 7-8 seat table is only wider than the 5-6 one: a 16:9 view of either is filled by its
height, so their cards show as large."""
SEATS_PER_EDGE = {
    3: (1, 1, 0, 1),
    5: (1, 1, 2, 1),
    6: (2, 1, 2, 1),
    7: (2, 1, 3, 1),
    8: (3, 1, 3, 1),
}
"""Seats on the (bottom, left, top, right) edge, for the counts that an even spacing along the
perimeter would put at a corner (their piles then run off the play area). Other counts are
spaced evenly along the perimeter, which puts 1, 2 and 4 seats at edge centres."""


def table_for_seats(n_seats: int) -> tuple[float, float]:
    """The play area (inside the markers) for `n_seats` players."""
    if n_seats <= 4:
        return TABLE_UP_TO_4_SEATS_MM
    return TABLE_5_6_SEATS_MM if n_seats <= 6 else TABLE_7_8_SEATS_MM


def seat_anchor(
    seat: int, n_seats: int, table_mm: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """(point on the play area's edge, outward unit normal) for a seat."""
    width, height = table_mm
    # Walk clockwise as seen in the image, from the bottom centre: bottom edge leftward, left
    # edge upward, top edge rightward, right edge downward, bottom edge back to the centre.
    legs = (  # (length, start, direction of travel, outward normal)
        (width / 2, (width / 2, height), (-1.0, 0.0), (0.0, 1.0)),
        (height, (0.0, height), (0.0, -1.0), (-1.0, 0.0)),
        (width, (0.0, 0.0), (1.0, 0.0), (0.0, -1.0)),
        (height, (width, 0.0), (0.0, 1.0), (1.0, 0.0)),
        (width / 2, (width, height), (-1.0, 0.0), (0.0, 1.0)),
    )
    per_edge = SEATS_PER_EDGE.get(n_seats)
    if per_edge is not None:
        # Whole edges: the bottom edge from its right end, then as above; seats spread evenly.
        edges = ((width, (width, height), *legs[0][2:]), *legs[1:4])
        index = seat % n_seats
        for count, (length, start, travel, normal) in zip(per_edge, edges, strict=True):
            if index < count:
                point = np.array(start) + np.array(travel) * (index + 0.5) / count * length
                return point.astype(np.float64), np.array(normal, np.float64)
            index -= count
        raise AssertionError("unreachable: SEATS_PER_EDGE rows add up to their seat count")
    distance = (seat % n_seats) / n_seats * 2 * (width + height)
    for index, (length, start, travel, normal) in enumerate(legs):
        if distance <= length or index == len(legs) - 1:
            point = np.array(start) + np.array(travel) * min(distance, length)
            return point.astype(np.float64), np.array(normal, np.float64)
        distance -= length
    raise AssertionError("unreachable: the last leg always returns")


@dataclass(frozen=True)
class SeatFrame:
    anchor: tuple[float, float]
    right: tuple[float, float]
    inward: tuple[float, float]
    angle: float
    """Card angle (degrees) for cards the player lays square to their edge."""

    def at(self, along: float, depth: float) -> tuple[float, float]:
        return (
            self.anchor[0] + self.right[0] * along + self.inward[0] * depth,
            self.anchor[1] + self.right[1] * along + self.inward[1] * depth,
        )


class TableGeometry:
    def __init__(self, n_seats: int, table_mm: tuple[float, float] | None = None) -> None:
        self.n_seats = n_seats
        self.table_mm = table_for_seats(n_seats) if table_mm is None else table_mm
        self.seats = [self._seat_frame(seat) for seat in range(n_seats)]
        self.slots = self._slots(4 * n_seats)

    def _seat_frame(self, seat: int) -> SeatFrame:
        anchor, normal = seat_anchor(seat, self.n_seats, self.table_mm)
        inward = -normal
        right = np.array([-inward[1], inward[0]])
        angle = math.degrees(math.atan2(-inward[0], -inward[1]))
        return SeatFrame(
            (float(anchor[0]), float(anchor[1])),
            (float(right[0]), float(right[1])),
            (float(inward[0]), float(inward[1])),
            angle,
        )

    def _slots(self, count: int) -> list[tuple[float, float]]:
        columns = SLOT_COLUMNS_UP_TO_4_SEATS if self.n_seats <= 4 else SLOT_COLUMNS_MORE_SEATS
        rows = math.ceil(count / columns)
        centre_x, centre_y = self.table_mm[0] / 2, self.table_mm[1] / 2
        return [
            (
                centre_x + (i % columns - (columns - 1) / 2) * SLOT_STEP_MM[0],
                centre_y + (i // columns - (rows - 1) / 2) * SLOT_STEP_MM[1],
            )
            for i in range(count)
        ]

    def nerts(self, seat: int) -> tuple[float, float]:
        return self.seats[seat].at(NERTS_ALONG_MM, PILE_DEPTH_MM)

    def stock(self, seat: int) -> tuple[float, float]:
        return self.seats[seat].at(STOCK_ALONG_MM, PILE_DEPTH_MM)

    def waste(self, seat: int, position: int = 0) -> tuple[float, float]:
        """`position` 0 is the rightmost (top) card of the fan, 1 and 2 lie under it."""
        return self.seats[seat].at(WASTE_ALONG_MM - position * WASTE_FAN_MM, PILE_DEPTH_MM)

    def work(self, seat: int, pile: int, depth: int = 0, length: int = 1) -> tuple[float, float]:
        """Card number `depth` (0 = base) of a work pile `length` cards long, fanned toward the
        player."""
        step = min(WORK_FAN_MM, WORK_FAN_SPAN_MM / max(1, length - 1))
        along = WORK_FIRST_ALONG_MM + pile * WORK_STEP_MM
        return self.seats[seat].at(along, WORK_BASE_DEPTH_MM - depth * step)

    def rest(self, seat: int) -> tuple[float, float]:
        return self.seats[seat].at(0.0, HAND_REST_DEPTH_MM)

    def slot(self, index: int) -> tuple[float, float]:
        return self.slots[index]
