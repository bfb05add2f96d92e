"""The end-of-round count: face-down cards spread on the table, counted per registered back."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np

from vision.backs import BackMatcher
from vision.detections import CardDetection
from vision.geometry import portrait_order
from vision.identify import CardReader, with_backs
from vision.tiles import detect_tiled

CARD_AREA_RANGE = (0.55, 1.8)
"""Counted cards lie flat on one table, so they look about the same size: a detection outside
this share of the median card's area is a piece of a card or a box around two, not a card."""


def count_backs(
    image: np.ndarray, reader: CardReader, matcher: BackMatcher, *, tiled: bool = True
) -> tuple[dict[str, int], list[CardDetection]]:
    """Cards per registered back (every back listed, zero included) and the cards counted;
    `tiled` also looks at tiles of the photo (`vision/tiles.py`), for small cards."""
    raw = detect_tiled(reader.detector, image) if tiled else reader.detector(image)
    # Every card of a count photo is face down, whatever the detector calls it: some backs
    # are pictures (one in decks/backs shows four aces) that it takes for a face.
    cards = [
        CardDetection(portrait_order(card.quad), False, card.score)
        for card in raw
        if not card.index_corner
    ]
    cards = with_backs(_card_sized(cards), image, matcher)
    counts = Counter(card.back for card in cards if card.back is not None)
    return {name: counts.get(name, 0) for name in matcher.features}, cards


def _card_sized(cards: list[CardDetection]) -> list[CardDetection]:
    areas = np.array([cv2.contourArea(card.quad.astype(np.float32)) for card in cards])
    if not len(areas):
        return cards
    low, high = (share * float(np.median(areas)) for share in CARD_AREA_RANGE)
    return [card for card, area in zip(cards, areas, strict=True) if low <= area <= high]
