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
BETWEEN_CARDS_SHARE = 0.65
"""A detection whose area lies this much under better-scored counted cards is a box across
the gap between two overlapping cards (half of each), not a card of its own. Real cards of a
spread showed at most 62% so covered, those boxes mostly over 80% (30 tuning spreads of seeds
other than the benchmark's: 1,185 cards, 19 such boxes; 16 dropped, 1 card lost)."""


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
    cards = with_backs(_not_between(_card_sized(cards)), image, matcher)
    counts = Counter(card.back for card in cards if card.back is not None)
    return {name: counts.get(name, 0) for name in matcher.features}, cards


def _card_sized(cards: list[CardDetection]) -> list[CardDetection]:
    areas = np.array([cv2.contourArea(card.quad.astype(np.float32)) for card in cards])
    if not len(areas):
        return cards
    low, high = (share * float(np.median(areas)) for share in CARD_AREA_RANGE)
    return [card for card, area in zip(cards, areas, strict=True) if low <= area <= high]


def _not_between(cards: list[CardDetection]) -> list[CardDetection]:
    ranked = sorted(cards, key=lambda card: -card.score)
    between = {
        id(card)
        for rank, card in enumerate(ranked)
        if _covered_share(card, ranked[:rank]) >= BETWEEN_CARDS_SHARE
    }
    return [card for card in cards if id(card) not in between]


def _covered_share(card: CardDetection, others: list[CardDetection]) -> float:
    """Share of the card's area under the union of the others (drawn in its bounding box)."""
    x, y, width, height = cv2.boundingRect(card.quad.astype(np.float32))
    origin = np.array([x, y], np.float32)
    own = np.zeros((height + 1, width + 1), np.uint8)
    cv2.fillPoly(own, [np.round(card.quad - origin).astype(np.int32)], 1)
    under = np.zeros_like(own)
    for other in others:
        cv2.fillPoly(under, [np.round(other.quad - origin).astype(np.int32)], 1)
    return float((own & under).sum()) / max(1, int(own.sum()))
