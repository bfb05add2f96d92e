"""The canvas of cards lying on the table, kept between frames and repainted only where needed.

Between two frames usually one or two cards appear or vanish. The layer finds them, and
repaints only their boxes: background first, then every card overlapping the box in painting
order. Patches are composited with identical arithmetic whether clipped or not, so the result
is byte-identical to painting the whole table from scratch.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from simulator.scene import CardPose
from simulator.sprites import PatchMaker, composite

FULL_REPAINT_SHARE = 0.4
"""Repaint everything when the dirty boxes cover more than this share of the canvas."""

Box = tuple[int, int, int, int]
Key = tuple[CardPose, int]


def _keys(cards: list[CardPose]) -> list[Key]:
    """Each pose with its occurrence number, so identical poses stay distinct."""
    seen: Counter[CardPose] = Counter()
    keys = []
    for pose in cards:
        keys.append((pose, seen[pose]))
        seen[pose] += 1
    return keys


class CardLayer:
    def __init__(self, background: np.ndarray, patches: PatchMaker) -> None:
        self.background = background
        self.patches = patches
        self.canvas = background.copy()
        self._keys: list[Key] = []
        height, width = background.shape[:2]
        self._full: Box = (0, 0, width, height)

    def update(self, cards: list[CardPose]) -> np.ndarray:
        """Bring the layer to `cards` (painting order) and return the canvas (do not modify)."""
        keys = _keys(cards)
        if keys == self._keys:
            return self.canvas
        old, new = set(self._keys), set(keys)
        common = old & new
        same_order = [k for k in self._keys if k in common] == [k for k in keys if k in common]
        changed = (old ^ new) if same_order else None
        boxes = self._dirty_boxes(changed)
        self._keys = keys
        card_boxes = np.array([self.patches.box(pose) for pose in cards], np.int64).reshape(-1, 4)
        for box in boxes:
            self._repaint(box, cards, card_boxes)
        return self.canvas

    def _dirty_boxes(self, changed: set[Key] | None) -> list[Box]:
        if changed is None:
            return [self._full]
        boxes = [self._clip(self.patches.box(pose)) for pose, _ in changed]
        boxes = [b for b in boxes if b[0] < b[2] and b[1] < b[3]]
        area = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes)
        if area > FULL_REPAINT_SHARE * self._full[2] * self._full[3]:
            return [self._full]
        return boxes

    def _clip(self, box: Box) -> Box:
        return (
            max(box[0], 0),
            max(box[1], 0),
            min(box[2], self._full[2]),
            min(box[3], self._full[3]),
        )

    def _repaint(self, box: Box, cards: list[CardPose], card_boxes: np.ndarray) -> None:
        x0, y0, x1, y1 = box
        self.canvas[y0:y1, x0:x1] = self.background[y0:y1, x0:x1]
        if not cards:
            return
        hits = (
            (card_boxes[:, 0] < x1)
            & (card_boxes[:, 2] > x0)
            & (card_boxes[:, 1] < y1)
            & (card_boxes[:, 3] > y0)
        )
        for index in np.flatnonzero(hits):
            composite(self.canvas, self.patches.patch(cards[index]), box)
