"""The end-of-round count: face-down cards spread on the table, counted per registered back."""

from __future__ import annotations

from collections import Counter

import numpy as np

from vision.backs import BackMatcher
from vision.detections import CardDetection
from vision.identify import CardReader, with_backs


def count_backs(
    image: np.ndarray, reader: CardReader, matcher: BackMatcher
) -> tuple[dict[str, int], list[CardDetection]]:
    """Cards per registered back (every back listed, zero included) and the cards counted."""
    # Counting waits for no one, and spread cards are small: worth the slower tiled look.
    found = reader.read(image, tiled=True)
    cards = with_backs([c for c in found if not c.face_up], image, matcher)
    counts = Counter(card.back for card in cards if card.back is not None)
    return {name: counts.get(name, 0) for name in matcher.features}, cards
