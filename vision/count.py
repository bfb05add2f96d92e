"""The end-of-round count: face-down cards spread on the table, counted per registered back."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from functools import partial
from typing import NamedTuple

import cv2
import numpy as np

from vision.back_doubts import doubted, other_backs
from vision.back_features import BackFeature, back_feature, pairwise_distances
from vision.back_views import back_views, view_feature
from vision.backs import BackMatcher
from vision.close_ups import PIECE_SHARE_MIN, in_photo, stepped_back
from vision.count_settings import (
    BETWEEN_CARDS_SHARE,
    CARD_AREA_RANGE,
    COLOURS_TAUGHT_SCORE_SHARE,
    COUNT_IOU_MAX,
    CROWDED_SHARE_MAX,
    CROWDED_SHOWN_MIN,
    DECK_CARDS_MAX,
    FACE_SHOWN_READ_MIN,
    ON_TOP_SURE_LEAN,
    RESCUE_SCORE_SHARE,
    SURE_CARD_SCORE_SHARE,
    TABLE_COLOURED_BACK_MAX,
    TABLE_FAR_FROM_BACK_MIN,
    TABLE_NEARER_FACTOR,
    TABLE_SHARE_MAX,
    UNCOUNTED_CARDS_MAX,
)
from vision.detections import CardDetection
from vision.geometry import card_length, portrait_order, rectify, seen_width, uncovered
from vision.identify import CardReader
from vision.markers import on_a_marker, table_markers
from vision.onnx_models import RawCard
from vision.stacking import cards_above, stacking_leans
from vision.table_colours import bare_table_quad, photo_colours, uncounted_parts
from vision.tiles import detect_tiled

log = logging.getLogger(__name__)


class CountResult(NamedTuple):
    counts: dict[str, int]
    """Cards per registered back, every back listed (zero included)."""
    cards: list[CardDetection]
    """The cards counted."""
    crowded: float
    """Share of the cards found that lie mostly under others (`CROWDED_SHOWN_MIN`), dropped as
    boxes across gaps or counted: over `CROWDED_SHARE_MAX`, cards are likely missed."""

    uncounted: float
    """How much of the photo looks like cards yet lies outside every counted card, in card
    areas (`vision.table_colours.uncounted_parts`): over `UNCOUNTED_CARDS_MAX`, cards under
    others were likely missed."""
    uncounted_outlines: tuple[np.ndarray, ...]
    """Those parts' outlines, image pixels (`cv2.findContours`), to show a person."""
    faces_shown: tuple[CardDetection, ...] = ()
    """The counted cards that lie face up, named (`FACE_SHOWN_READ_MIN`)."""

    @property
    def too_close(self) -> bool:
        """Whether the spread is too close to count surely (`CROWDED_SHARE_MAX`)."""
        return self.crowded > CROWDED_SHARE_MAX

    @property
    def beyond_decks(self) -> list[str]:
        """The backs counted more cards than a deck holds (`backs_beyond_decks`)."""
        return backs_beyond_decks(self.counts)

    @property
    def parts_uncounted(self) -> bool:
        """Whether enough of the photo looks like cards outside the counted ones that cards
        were likely missed (`UNCOUNTED_CARDS_MAX`)."""
        return self.uncounted > UNCOUNTED_CARDS_MAX


def backs_beyond_decks(counts: Mapping[str, int]) -> list[str]:
    """The backs of `counts` counted more cards than a deck holds (`DECK_CARDS_MAX`)."""
    return [name for name, count in counts.items() if count > DECK_CARDS_MAX]


def count_backs(
    image: np.ndarray, reader: CardReader, matcher: BackMatcher, *, tiled: bool = True
) -> CountResult:
    """Cards per registered back, the cards counted, how crowded the spread is, and what of
    the photo looks like cards yet was not counted (`CountResult`); `tiled` also looks at
    tiles of the photo (`vision/tiles.py`), for small cards. A photo that looks taken close
    (`_taken_close`) is counted again as if taken from further away (`vision/close_ups.py`),
    and the count less in doubt kept."""
    detector = partial(reader.detector, iou_max=COUNT_IOU_MAX)
    counted = _counted(
        image, detect_tiled(detector, image) if tiled else detector(image), reader, matcher
    )
    if not _taken_close(counted, image):
        return counted
    frame, corner, scale = stepped_back(image)
    # Not in tiles: the photo fills only the frame's middle, its cards now of a size the
    # detector finds whole.
    further = _counted(image, in_photo(detector(frame), corner, scale), reader, matcher)
    # A count of nothing is no surer, whatever it is not warned of.
    surer = bool(further.cards) and _doubts(further) < _doubts(counted)
    log.info(
        "a photo taken close (%d cards counted%s): counted again from further away, %d cards; "
        "%s kept",
        len(counted.cards),
        ", more than a deck holds" if counted.beyond_decks else "",
        len(further.cards),
        "these" if surer else "the first",
    )
    return further if surer else counted


def _taken_close(counted: CountResult, image: np.ndarray) -> bool:
    """Whether a count looks like that of a photo taken close: more cards of a back than a
    deck holds, or a count in doubt (cards likely missed) of cards at least `PIECE_SHARE_MIN`
    of the photo's long side long (a card found in pieces). Two dotted backs 340 px wide in an
    800x600 photo were counted as 4 cards, parts of the photo left uncounted; from further away
    as 2. Spreads of 10-60 cards hold cards 0.08-0.09 of the long side long
    (`vision/close_ups.py`): never counted twice."""
    longest = max((card_length(card.quad) for card in counted.cards), default=0.0)
    large = longest >= PIECE_SHARE_MIN * max(image.shape[:2])
    return bool(counted.beyond_decks) or (large and _doubts(counted) > 0)


def _doubts(counted: CountResult) -> int:
    """How badly a count is in doubt: 2 for more cards than a deck holds, 1 for cards likely
    missed, 0 for none."""
    if counted.beyond_decks:
        return 2
    return int(counted.too_close or counted.parts_uncounted)


def _counted(
    image: np.ndarray, raw: list[RawCard], reader: CardReader, matcher: BackMatcher
) -> CountResult:
    """`count_backs` of the cards and index corners found in `image`."""
    # Every card of a count photo is face down, whatever the detector calls it: some backs
    # are pictures (one in decks/backs shows four aces) that it takes for a face.
    cards = [
        CardDetection(portrait_order(card.quad), False, card.score)
        for card in raw
        if not card.index_corner
    ]
    markers = table_markers(image)
    found = _card_sized([card for card in cards if not on_a_marker(card.quad, markers)])
    leans = stacking_leans([card.quad for card in found], image)
    kept = _not_between(found, _covering(found, leans))
    colours = photo_colours(image, kept, _well_scored(kept, COLOURS_TAUGHT_SCORE_SHARE))
    table = None if colours is None else colours.table()
    kept = _not_table(kept, _better_scored(kept), table, _near_a_back(image, matcher, kept))
    above = cards_above(len(kept), _leans_among(found, kept, leans))
    # What of each card the cards on top of it leave, as `rectify` shows the card.
    shown = [
        uncovered(card.quad, [kept[other].quad for other in on_top])
        for card, on_top in zip(kept, above, strict=True)
    ]
    cards = _matched(kept, shown, image, matcher)
    counts = Counter(card.back for card in cards if card.back is not None)
    uncounted, outlines = uncounted_parts(
        None if colours is None else colours.cards(), cards, markers
    )
    read = reader.name_cards(image, [RawCard(card.quad, True, card.score) for card in cards])
    return CountResult(
        {name: counts.get(name, 0) for name in matcher.features},
        cards,
        _mostly_covered_share(len(found), shown),
        uncounted,
        tuple(outlines),
        tuple(
            named
            for named in read
            if named.card is not None and named.card_score >= FACE_SHOWN_READ_MIN
        ),
    )


def _leans_among(
    found: list[CardDetection], kept: list[CardDetection], leans: dict[tuple[int, int], float]
) -> dict[tuple[int, int], float]:
    """`leans` over the `found` cards, renumbered for those `kept` (in their order)."""
    number_of = {id(card): number for number, card in enumerate(found)}
    kept_at = {number_of[id(card)]: at for at, card in enumerate(kept)}
    # `kept` keeps the order of `found`, so each pair stays (lower, higher).
    return {
        (kept_at[a], kept_at[b]): lean
        for (a, b), lean in leans.items()
        if a in kept_at and b in kept_at
    }


def _mostly_covered_share(found: int, shown: list[np.ndarray]) -> float:
    """Share of the `found` cards either dropped or, kept, showing under `CROWDED_SHOWN_MIN`
    of themselves (`shown`, a mask of each kept card: where no card on top of it lies)."""
    if not found:
        return 0.0
    hidden = sum(float(mask.mean()) < CROWDED_SHOWN_MIN for mask in shown)
    return (found - len(shown) + hidden) / found


def _matched(
    cards: list[CardDetection], shown: list[np.ndarray], image: np.ndarray, matcher: BackMatcher
) -> list[CardDetection]:
    """`with_backs` for a count: every card face down, and those of a back nobody registered
    marked `back_unlike` (`other_backs`); a detection that matches the bare table rather than
    any back is left out (`TABLE_NEARER_FACTOR`). A card mostly overlapped
    (`OWN_PART_SHOWN_MIN`) is matched by what of it is `shown` (the cards on top of it left
    out). A card whose back the photo's own cards name otherwise carries that back in
    `back_also` (`_doubted_backs`)."""
    features, widths = [], []
    for view, on_top_left_out in zip(back_views(cards, image), shown, strict=True):
        if view is None:
            raise AssertionError("a count's cards are all face down")  # made so in `_counted`
        card_view, width, clear = view
        features.append(view_feature(card_view, clear, on_top_left_out))
        widths.append(width)
    matcher = matcher.settled(list(zip(features, widths, strict=True)))
    distances = [matcher.distances(f, width) for f, width in zip(features, widths, strict=True)]
    matches = [matcher.nearest(to_references) for to_references in distances]
    table = _bare_table_feature(image, cards)
    cards_kept = [
        n
        for n, (feature, match) in enumerate(zip(features, matches, strict=True))
        if table is None or not _table_not_card(feature.distance(table), match.distance)
    ]
    counted = [matches[n].name for n in cards_kept]
    # Beyond a deck the count is refused whatever else is in doubt, and comparing every card
    # with every other is what makes a photo of a patterned cloth's thousand "cards" slow.
    also = (
        {}
        if backs_beyond_decks(Counter(counted))
        else _doubted_backs(
            [features[n] for n in cards_kept],
            [distances[n] for n in cards_kept],
            counted,
            matcher.alike(),
        )
    )
    named = [
        replace(cards[n], back=matches[n].name, back_score=matches[n].score, back_also=also.get(k))
        for k, n in enumerate(cards_kept)
    ]
    marked = other_backs(
        named, [features[n] for n in cards_kept], [matches[n].distance for n in cards_kept]
    )
    return [replace(card, back_unlike=n in marked) for n, card in enumerate(named)]


def _doubted_backs(
    features: list[BackFeature],
    distances: list[dict[str, float]],
    counted: list[str],
    alike: list[tuple[str, str]],
) -> dict[int, str]:
    """The cards whose back the photo's own cards name otherwise (`vision.back_doubts`): card
    number -> that back's name; `distances`, each card's to every reference
    (`BackMatcher.distances`); `counted`, the back each was counted for. Not between backs
    `alike` (`BackMatcher.alike`): the count warns of those already, for every card."""
    if len(features) < 2 or len(distances[0]) < 2:
        return {}
    names = list(distances[0])
    to_references = np.array([[card[name] for name in names] for card in distances])
    pairwise = pairwise_distances(features)
    column = np.array([names.index(name) for name in counted])
    doubts = {card: names[back] for card, back in doubted(pairwise, to_references, column).items()}
    alike_pairs = {frozenset(pair) for pair in alike}
    return {
        card: back
        for card, back in doubts.items()
        if frozenset((counted[card], back)) not in alike_pairs
    }


def _bare_table_feature(image: np.ndarray, cards: list[CardDetection]) -> BackFeature | None:
    """The back feature of a card-sized patch of bare table (`bare_table_quad`), as if the
    table were one more back; None where no such patch fits in the photo."""
    quad = bare_table_quad(image.shape, cards)
    return None if quad is None else back_feature(rectify(image, quad))


def _table_not_card(from_table: float, from_back: float) -> bool:
    """Whether a detection this far from the bare table's back feature, and this far from its
    nearest registered back's, is table between cards (`TABLE_NEARER_FACTOR`)."""
    return from_back >= TABLE_FAR_FROM_BACK_MIN and from_table * TABLE_NEARER_FACTOR <= from_back


def unlike_cards(cards: list[CardDetection]) -> list[CardDetection]:
    """The counted cards marked as of a back nobody registered (`other_backs`)."""
    return [card for card in cards if card.back_unlike]


def _card_sized(cards: list[CardDetection]) -> list[CardDetection]:
    areas = np.array([cv2.contourArea(card.quad.astype(np.float32)) for card in cards])
    if not len(areas):
        return cards
    low, high = (share * float(np.median(areas)) for share in CARD_AREA_RANGE)
    return [card for card, area in zip(cards, areas, strict=True) if low <= area <= high]


def _well_scored(cards: list[CardDetection], share: float) -> list[CardDetection]:
    """The `cards` scored at least `share` of their median score."""
    median = float(np.median([card.score for card in cards])) if cards else 0.0
    return [card for card in cards if card.score >= share * median]


def _better_scored(cards: list[CardDetection]) -> list[set[int]]:
    """For each card, the numbers of the cards scored higher: taken as lying over it where the
    photo does not tell (`_covering`)."""
    return [{m for m, other in enumerate(cards) if other.score > card.score} for card in cards]


def _covering(cards: list[CardDetection], leans: dict[tuple[int, int], float]) -> list[set[int]]:
    """For each card, the cards taken as covering it when judging whether it is a box across
    a gap: the better-scored ones; none for a card scored like the photo's cards
    (`RESCUE_SCORE_SHARE`) that the photo shows lying on top of another card (`leans`,
    `ON_TOP_SURE_LEAN`), as a box across a gap has no outline of its own to lie on top with,
    nor for one scored as surely as a card (`SURE_CARD_SCORE_SHARE`)."""
    on_top_of_one: set[int] = set().union(*cards_above(len(cards), leans, ON_TOP_SURE_LEAN))
    judged = {id(card) for card in _well_scored(cards, RESCUE_SCORE_SHARE)}
    sure = {id(card) for card in _well_scored(cards, SURE_CARD_SCORE_SHARE)}
    return [
        set() if id(card) in sure or (id(card) in judged and number in on_top_of_one) else better
        for number, (card, better) in enumerate(zip(cards, _better_scored(cards), strict=True))
    ]


def _not_between(cards: list[CardDetection], covering: list[set[int]]) -> list[CardDetection]:
    """`cards` without the boxes across the gap between two cards (`BETWEEN_CARDS_SHARE`)."""
    between = {
        id(card)
        for card, _, own, visible in _own_parts(cards, covering)
        if 1 - visible.sum() / max(1, int(own.sum())) >= BETWEEN_CARDS_SHARE
    }
    return [card for card in cards if id(card) not in between]


def _not_table(
    cards: list[CardDetection],
    covering: list[set[int]],
    table: np.ndarray | None,
    near_a_back: Callable[[CardDetection], bool] | None = None,
) -> list[CardDetection]:
    """`cards` without those whose own part (what the `covering` cards leave of it) shows
    mostly `table` (`TABLE_SHARE_MAX`; `PhotoColours.table` of the photo, None: not known),
    but for cards scored as surely as a card (`SURE_CARD_SCORE_SHARE`) that are `near_a_back`
    (`TABLE_COLOURED_BACK_MAX`)."""
    if table is None:
        return cards
    sure = {id(card) for card in _well_scored(cards, SURE_CARD_SCORE_SHARE)}
    on_table = set()
    for card, (x, y), _, visible in _own_parts(cards, covering):
        # Clipped to the photo: a card at its edge has a box partly outside.
        top, left = max(y, 0), max(x, 0)
        bottom = min(y + visible.shape[0], table.shape[0])
        right = min(x + visible.shape[1], table.shape[1])
        if bottom <= top or right <= left:
            continue
        seen = table[top:bottom, left:right][visible[top - y : bottom - y, left - x : right - x]]
        if not seen.size or float(seen.mean()) < TABLE_SHARE_MAX:
            continue
        if near_a_back is None or id(card) not in sure or not near_a_back(card):
            on_table.add(id(card))
    return [card for card in cards if id(card) not in on_table]


def _near_a_back(
    image: np.ndarray, matcher: BackMatcher, cards: list[CardDetection]
) -> Callable[[CardDetection], bool]:
    """Whether one of the `cards` looks like a registered back (`TABLE_COLOURED_BACK_MAX`),
    as much of it as no other of the `cards` overlaps (which lies on top is not known yet);
    where that is too little to measure, the whole card, as `back_feature` does."""

    def near(card: CardDetection) -> bool:
        clear = uncovered(card.quad, [other.quad for other in cards if other is not card])
        feature = view_feature(rectify(image, card.quad), clear, clear)
        distances = matcher.distances(feature, seen_width(card.quad))
        return min(distances.values(), default=np.inf) < TABLE_COLOURED_BACK_MAX

    return near


def _own_parts(
    cards: list[CardDetection], covering: list[set[int]]
) -> Iterator[tuple[CardDetection, tuple[int, int], np.ndarray, np.ndarray]]:
    """Each card with its bounding box origin, its mask there, and the part of it none of its
    `covering` cards covers."""
    for card, over in zip(cards, covering, strict=True):
        x, y, width, height = cv2.boundingRect(card.quad.astype(np.float32))
        origin = np.array([x, y], np.float32)
        own = np.zeros((height + 1, width + 1), np.uint8)
        cv2.fillPoly(own, [np.round(card.quad - origin).astype(np.int32)], 1)
        under = np.zeros_like(own)
        for other in over:
            cv2.fillPoly(under, [np.round(cards[other].quad - origin).astype(np.int32)], 1)
        yield card, (x, y), own, (own & (1 - under)).astype(bool)
