"""Face-down cards as their backs are matched: each rectified, with the part no other card
covers, and named by a `BackMatcher`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.back_doubts import other_backs
from vision.back_features import BackFeature, back_feature
from vision.backs import BackMatcher
from vision.detections import CardDetection
from vision.geometry import rectify, seen_width, uncovered
from vision.stacking import cards_above, stacking_leans

OWN_PART_SHOWN_MIN = 0.8
"""A card with less than this share of itself clear of every other card is matched by
what the cards on top of it leave (`vision/stacking.py`), its colour and pattern measured
there alone: otherwise its neighbours' backs are measured with it. Tuning spreads of seeds
other than the benchmark's, counted exactly (mean cards off) with every card matched whole:
close rows (each card showing 65-80% of its width) of all designs of decks/backs 6 of 12
(3.1), at 0.8 9 (1.4); rows as the benchmark's 14 of 16 of all designs either way (1.4,
1.3), under harsh light 19 and 20 of 20; against references photographed under harsh light,
rows 19 of 20 either way, close rows 8 and 9 of 12 (but 1.1 and 1.8 off). At 0.5 and 0.8
alike: rows of unlike backs 10 of 10, close rows of them 10 of 10, rows showing half of each
card 0 of 10 (8.8 off against 10: they are lost, not misnamed). `identify --backs` matches
so too (it had measured every card whole): backs named right in 40 + 40 + 40 tuning renders of
val designs (seeds 7, 9, 10), of the face-down cards found, 265 + 185 + 317 -> 271 + 192 + 326
of 354 + 258 + 454. What lies on top is told from the photo: leaving out every overlap,
whichever card lies on top, named 258 of seed 7's 354."""

MARKED_CLEAR_MIN = 0.3
"""`identify --backs` marks a card as of a back not given only where at least this share of it
is clear of every other card found: one found mostly over others is, in a spread, likely a
report of parts of two cards (which `nerts count` tells apart), unlike every back for that.
Chosen on 20 tuning spreads of unlike backs (seed 1), every back given: the cards marked were
76-97% covered by others but 3 of 16 (26-56%); with the largest back left out, its cards
marked 27% in the median (7.8% of them over 60%). On 80 tuning spreads (unlike backs and all
35 designs of decks/backs, seeds 1 and 2), every back given, cards marked 38 -> 18 (in 13 ->
9 photos), none chosen on: 22 -> 15 (8 -> 7 photos); the largest back left out, its cards
marked 1,181 -> 1,052 of 1,344, and photos telling of it 64 of 80 either way."""


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
    """Names the back of every face-down card with a `BackMatcher`, as a count does
    (`view_feature`): a card mostly overlapped by what of it the cards lying on top of it
    (`vision/stacking.py`) leave; those of a back nobody registered are marked `back_unlike`
    (`other_backs`), as a count marks them, but for cards found mostly over others
    (`MARKED_CLEAR_MIN`)."""
    above = cards_above(len(cards), stacking_leans([card.quad for card in cards], image))
    seen: dict[int, tuple[BackFeature, float]] = {}
    clear_share: dict[int, float] = {}
    for number, (card, view) in enumerate(zip(cards, back_views(cards, image), strict=True)):
        if view is not None:
            card_view, width, clear = view
            shown = uncovered(card.quad, [cards[other].quad for other in above[number]])
            seen[number] = (view_feature(card_view, clear, shown), width)
            clear_share[number] = float(clear.mean())
    # One exposure per reference for the whole photo (`BackMatcher.settled`).
    matcher = matcher.settled(list(seen.values()))
    matches = {number: matcher.match_feature(*view) for number, view in seen.items()}
    named = {
        number: replace(cards[number], back=match.name, back_score=match.score)
        for number, match in matches.items()
    }
    numbers = list(named)
    unlike = other_backs(
        [named[n] for n in numbers],
        [seen[n][0] for n in numbers],
        [matches[n].distance for n in numbers],
    )
    for k in unlike:
        if clear_share[numbers[k]] >= MARKED_CLEAR_MIN:
            named[numbers[k]] = replace(named[numbers[k]], back_unlike=True)
    return [named.get(number, card) for number, card in enumerate(cards)]


def view_feature(card_view: np.ndarray, clear: np.ndarray, shown: np.ndarray) -> BackFeature:
    """The back feature of a rectified card: of the whole card, its layout left out where
    others overlap it (`clear`), or where it is mostly overlapped (`OWN_PART_SHOWN_MIN`), of
    what of it is `shown` alone (the cards known to lie on top of it left out)."""
    if clear.mean() < OWN_PART_SHOWN_MIN:
        return back_feature(card_view, shown, shown_only=True)
    return back_feature(card_view, clear)
