"""Recognition figures on real photos: bidly's bridge deals (cards named right, and the
precision of the names given), bidly's single cards filling the frame, and the edje test photos
(cards found with the right rank)."""

from __future__ import annotations

import cv2
import numpy as np
from count_spreads import SHARED
from recognition_data import bidly_deals, bidly_single_cards, edje_test
from recognition_metrics import MATCH_OVERLAP, Figures, Reader, percent

from models.dataset import read_image
from vision.geometry import intersection_over_union as iou


def inside(quad: np.ndarray, x: float, y: float) -> bool:
    return cv2.pointPolygonTest(quad.astype(np.float32).reshape(-1, 1, 2), (x, y), False) >= 0


def bidly(read: Reader, figures: Figures) -> None:
    right = total = named = correct_named = 0
    for path, boxes in bidly_deals(SHARED):
        found = read(read_image(path))
        labelled = {card for card, _, _ in boxes}
        total += len(labelled)
        for card in labelled:
            centres = [(x, y) for c, x, y in boxes if c == card]
            right += any(
                f.card == card and any(inside(f.quad, x, y) for x, y in centres) for f in found
            )
        # A name is right where its card's index lies in the card reported, once: a deal is
        # one deck, and a card listed twice (or at another card's place) is a wrong name.
        credited: set[str] = set()
        for f in sorted(found, key=lambda f: -f.confidence):
            if f.card is None:
                continue
            named += 1
            if f.card not in credited and any(
                inside(f.quad, x, y) for c, x, y in boxes if c == f.card
            ):
                credited.add(f.card)
                correct_named += 1
    figures["bidly deals"] = {
        "labelled cards": total,
        "named right": right,
        "names given": named,
        "names right": correct_named,
    }
    print(
        f"bidly deals: {right}/{total} labelled cards named right = {percent(right, total)}"
        f" (target 95%); precision {percent(correct_named, named)} ({named - correct_named} "
        f"of {named} names wrong: at no card of that name, or a card named twice; target 95%)"
    )


def bidly_close_ups(read: Reader, figures: Figures) -> None:
    """Photos of a single card filling the frame, as a player photographs one card to ask
    what it is (not a target of the issue, which asks for cards on a table)."""
    samples = bidly_single_cards(SHARED)
    right = wrong = 0
    for path, card in samples:
        names = [found.card for found in read(read_image(path)) if found.card is not None]
        right += card in names
        wrong += sum(name != card for name in names)
    figures["bidly single cards"] = {
        "photos": len(samples),
        "named right": right,
        "wrong names": wrong,
    }
    print(
        f"bidly single cards filling the photo: {right}/{len(samples)} named right = "
        f"{percent(right, len(samples))}, {wrong} wrong names"
    )


EDJE_MATCH_OVERLAP = 0.3
"""A card found matches an edje label at this overlap: the labels are upright boxes around
cards lying at any angle, and a card turned 45 degrees fills half of its box, so even its
exact outline overlaps it 0.5 at most. (The figure at `MATCH_OVERLAP` is printed beside.)"""


def edje(read: Reader, figures: Figures) -> None:
    right = right_strict = total = 0
    for path, boxes in edje_test(SHARED):
        found = read(read_image(path))
        for rank, box in boxes:
            total += 1
            quad = np.array(
                [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]], np.float32
            )
            overlaps = [
                iou(f.quad, quad) for f in found if f.card is not None and f.card[:-1] == rank
            ]
            right += max(overlaps, default=0.0) > EDJE_MATCH_OVERLAP
            right_strict += max(overlaps, default=0.0) > MATCH_OVERLAP
    figures["edje test"] = {
        "cards": total,
        f"right rank at overlap {EDJE_MATCH_OVERLAP}": right,
        f"right rank at overlap {MATCH_OVERLAP}": right_strict,
    }
    print(
        f"edje test photos: {right}/{total} cards found with the right rank = "
        f"{percent(right, total)} (target 95%; overlapping their upright label box "
        f"{EDJE_MATCH_OVERLAP}, at {MATCH_OVERLAP} {right_strict})"
    )
