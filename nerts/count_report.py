"""What `nerts count` tells of a count: its warnings, its tables, and its picture."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

from nerts.columns import left as padded
from nerts.columns import shown_width
from nerts.pictures_out import write_annotated
from referee.cards import card_order
from referee.scoresheet import same_name
from vision.annotate import annotate, back_colours, for_drawing, mark_uncounted, with_legend
from vision.count import CountResult, unlike_cards
from vision.count_settings import DECK_CARDS_MAX
from vision.detections import CardDetection

log = logging.getLogger(__name__)


def warn_of_count(
    counted: CountResult, references: dict[str, Path], *, annotating: bool
) -> list[CardDetection]:
    """Warns of what makes the count likely wrong, the likeliest mistake first; returns the
    cards that look like a back not given (a reason not to score the round)."""
    counts, cards = counted.counts, counted.cards
    if counted.beyond_decks:  # first: it explains every other warning
        log.warning(
            "%s, more than a deck holds (%d with jokers): the photo is likely taken so close "
            "that the backs' pattern was found as cards, or on a patterned cloth whose checks "
            "were; photograph the spread from further away, on a plain surface",
            ", ".join(f"{counts[name]} cards counted for {name}" for name in counted.beyond_decks),
            DECK_CARDS_MAX,
        )
    # Then: cards left face up are the likeliest mistake, and explain the others.
    if counted.faces_shown:
        names = sorted((str(card.card) for card in counted.faces_shown), key=card_order)
        log.warning(
            "%s face up (%s): every card is counted for a back, so turn %s face down and "
            "count again",
            "1 counted card lies" if len(names) == 1 else f"{len(names)} counted cards lie",
            " ".join(names),
            "it" if len(names) == 1 else "them",
        )
    if counted.too_close:
        log.warning(
            "%.0f%% of the cards found lie mostly under others, so cards are likely missed: "
            "spread them so that each shows at least two thirds of its width, and count again",
            100 * counted.crowded,
        )
    elif counted.parts_uncounted:
        log.warning(
            "parts of the photo that look like cards lie outside every card counted (%.1f "
            "cards' worth%s), so cards under others are likely missed (or, photographed at a "
            "slant, counted twice): spread them in rows, each showing at least two thirds of its "
            "width, clear other things off the table, and count again from straight above",
            counted.uncounted,
            ", tinted red with --annotate" if annotating else "; --annotate shows them",
        )
    unlike = unlike_cards(cards)
    # Cards mostly covered are measured on slivers, which look unlike their back's other cards:
    # in a spread too close that warning was false in 9 of 20 benchmark spreads, so the count
    # asks for a wider spread first.
    if unlike and not counted.too_close:
        log.warning(
            "%s like a back not given (marked '?' with --annotate): if a player's back is "
            "missing from --backs, their cards were counted for another",
            "1 counted card looks" if len(unlike) == 1 else f"{len(unlike)} counted cards look",
        )
    uncounted_backs = [name for name, count in counts.items() if count == 0]
    if cards and uncounted_backs:
        # A wrong reference (another deck's back, a card's face, a black and white copy)
        # shows as no card counted for it, the others taking its cards.
        log.warning(
            "no card counted for %s: if %s cards to the foundations this round, check %s "
            "reference (%s): a colour photo or design file of that back",
            " or ".join(repr(name) for name in uncounted_backs),
            "they played" if len(uncounted_backs) > 1 else f"{uncounted_backs[0]!r} played",
            "each" if len(uncounted_backs) > 1 else "the",
            ", ".join(str(references[name]) for name in uncounted_backs),
        )
    doubted = [card for card in cards if card.back_also is not None]
    if doubted and not counted.too_close:
        pairs = Counter((card.back, card.back_also) for card in doubted)
        log.warning(
            "%s (marked '?' with --annotate): check them; a back's reference photographed in "
            "the spread's own light is told more surely",
            "; ".join(
                f"{number} card{'' if number == 1 else 's'} counted for {back} "
                f"look{'s' if number == 1 else ''} more like "
                f"{other}'s cards in this photo"
                for (back, other), number in sorted(pairs.items(), key=str)
            ),
        )
    return unlike


def draw_count(
    path: Path, image: np.ndarray, counted: CountResult, backs: dict[str, np.ndarray]
) -> None:
    """The photo with each counted card outlined in its back's colour, a legend of the
    backs, and what looks like cards left uncounted tinted red."""
    legend = [(name, backs[name], count) for name, count in counted.counts.items()]
    colours = back_colours(list(backs))
    missed = counted.uncounted_outlines if counted.parts_uncounted else ()
    drawn_cards = counted.cards
    if counted.too_close:  # it warns of that alone, so no card is marked '?' either
        drawn_cards = [replace(card, back_also=None, back_unlike=False) for card in counted.cards]
    drawn = annotate(*for_drawing(mark_uncounted(image, missed), drawn_cards), colours)
    write_annotated(path, with_legend(drawn, legend, colours))


TOTAL_ROW = "total"
"""The count table's last row's name: the name column is at least as wide."""
TOTAL_ROW_BESIDE_A_BACK = "(all backs)"
"""The last row's name where a back is named like `TOTAL_ROW`: two rows "total" read alike."""


def _total_row(names: list[str]) -> str:
    clash = any(same_name(name, TOTAL_ROW) for name in names)
    return TOTAL_ROW_BESIDE_A_BACK if clash else TOTAL_ROW


def count_table(counts: dict[str, int]) -> str:
    total_row = _total_row(list(counts))
    width = max(len(total_row), *map(shown_width, counts))
    rows = [f"{padded(name, width)}  {count:>3}" for name, count in counts.items()]
    return "\n".join([*rows, f"{total_row:<{width}}  {sum(counts.values()):>3}"]) + "\n"


def points_table(
    counts: dict[str, int], left: dict[str, int], bonus: dict[str, int], points: dict[str, int]
) -> str:
    """Each back's cards, cards left in its Nerts pile, bonus (if any is given) and points."""
    total_row = _total_row(list(counts))
    width = max(len(total_row), *map(shown_width, counts))
    bonus_title, total = ("  bonus" if bonus else ""), sum(counts.values())
    rows = [f"{'back':<{width}}  cards  left{bonus_title}  points"]
    for name, count in counts.items():
        extra = f"  {bonus.get(name, 0):>5}" if bonus else ""
        rows.append(
            f"{padded(name, width)}  {count:>5}  {left.get(name, 0):>4}{extra}  {points[name]:>+6d}"
        )
    return "\n".join([*rows, f"{total_row:<{width}}  {total:>5}"]) + "\n"
