"""The count's own checks of what it counted: a deck's limit, which of two counts is in more
doubt and kept, when a photo looks taken close, markers and cards left face up."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

import vision.count as count_module
from tests.vision.test_count import _card
from vision.backs import BackMatcher
from vision.close_ups import PIECE_SHARE_MIN
from vision.count import (
    CountResult,
    _doubts,
    _taken_close,
    backs_beyond_decks,
    count_backs,
)
from vision.count_settings import (
    COUNT_IOU_MAX,
    CROWDED_SHARE_MAX,
    DECK_CARDS_MAX,
    FACE_SHOWN_READ_MIN,
    UNCOUNTED_CARDS_MAX,
)
from vision.detections import CardDetection
from vision.markers import TABLE_MARKER_DICTIONARY
from vision.onnx_models import RawCard


def test_a_back_is_beyond_a_deck_only_past_a_deck_and_two_jokers() -> None:
    """A full deck with both jokers is a count a round can leave; one card more is not."""
    counts = {"full": DECK_CARDS_MAX, "over": DECK_CARDS_MAX + 1, "none": 0}
    assert DECK_CARDS_MAX == 54
    assert backs_beyond_decks(counts) == ["over"]


def _counted_as(
    counts: dict[str, int],
    *,
    crowded: float = 0.0,
    uncounted: float = 0.0,
    scale: float = 1.0,
) -> CountResult:
    """A count of `counts` whose cards are `_card`s of `scale` (88 px long at 1)."""
    cards = [_card(100.0 * k * scale, scale) for k in range(sum(counts.values()))]
    return CountResult(counts, cards, crowded, uncounted, ())


def test_a_count_beyond_a_deck_is_in_more_doubt_than_one_likely_missing_cards() -> None:
    """`count_backs` keeps the re-count from further away only where it is in less doubt:
    a count beyond a deck is surely wrong, one with cards likely missed may be right."""
    assert _doubts(_counted_as({"blue": DECK_CARDS_MAX + 1})) == 2
    assert _doubts(_counted_as({"blue": DECK_CARDS_MAX + 1}, crowded=0.9)) == 2
    assert _doubts(_counted_as({"blue": 3}, crowded=CROWDED_SHARE_MAX + 0.01)) == 1
    assert _doubts(_counted_as({"blue": 3}, uncounted=UNCOUNTED_CARDS_MAX + 0.01)) == 1
    assert _doubts(_counted_as({"blue": 3}, crowded=CROWDED_SHARE_MAX)) == 0
    assert _doubts(_counted_as({"blue": DECK_CARDS_MAX})) == 0


def test_only_a_count_of_large_cards_in_doubt_or_one_beyond_a_deck_looks_taken_close() -> None:
    """Small cards of a crowded spread are not counted again: from further away they would be
    too small to find. Cards `PIECE_SHARE_MIN` of the photo's long side long may be pieces."""
    image = np.zeros((600, 800, 3), np.uint8)  # long side 800: large from 160 px long
    large = 800 * PIECE_SHARE_MIN / 88
    crowded = CROWDED_SHARE_MAX + 0.1
    assert not _taken_close(_counted_as({"blue": 3}, crowded=crowded), image)
    assert not _taken_close(_counted_as({"blue": 3}, uncounted=1.0), image)
    assert _taken_close(_counted_as({"blue": 3}, crowded=crowded, scale=large), image)
    assert not _taken_close(_counted_as({"blue": 3}, scale=large), image)
    assert _taken_close(_counted_as({"blue": DECK_CARDS_MAX + 1}), image)


def _kept_of_two_counts(
    monkeypatch: pytest.MonkeyPatch, first: CountResult, further: CountResult
) -> CountResult:
    """What `count_backs` keeps of a photo counted as `first`, then from further away as
    `further`."""
    counts = iter([first, further])
    monkeypatch.setattr(count_module, "_counted", lambda *args: next(counts))
    reader = SimpleNamespace(detector=lambda view, iou_max: [])
    matcher = BackMatcher({"blue": np.full((88, 63, 3), (200, 60, 30), np.uint8)})
    image = np.zeros((600, 800, 3), np.uint8)
    return count_backs(image, reader, matcher, tiled=False)  # type: ignore[arg-type]


def test_a_recount_that_only_misses_cards_is_kept_over_one_beyond_a_deck(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    beyond = _counted_as({"blue": DECK_CARDS_MAX + 1})
    missing = _counted_as({"blue": 2}, crowded=0.5)
    assert _kept_of_two_counts(monkeypatch, beyond, missing) is missing


def test_a_recount_in_as_much_doubt_as_the_first_count_is_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a surer re-count replaces the first: large cards, both counts missing cards."""
    large = 800 * PIECE_SHARE_MIN / 88
    first = _counted_as({"blue": 3}, crowded=0.5, scale=large)
    further = _counted_as({"blue": 2}, uncounted=1.0)
    assert _kept_of_two_counts(monkeypatch, first, further) is first
    surer = _counted_as({"blue": 2})
    assert _kept_of_two_counts(monkeypatch, first, surer) is surer


SPREAD_COLOURS = {"blue": (200, 60, 30), "pink": (180, 60, 230)}


def _spread_of_five() -> np.ndarray:
    """Five plain backs in a row on a grey table, blue, pink, blue, pink, blue."""
    image = np.full((360, 640, 3), 60, np.uint8)
    for i, name in enumerate(["blue", "pink", "blue", "pink", "blue"]):
        box = cv2.boxPoints(((80 + 110 * i, 200), (63, 88), 5.0)).astype(np.int32)
        cv2.fillPoly(image, [box], SPREAD_COLOURS[name])
    return image


def _found_by_colour(view: np.ndarray, iou_max: float) -> list[RawCard]:
    """A detector taking every bright patch for a card."""
    mask = (view.max(axis=2) > 100).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return [RawCard(cv2.boxPoints(cv2.minAreaRect(c)), False, 0.9) for c in contours]


def _spread_references() -> dict[str, np.ndarray]:
    return {name: np.full((88, 63, 3), bgr, np.uint8) for name, bgr in SPREAD_COLOURS.items()}


def test_a_table_marker_taken_for_a_card_is_not_counted() -> None:
    """The referee's markers are card-sized squares in a white rim: the detector finds them."""
    image = _spread_of_five()
    side = 60  # 76 px with its rim: a card's area
    dictionary = cv2.aruco.getPredefinedDictionary(TABLE_MARKER_DICTIONARY)
    image[22:98, 282:358] = 250
    image[30:90, 290:350] = cv2.aruco.generateImageMarker(dictionary, 2, side)[..., None]
    assert len(_found_by_colour(image, COUNT_IOU_MAX)) == 6

    def name_cards(view: np.ndarray, cards: list[RawCard]) -> list[CardDetection]:
        return [CardDetection(card.quad, True, card.score) for card in cards]

    reader = SimpleNamespace(detector=_found_by_colour, name_cards=name_cards)
    result = count_backs(image, reader, BackMatcher(_spread_references()), tiled=False)  # type: ignore[arg-type]
    assert result.counts == {"blue": 3, "pink": 2} and len(result.cards) == 5
    assert result.crowded == 0.0 and result.uncounted == 0.0


def test_only_cards_read_surely_are_told_as_lying_face_up() -> None:
    """The count takes every card for a back; a card whose face is read at least
    `FACE_SHOWN_READ_MIN` is said to lie face up, a weaker reading is no warning. Every back
    is listed, one with no card too."""

    # The spread's first card read surely, its second just less so, the others not at all.
    readings = {0: ("7H", FACE_SHOWN_READ_MIN), 1: ("8S", FACE_SHOWN_READ_MIN - 0.01)}

    def name_cards(view: np.ndarray, cards: list[RawCard]) -> list[CardDetection]:
        named = []
        for card in cards:
            position = round((float(card.quad[:, 0].mean()) - 80) / 110)
            name, score = readings.get(position, (None, 0.0))
            named.append(CardDetection(card.quad, True, card.score, name, score))
        return named

    reader = SimpleNamespace(detector=_found_by_colour, name_cards=name_cards)
    references = {**_spread_references(), "green": np.full((88, 63, 3), (40, 160, 40), np.uint8)}
    result = count_backs(_spread_of_five(), reader, BackMatcher(references), tiled=False)  # type: ignore[arg-type]
    assert result.counts == {"blue": 3, "pink": 2, "green": 0}
    assert [(card.card, card.card_score) for card in result.faces_shown] == [
        ("7H", FACE_SHOWN_READ_MIN)
    ]
