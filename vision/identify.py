"""Name every card in a photo: find each card's corners, rectify it, read its index corners."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from models import CARDS_ONNX, INDEX_ONNX
from vision.backs import BackMatcher
from vision.detections import CardDetection
from vision.geometry import index_crops, portrait_order, rectify
from vision.onnx_models import CardDetector, IndexClassifier

log = logging.getLogger(__name__)

NONE_CLASS = "none"
INDEX_SCORE_MIN = 0.5
"""An index read below this probability leaves the card unnamed rather than guessed."""
DUPLICATE_OVERLAP = 0.5
"""Two face-up detections with the same name overlapping this much are one card."""


class CardReader:
    """Loads the models once; `read(image)` then names the cards of any number of photos."""

    def __init__(self, cards_model: Path = CARDS_ONNX, index_model: Path = INDEX_ONNX) -> None:
        self.detector = CardDetector(cards_model)
        self.classifier = IndexClassifier(index_model)

    def read(self, image: np.ndarray) -> list[CardDetection]:
        raw = self.detector(image)
        crops: list[np.ndarray] = []
        for card in raw:
            if card.face_up:
                crops += index_crops(rectify(image, card.quad))
        names, scores = self.classifier(crops)
        found: list[CardDetection] = []
        read = 0
        for card in raw:
            quad = portrait_order(card.quad)
            if not card.face_up:
                found.append(CardDetection(quad, False, card.score))
                continue
            pair = [(names[read + k], float(scores[read + k])) for k in range(2)]
            read += 2
            corner = max(range(2), key=lambda k: (pair[k][0] != NONE_CLASS, pair[k][1]))
            name, score = pair[corner]
            if name == NONE_CLASS or score < INDEX_SCORE_MIN:
                found.append(CardDetection(quad, True, card.score))
                continue
            # The read corner comes first, so the quad says where the index is.
            found.append(
                CardDetection(np.roll(quad, -2 * corner, axis=0), True, card.score, name, score)
            )
        return _without_duplicates(found)


def _without_duplicates(cards: list[CardDetection]) -> list[CardDetection]:
    kept: list[CardDetection] = []
    for card in sorted(cards, key=lambda c: -c.confidence):
        twin = next(
            (
                k
                for k in kept
                if card.card
                and k.card == card.card
                and _overlap(k.quad, card.quad) > DUPLICATE_OVERLAP
            ),
            None,
        )
        if twin is None:
            kept.append(card)
    return kept


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over the smaller area of two card quads."""

    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    smaller = min(cv2.contourArea(a.astype(np.float32)), cv2.contourArea(b.astype(np.float32)))
    return float(area) / smaller if smaller > 0 else 0.0


def with_backs(
    cards: list[CardDetection], image: np.ndarray, matcher: BackMatcher
) -> list[CardDetection]:
    """Names the back of every face-down card with a `BackMatcher`."""
    out = []
    for card in cards:
        if card.face_up:
            out.append(card)
            continue
        name, score = matcher.match(rectify(image, card.quad))
        out.append(replace(card, back=name, back_score=score))
    return out
