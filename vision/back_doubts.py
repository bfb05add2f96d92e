"""A second opinion on a count's backs from the photo's own cards.

Each counted card is named by its nearest registered reference. The cards of one back in one
photo share its light, so they also look like each other: a card nearer another back's
reference than its own, yet like that back's cards in the photo, is doubted (a reference
photographed in other light sits apart from its cards). Naming cards by this opinion instead
was measured and not kept: on tuning spreads it fixed spreads counted against photographed
references but moved whole backs between designs that differ only in a fine pattern, whose own
cards vary as much as the two backs do (models/cards.md, session 34). As a doubt it only warns.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.back_features import BackFeature
from vision.detections import CardDetection

PHOTO_OPINION_WEIGHT = 0.5
"""Weight of the photo's own cards in the second opinion: a card's cost for a back is its
distance to the back's reference and its median distance to the back's cards in the photo,
weighed `1 - PHOTO_OPINION_WEIGHT` and `PHOTO_OPINION_WEIGHT`. Tuning spreads (seeds 1 and 2,
360 spreads of nine kinds): of 17 counted wrong without any other warning, 7 doubted (8 of
the other 10 were close or scattered spreads, short of cards missed under others, which no
opinion on backs finds); of 294 counted exactly without a warning, 2 doubted, both between two
near-alike designs (kde-nicu-white c3 and c7), and 1 since no card is doubted between backs
the count warns look alike (session 35; the 7 warned spreads as before)."""
GREY_CARDS_CHANNEL_SPREAD_MAX = 60
"""How far apart (0-255) a pixel's three channels lie, at the median over a back's cards in a
colour photo, for those cards to be grey: the cards a black-and-white reference stands for
are, where it is a grey or black back's design. Measured on the demo's spread (77 cards of
four backs): the grey "black" back's cards 12 (their quads take in the edges of coloured
cards over them), 21, 28, 38 and 44 under ever warmer casts (blue x0.97 to x0.88, red x1.03
to x1.10, as tungsten light leaves after white balance); the green, blue and red backs' 76,
119 and 128, counted against black-and-white copies of their references. Between the
warmest grey and the least coloured back, a little nearer the back: a pale back's cards
may pass unwarned, a grey back's right count in warm light is not refused."""
OWN_CARDS_FOR_OPINION = 3
"""A back needs this many cards in the photo for them to give an opinion; a back with fewer
is judged by its reference alone."""
OPINION_ROUNDS = 5
"""The second opinion is formed again from the cards it names, at most this often (it settles
in two or three). One that has not settled by then, or comes back to an earlier state (cards
moving where a back drops below `OWN_CARDS_FOR_OPINION` and back again), doubts only the cards
it names otherwise in every state since."""


def doubted(pairwise: np.ndarray, to_references: np.ndarray, counted: np.ndarray) -> dict[int, int]:
    """The cards the photo's own cards name otherwise: card number -> the back (column of
    `to_references`) they name. `pairwise`: the cards' back-feature distances to each other (n
    x n); `to_references`: each card's distance to each registered back's reference (n x
    backs); `counted`: the back (column) each card was counted for."""
    states = [counted]
    for _ in range(OPINION_ROUNDS):
        opinion = _opinion(pairwise, to_references, states[-1])
        earlier = [n for n, state in enumerate(states) if np.array_equal(state, opinion)]
        if earlier:
            states = states[earlier[0] :]
            break
        states.append(opinion)
    else:
        states = states[1:]
    named = states[-1]
    otherwise = np.logical_and.reduce([state != counted for state in states])
    return {int(card): int(named[card]) for card in np.flatnonzero(otherwise)}


def _opinion(pairwise: np.ndarray, to_references: np.ndarray, named: np.ndarray) -> np.ndarray:
    """Each card's back by its reference and by the cards `named` of each back in the photo
    (`PHOTO_OPINION_WEIGHT`)."""
    cards, backs = to_references.shape
    cost = to_references.copy()
    for back in range(backs):
        members = np.flatnonzero(named == back)
        if len(members) < OWN_CARDS_FOR_OPINION:
            continue
        for card in range(cards):
            others = members[members != card]
            to_cards = float(np.median(pairwise[card, others]))
            cost[card, back] = (1 - PHOTO_OPINION_WEIGHT) * to_references[
                card, back
            ] + PHOTO_OPINION_WEIGHT * to_cards
    return cost.argmin(axis=1)


FAR_FROM_BACK_MIN = 0.4
"""A counted card at least this far from its back's reference (`BackFeature.distance`) may be
of another back, one nobody registered (it is still counted for the nearest); or it lies
in harsh light, mostly covered, far from a design file. `other_backs` tells them apart."""
UNLIKE_CARDS_MIN = 2
"""Fewer far cards than this are not told as another back: one card can be far from its own
reference, mostly covered or in a glare."""
OWN_CARDS_MIN = 2
"""Fewer cards near a back's reference than this do not show what its own cards look like, so
its far cards are not judged: a back printed with a picture lay, in a tuning spread under harsh
light, with 27 of its 28 cards far from its reference and was told as another back's against
the one near card. On 130 tuning spreads of seeds other than the benchmark's (rows, close
rows, harsh light, all 35 designs), every back given, spreads warned of a back not given 3 ->
1; each back left out in turn, missing backs told 291 -> 285 of 390."""
OTHER_BACK_APART_MIN = 0.5
"""The far cards of one back (`FAR_FROM_BACK_MIN`, at least `UNLIKE_CARDS_MIN` of them) are of
another back when they lie, in the median, over this far from that back's near cards: cards
of one design are near each other, whatever the light. Tuned on 72 spreads of their own seeds
(18 of each kind), each spread's backs left unregistered in turn; missing backs told, and
spreads with every back registered that warned:
- unlike backs: 40 of 54 told, 1 of 18 warned;
- all 35 designs of decks/backs: 38 of 53, none;
- unlike backs in harsh light, design files as references: 39 of 54, 1;
- the same, references photographed in that light: 43 of 54, 1.
A card's own distance alone (over 0.7, two cards) told 32, 23, 36 and 35 with 0, 0, 3 and 1
warned; 0.4 with 0.4 told 46, 43, 42 and 45 with 1, 0, 1 and 2 warned."""


def other_backs(
    cards: list[CardDetection], features: list[BackFeature], distances: list[float]
) -> set[int]:
    """Which of the counted `cards` look like a back nobody registered
    (`OTHER_BACK_APART_MIN`), from each card's own back feature (`features`) and its distance
    to the reference of the back it was counted for (`distances`). A back with too few of its
    own cards near its reference (`OWN_CARDS_MIN`) cannot be told from one nobody registered,
    so it is not judged."""
    by_back: dict[str | None, list[int]] = {}
    for number, card in enumerate(cards):
        by_back.setdefault(card.back, []).append(number)
    marked: set[int] = set()
    for numbers in by_back.values():
        far = [n for n in numbers if distances[n] >= FAR_FROM_BACK_MIN]
        near = [n for n in numbers if distances[n] < FAR_FROM_BACK_MIN]
        if len(far) < UNLIKE_CARDS_MIN or len(near) < OWN_CARDS_MIN:
            continue
        apart = np.array([features[f].distances_to([features[n] for n in near]) for f in far])
        if np.median(apart) > OTHER_BACK_APART_MIN:
            # Of those, the ones that are themselves unlike the near cards: a far card of the
            # back's own design among them is not marked.
            own_median = np.median(apart, axis=1)
            marked.update(
                f for f, m in zip(far, own_median, strict=True) if m > OTHER_BACK_APART_MIN
            )
    return marked


def channel_spread(image: np.ndarray, cards: list[CardDetection]) -> float:
    """The median over the pixels within `cards` of how far apart a pixel's three channels lie
    (0 for grey): compared with `GREY_CARDS_CHANNEL_SPREAD_MAX`. 0 without cards."""
    if not cards:
        return 0.0
    inside = np.zeros(image.shape[:2], np.uint8)
    for card in cards:
        cv2.fillConvexPoly(inside, np.round(card.quad).astype(np.int32), 1)
    pixels = image[inside.astype(bool)]
    if not len(pixels):
        return 0.0
    return float(np.median(np.ptp(pixels, axis=1)))
