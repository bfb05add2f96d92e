"""Face-down cards as their backs are matched: each rectified, with the part no other card
covers, and named by a `BackMatcher`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.backs import BackMatcher
from vision.detections import CardDetection
from vision.geometry import rectify, seen_width, uncovered

BackView = tuple[np.ndarray, float, np.ndarray]
"""A face-down card as its back is matched: the card rectified, its width in the photo, and the
part of it no other card covers (`uncovered`)."""


def back_views(cards: list[CardDetection], image: np.ndarray) -> list[BackView | None]:
    """Each card's `BackView`; None for a face-up card."""
    views: list[BackView | None] = []
    corners = np.array([card.quad for card in cards], np.float32).reshape(-1, 4, 2)
    low, high = corners.min(axis=1), corners.max(axis=1)
    for number, card in enumerate(cards):
        if card.face_up:
            views.append(None)
            continue
        boxes_meet = np.all((low <= high[number]) & (high >= low[number]), axis=1)
        boxes_meet[number] = False
        others = [cards[k].quad for k in np.flatnonzero(boxes_meet)]
        views.append(
            (rectify(image, card.quad), seen_width(card.quad), uncovered(card.quad, others))
        )
    return views


def with_backs(
    cards: list[CardDetection], image: np.ndarray, matcher: BackMatcher
) -> list[CardDetection]:
    """Names the back of every face-down card with a `BackMatcher`, from the part of it no
    other card covers."""
    out = []
    for card, view in zip(cards, back_views(cards, image), strict=True):
        if view is None:
            out.append(card)
            continue
        match = matcher.match(*view)
        out.append(replace(card, back=match.name, back_score=match.score))
    return out
