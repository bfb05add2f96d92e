"""The one boundary type for what vision found in an image: `CardDetection`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class CardDetection:
    quad: np.ndarray
    """4 x 2 float image pixels: the whole card's corners, clockwise, where the card lies
    (estimated where covered). For a face-up card the first corner is one with an index."""
    face_up: bool
    score: float
    """Detector confidence that this is a card, 0..1."""
    card: str | None = None
    """Identity such as "10H" when face up and an index corner could be read."""
    card_score: float = 0.0
    back: str | None = None
    """Name of the registered back it matches, when face down and matched."""
    back_score: float = 0.0
    back_unlike: bool = False
    """Whether the card looks like a back nobody registered (`vision.back_doubts.other_backs`):
    `back` is then only the nearest."""
    back_also: str | None = None
    """Another registered back the photo's own cards of that back say this card looks like
    (`vision.back_doubts`): its back is in doubt."""

    @property
    def confidence(self) -> float:
        """Joint confidence of what is reported: the card, and its identity or back."""
        if self.face_up:
            return self.score * (self.card_score if self.card is not None else 1.0)
        return self.score * (self.back_score if self.back is not None else 1.0)

    def to_json(self) -> dict[str, object]:
        return {
            "card": self.card,
            "face_up": self.face_up,
            "back": self.back,
            "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
            "confidence": round(float(self.confidence), 3),
        }
