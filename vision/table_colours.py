"""Which pixels of a count photo show the table, learnt from the photo itself; and what of the
photo looks like cards yet lies outside every counted card (cards likely missed)."""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from vision.detections import CardDetection
from vision.geometry import CARD_HEIGHT_MM, CARD_WIDTH_MM, seen_width

TABLE_COLOUR_BINS = (8, 16, 16)
"""Lab bins of the colour model that tells table from card in each photo: coarse, so that
the table's pixels fill it however few, and wood grain or felt shading stays one colour."""
TABLE_MARGIN_SHARE = 0.05
"""Share of the median card's width kept clear around every card when sampling the table,
so that card edges and shadows do not teach the model that cards are table."""
CARDS_AS_TABLE_MAX = 0.25
"""If the colour model calls more than this share of the cards' own pixels table, it cannot
tell them apart (a plain back the colour of the felt), and no detection is judged table. On
60 tuning spreads (unlike backs, and all 35 designs of decks/backs) it called at most 18%."""
MIN_TABLE_SHARE = 0.05
"""Share of the photo that must lie clear of every card to learn the table's colours; with
less, no detection is judged table."""

UNCOUNTED_EDGE_SHARE = 0.05
"""Share of the median card's width kept around every counted card (and table marker) before
the card-like pixels outside them are measured, as a found card's corners lie within about
this of its own; parts of the rest narrower than twice this (slivers along edges) are left
out too."""
CARD_COLOUR_FACTOR = 2.0
"""A colour is the cards' own where it takes this many times the share of the cards' pixels
that it takes of the table's: a colour seen on neither (the shadow in a narrow gap between
cards, a darkened corner of the table) is not taken for a card's. At 1 (commoner on the cards
at all), a tuning spread under harsh light, counted exactly, showed 0.30 of a card so in the
shadows between its cards; at 2 and 4, 0.04, and the 183 other tuning spreads were warned alike
(`UNCOUNTED_CARDS_MAX`)."""
UNCOUNTED_REACH_EDGES = 2
"""A part counts only if it comes within this many times `UNCOUNTED_EDGE_SHARE`'s edge of a
counted card: a missed card's visible part begins where the cards on top of it end. On a
tuning spread under harsh light, the table's darkened far corner (in the colours of a ringed
back) was otherwise taken for 0.37 of a card."""


BARE_TABLE_MARGIN_SHARE = 0.1
"""Share of its own width and length (a median card's) by which a card-sized patch of bare
table (`bare_table_quad`) stays clear of every card: their edges and shadows are not table."""
BARE_TABLE_SEARCH_WIDTH_PX = 32
"""The photo is searched for bare table at a scale where a card is about this wide: a
24-megapixel photo needs no more to find where a card-sized patch fits."""


class PhotoColours(NamedTuple):
    """A count photo's pixels by colour (coarse Lab bins, `TABLE_COLOUR_BINS`), and the share
    of the pixels clear of the cards, and of those on them, that each colour takes."""

    codes: np.ndarray
    on_table: np.ndarray
    on_cards: np.ndarray

    def table(self) -> np.ndarray:
        """Where the photo shows table colours: commoner clear of the cards than on them."""
        is_table: np.ndarray = (self.on_table > self.on_cards)[self.codes]
        return is_table

    def cards(self) -> np.ndarray:
        """Where it shows the cards' own colours (`CARD_COLOUR_FACTOR`)."""
        is_card: np.ndarray = (self.on_cards > CARD_COLOUR_FACTOR * self.on_table)[self.codes]
        return is_card


def photo_colours(
    image: np.ndarray, cards: list[CardDetection], teaching: list[CardDetection] | None = None
) -> PhotoColours | None:
    """The colours of `image` clear of the `cards` and on those `teaching` the cards' colours
    (default: all of them), learnt from this photo; None with too little table, or where the
    cards show table colours (`CARDS_AS_TABLE_MAX`)."""
    teaching = cards if teaching is None else teaching
    if not teaching:
        return None
    on_cards = np.zeros(image.shape[:2], np.uint8)
    for card in cards:
        cv2.fillPoly(on_cards, [np.round(card.quad).astype(np.int32)], 1)
    clear_of_cards = 1 - on_cards
    if teaching is not cards:
        on_cards[:] = 0
        for card in teaching:
            cv2.fillPoly(on_cards, [np.round(card.quad).astype(np.int32)], 1)
    widths = [seen_width(card.quad) for card in cards]
    margin = max(1, round(TABLE_MARGIN_SHARE * float(np.median(widths))))
    clear = cv2.erode(clear_of_cards, np.ones((2 * margin + 1, 2 * margin + 1), np.uint8))
    if clear.mean() < MIN_TABLE_SHARE:
        return None
    # Colour codes in 16 bits: a 24-megapixel photo must not need gigabytes.
    codes = np.zeros(image.shape[:2], np.uint16)
    lab = cv2.split(cv2.cvtColor(image, cv2.COLOR_BGR2Lab))
    for channel, bins in zip(lab, TABLE_COLOUR_BINS, strict=True):
        to_bin = (np.arange(256) * bins // 256).astype(np.uint8)
        codes = (codes * np.uint16(bins) + cv2.LUT(channel, to_bin)).astype(np.uint16, copy=False)
    colours = int(np.prod(TABLE_COLOUR_BINS))
    # One count added to every colour, so that a colour seen a few times is not decided by chance.
    table = np.bincount(codes[clear > 0], minlength=colours) + 1
    on_them = np.bincount(codes[on_cards > 0], minlength=colours) + 1
    photo = PhotoColours(codes, table / table.sum(), on_them / on_them.sum())
    if float((photo.on_table > photo.on_cards)[codes[on_cards > 0]].mean()) > CARDS_AS_TABLE_MAX:
        return None
    return photo


def uncounted_parts(
    card_like: np.ndarray | None, cards: list[CardDetection], known: list[np.ndarray]
) -> tuple[float, list[np.ndarray]]:
    """The parts of the photo that look like cards (`card_like`, `PhotoColours.cards`) yet lie
    outside every counted card and every `known` quad (the table's markers): their area in
    median card areas, and their outlines (image pixels). Nothing when the colours are not
    known."""
    if card_like is None or not cards:
        return 0.0, []
    counted = np.zeros(card_like.shape, np.uint8)
    for quad in [*(card.quad for card in cards), *known]:
        cv2.fillPoly(counted, [np.round(quad).astype(np.int32)], 1)
    widths = [seen_width(card.quad) for card in cards]
    edge = max(1, round(UNCOUNTED_EDGE_SHARE * float(np.median(widths))))
    square = np.ones((2 * edge + 1, 2 * edge + 1), np.uint8)
    outside = (card_like & (cv2.dilate(counted, square) == 0)).astype(np.uint8)
    outside = cv2.morphologyEx(outside, cv2.MORPH_OPEN, square)
    # Only parts reaching the counted cards: a missed card lies partly under them, while a far
    # corner of the table (darkened, in the colours of some back) or a thing put aside does not.
    reach = cv2.dilate(counted, np.ones((UNCOUNTED_REACH_EDGES * (2 * edge) + 1,) * 2, np.uint8))
    _, parts = cv2.connectedComponents(outside)
    reaching = np.unique(parts[(reach > 0) & (outside > 0)])
    outside = np.isin(parts, reaching[reaching > 0]).astype(np.uint8)
    card_area = float(np.median([cv2.contourArea(card.quad.astype(np.float32)) for card in cards]))
    outlines, _ = cv2.findContours(outside, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return float(outside.sum()) / max(card_area, 1.0), list(outlines)


def bare_table_quad(shape: tuple[int, ...], cards: list[CardDetection]) -> np.ndarray | None:
    """An upright card-sized patch of the photo (of this `shape`) clear of every card
    (`BARE_TABLE_MARGIN_SHARE`), the nearest to the middle of the cards, where the light is
    most like theirs: its corners (image pixels, a card's order), None where none fits."""
    if not cards:
        return None
    width = float(np.median([seen_width(card.quad) for card in cards]))
    scale = min(1.0, BARE_TABLE_SEARCH_WIDTH_PX / max(width, 1.0))
    small = (max(1, round(shape[1] * scale)), max(1, round(shape[0] * scale)))
    on_cards = np.zeros(small[::-1], np.uint8)
    for card in cards:
        cv2.fillPoly(on_cards, [np.round(card.quad * scale).astype(np.int32)], 1)
    patch = np.array([width, width * CARD_HEIGHT_MM / CARD_WIDTH_MM]) * scale
    reach = np.ceil(patch * (1 + 2 * BARE_TABLE_MARGIN_SHARE)).astype(int) | 1
    # Centres where the whole patch and its margin lie on bare table inside the photo.
    fits = cv2.erode(1 - on_cards, np.ones((reach[1], reach[0]), np.uint8), borderValue=0)
    ys, xs = np.nonzero(fits)
    if not len(xs):
        return None
    middle = np.mean([card.quad.mean(axis=0) for card in cards], axis=0) * scale
    nearest = int(np.argmin((xs - middle[0]) ** 2 + (ys - middle[1]) ** 2))
    centre = np.array([xs[nearest], ys[nearest]], np.float64)
    half = patch / 2
    corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    return np.array([(centre + half * corner) / scale for corner in corners], np.float32)
