"""How the classifiers' readings of one card become one name: the cuts of a window agreed,
then the two index corners' votes combined with the whole face's reading."""

from __future__ import annotations

import numpy as np

FACE_WEIGHT = 0.7
"""A card found whole is named from its index corners and its whole face together: the
weighted geometric mean of the two readings, the face's with this weight. The face shows what
a small card's index blurs away (a 5 and a 6 differ by a pip in the middle). Chosen on the val
renders (0.3-0.7, face classifier round 1): 324 named of 392 with 21 wrong names without the
face; 0.3: 326 with 20; 0.5: 328 with 18; 0.7: 329 with 17. Edje train: 505 of 527 with and
without. Kept for round 3 (`models/card_faces.md`)."""
INDEX_SURE_OVER_FACE = 0.95
"""Index corners agreeing on a name at least this surely (their votes' share) are not
combined with the face: the face model was trained on fewer designs, and an unseen design's
court pictures or pips can read surely as another card (gnome-neoclassical's KD face read
JH 0.88 against both corners' KD 0.99; gnome-tango's clubs as spades). On the tuning val
renders (seeds 7, 9, 10, 12; 1,646 cards) named 1,358 -> 1,362 with 110 -> 108 wrong names;
hand fans (seed 11) and edje train photos as before (649 of 801, 505 of 527). At 0.9 the
same but one more fan name given; at 0.98 1,361 with 109 wrong."""
FACE_NONE_MAX = 0.5
"""A face read `none` (covered) at least this surely is left out. Val renders (0.2-0.8, weight
0.5): 0.2 named 328 with 19 wrong, 0.5 328 with 18, 0.8 326 with 18; at weight 0.7: 0.3 329
with 18, 0.5 329 with 17, 0.7 329 with 17 (one more name given)."""
PROBABILITY_FLOOR = 1e-6
"""Probabilities are raised to this before their logarithm, so that one window's zero does
not outweigh every other window's reading."""


def agreed(readings: np.ndarray, axis: int) -> np.ndarray:
    """Class probabilities of a window's cuts combined along `axis` by their geometric mean,
    normalised: a name wins only where all cuts give it some weight. One shifted cut
    often shows a neighbour's index (tight fans, cards under cards), and under the arithmetic
    mean its confident reading alone could carry a name."""
    logs = np.log(np.maximum(readings, PROBABILITY_FLOOR)).mean(axis=axis)
    agreed = np.exp(logs - logs.max(axis=-1, keepdims=True))
    return agreed / agreed.sum(axis=-1, keepdims=True)


def with_face(index: np.ndarray, face: np.ndarray, none_column: int) -> np.ndarray | None:
    """The index corners' votes (no `none`) and the whole face's probabilities combined by
    their weighted geometric mean (`FACE_WEIGHT`), normalised; None when the face reads as
    covered (`FACE_NONE_MAX`) or the votes are sure already (`INDEX_SURE_OVER_FACE`)."""
    if face[none_column] >= FACE_NONE_MAX or index.max() >= INDEX_SURE_OVER_FACE * index.sum():
        return None
    named = face.copy()
    named[none_column] = 0.0
    logs = (1 - FACE_WEIGHT) * np.log(np.maximum(index / index.sum(), PROBABILITY_FLOOR))
    logs += FACE_WEIGHT * np.log(np.maximum(named / named.sum(), PROBABILITY_FLOOR))
    fused = np.exp(logs - logs.max())
    return fused / fused.sum()
