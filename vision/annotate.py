"""Drawing what vision found, for `--annotate` images a person can check."""

from __future__ import annotations

import cv2
import numpy as np

from vision.detections import CardDetection

FACE_UP_BGR = (40, 200, 40)
UNNAMED_BGR = (0, 160, 255)
FACE_DOWN_BGR = (255, 120, 0)


def annotate(image: np.ndarray, cards: list[CardDetection]) -> np.ndarray:
    out = image.copy()
    scale = max(0.4, min(out.shape[:2]) / 900)
    for card in cards:
        colour = FACE_DOWN_BGR if not card.face_up else FACE_UP_BGR if card.card else UNNAMED_BGR
        points = card.quad.reshape(-1, 1, 2).astype(np.int32)
        cv2.polylines(out, [points], True, colour, max(1, round(2 * scale)), cv2.LINE_AA)
        label = card.card if card.face_up else card.back
        text = f"{label or '?'} {card.confidence:.2f}"
        x, y = (int(v) for v in card.quad[0])
        cv2.putText(
            out,
            text,
            (x + 3, y + int(18 * scale)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.55 * scale,
            (0, 0, 0),
            max(2, round(4 * scale)),
            cv2.LINE_AA,
        )
        cv2.putText(
            out,
            text,
            (x + 3, y + int(18 * scale)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.55 * scale,
            colour,
            max(1, round(1.5 * scale)),
            cv2.LINE_AA,
        )
    return out
