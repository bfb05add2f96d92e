"""Drawing what vision found, for `--annotate` images a person can check."""

from __future__ import annotations

import cv2
import numpy as np

from vision.detections import CardDetection

FACE_UP_BGR = (40, 200, 40)
UNNAMED_BGR = (0, 160, 255)
FACE_DOWN_BGR = (255, 120, 0)


TEXT_SIZE_FOR_PX = 900
"""Labels and lines are drawn at their base size on a photo this many pixels on its short
side, and scaled with it, so they read alike on a phone snap and a 24 MP photo."""
MIN_SCALE = 0.4
"""Smallest drawing scale: labels stay legible on small photos."""
LINE_PX = 2.0
LABEL_HEIGHT_PX = 18.0
LABEL_FONT_SCALE = 0.55
LABEL_OUTLINE_PX = 4.0
"""A dark outline under each label keeps it readable on light cards and dark felt alike."""
LABEL_STROKE_PX = 1.5


def annotate(image: np.ndarray, cards: list[CardDetection]) -> np.ndarray:
    out = image.copy()
    scale = max(MIN_SCALE, min(out.shape[:2]) / TEXT_SIZE_FOR_PX)
    for card in cards:
        colour = FACE_DOWN_BGR if not card.face_up else FACE_UP_BGR if card.card else UNNAMED_BGR
        points = card.quad.reshape(-1, 1, 2).astype(np.int32)
        cv2.polylines(out, [points], True, colour, max(1, round(LINE_PX * scale)), cv2.LINE_AA)
        label = card.card if card.face_up else card.back
        x, y = (int(v) for v in card.quad[0])
        at = (x + 3, y + int(LABEL_HEIGHT_PX * scale))
        text = f"{label or '?'} {card.confidence:.2f}"
        outline, stroke = (
            max(2, round(LABEL_OUTLINE_PX * scale)),
            max(1, round(LABEL_STROKE_PX * scale)),
        )
        _label(out, text, at, scale, colour=(0, 0, 0), thickness=outline)
        _label(out, text, at, scale, colour=colour, thickness=stroke)
    return out


def _label(
    out: np.ndarray,
    text: str,
    at: tuple[int, int],
    scale: float,
    *,
    colour: tuple[int, int, int],
    thickness: int,
) -> None:
    font_scale = LABEL_FONT_SCALE * scale
    cv2.putText(out, text, at, cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, thickness, cv2.LINE_AA)
