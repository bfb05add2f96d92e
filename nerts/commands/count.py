"""`nerts count`: the end-of-round count of face-down cards by deck back."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path
from shlex import quote
from typing import NamedTuple

import numpy as np

from nerts.backs import back_references, photo_not_given, read_backs, registered_backs
from nerts.commands.identify import load_reader
from nerts.count_report import count_table, draw_count, points_table, warn_of_count
from nerts.errors import FAILURE_STATUS, UserError, file_argument, refuse_overwriting
from nerts.photos import (
    looks_like_a_photo,
    no_card_said,
    read_photo,
    without_colour,
)
from nerts.pictures_out import picture_path, refuse_replacing_pictures
from nerts.sheets import (
    append_entries,
    file_fingerprint,
    format_sheet,
    game_over_warning,
    load_sheet,
    refuse_scoring_twice,
    sheet_to_change,
    source_name,
)
from referee.errors import RefereeInputError
from referee.numbers import plain_number
from referee.options import CALLER_BONUS_MAX, DEFAULT_NERTS_PILE_SIZE, NERTS_PILE_SIZE_MAX
from referee.scoresheet import Scoresheet, same_name
from referee.scoring import round_score
from vision.back_doubts import GREY_CARDS_CHANNEL_SPREAD_MAX, channel_spread
from vision.count import CountResult, count_backs

log = logging.getLogger(__name__)

DESCRIPTION = """\
At the end of a round, turn the foundation cards face down and spread them out in rows, each
card showing at least two thirds of its width beside the next (rows may overlap a little). A
card mostly under others may be missed: the command warns when many of the cards it found lie
mostly under others, or when parts of the photo that look like cards lie outside every card it
counted (tinted red with --annotate). Give a photo and a reference image of each player's back:
a photo of one card's back lying on the table (the card is found and cut out), the same cropped
to the card's edges, or the design file; photograph it in soft, even light, neither too bright
nor in a lamp's glare (a reference washed out to white is warned of). The command counts the
cards of each back. Backs are told apart by colour, pattern and where they are darker, so a
plain back and one of its colour with a faint picture are counted apart. It searches the whole
photo and four overlapping tiles of it, so a photo of the whole table works; take it from above,
cards at least about 60 px long, on a plain surface (a checked cloth's squares can be taken for
cards). Keep other cards out of the photo: every card found is taken for a back (some backs are
pictures) and counted for the nearest reference (the referee's table markers are known and not
counted); a card left face up is counted too, and named in a warning.
So give every player's back: a card whose back is not given is counted for another. It warns
when two or more cards counted for one back look unlike its other cards, as another back's
would (it caught three in four missing backs in tests), and when two references look the same
to it (one design printed twice, or two differing in shade alone): their cards cannot be told
apart. A back no card was counted for is named: its reference may be wrong.

With --left, each player's round points are printed too: +1 for each of their cards counted,
-2 for each card left in their Nerts pile, plus any --bonus. With --sheet, that round is added
to a score sheet kept with 'nerts scores' (name each back as its player is named there); take
a round back with 'nerts scores GAME undo', or correct it with 'fix'.

Exit status: 0 when the photo was counted (and drawn); 1 when the --annotate picture could not
be written (a full disk); 2 for a mistake in what was given (the photo or a reference missing
or not a picture, an option, a sheet of other players); 3, with --strict or --sheet, for a
count likely wrong (see --sheet), whatever else failed.
"""
EPILOG = """\
examples:
  nerts count centre.jpg --backs anna=anna-back.jpg ben=ben-back.png
  nerts count centre.jpg --backs Anna=anna.jpg Ben=ben.jpg --left Ben=4 --sheet club.jsonl
  nerts count centre.jpg --backs Anna=anna.jpg Ben=ben.jpg --left Ben=4 --bonus Anna=10
"""
BONUS_MAX = CALLER_BONUS_MAX
"""The most points --bonus adds to one player's round: a caller's bonus, as `nerts referee`
takes it."""
NERTS_PILE_MAX = NERTS_PILE_SIZE_MAX
"""The most cards --left takes for one player's Nerts pile: a whole deck (the usual pile is
13; a house rule may change it, `referee.options.RuleOptions.nerts_pile_size`)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "count",
        help="count face-down cards per deck back in a photo",
        usage="nerts count IMAGE --backs NAME=REF [NAME=REF ...] [options]",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    # Optional to argparse only so that a photo swallowed by --backs is named
    # (`nerts.backs.photo_not_given`).
    parser.add_argument(
        "image",
        type=file_argument,
        nargs="?",
        metavar="IMAGE",
        help="the photo of the face-down cards, given before --backs",
    )
    parser.add_argument(
        "--backs",
        nargs="+",
        action="extend",  # given twice, both count
        metavar="NAME=REF",
        help="each player's back: a name (as on the score sheet) and an image of that back: a "
        "photo of one of its cards on the table, cropped or not, or the design file; in colour",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"NAME": count, ...}: the counts only (--sheet still records the points)',
    )
    parser.add_argument(
        "--annotate",
        type=picture_path,
        metavar="OUT.png",
        help="draw each counted card, and beside the photo each back as it was matched (a "
        "photo of a card cut to the card) with its count",
    )
    parser.add_argument(
        "--left",
        nargs="+",
        action="extend",  # given twice, both count
        default=[],
        metavar="NAME=N",
        help="cards left in a player's Nerts pile, for the round's points (players not named "
        "have none left)",
    )
    parser.add_argument(
        "--bonus",
        nargs="+",
        action="extend",  # given twice, both count
        default=[],
        metavar="NAME=N",
        help="points a house rule adds to a player's round, e.g. 10 for calling Nerts",
    )
    parser.add_argument(
        "--sheet",
        type=file_argument,
        metavar="GAME.jsonl",
        help="add the round's points to this score sheet ('nerts scores GAME new' starts one); "
        "not where the count warns to count again (more cards than a deck holds, a card "
        "face up, a spread too close, cards left uncounted, backs alike, cards of a back not "
        "given, a back reference showing a card's face, a reference warned of that counted no "
        "card, a black-and-white reference whose cards are in colour, a black-and-white "
        "photo, no card found): the counts are printed and the exit "
        f"status is {DOUBTFUL_COUNT_STATUS}",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help=f"exit with status {DOUBTFUL_COUNT_STATUS} (the counts printed all the same) where "
        "the count warns that it is likely wrong, as --sheet then adds nothing, or finds no "
        "card: for a script, which sees no warnings in --json, to ask for another photo",
    )
    parser.set_defaults(handler=run)


DOUBTFUL_COUNT_STATUS = 3
"""The exit status for a count likely wrong, with `--strict` or `--sheet`: not
`FAILURE_STATUS` nor `USER_ERROR_STATUS`, so that a script tells it from them. It wins over an
`--annotate` that could not be written (said as an error all the same): a script is to ask for
another photo."""


class CountOutcome(NamedTuple):
    """What a count came to: the command's exit status, and the cards counted per back."""

    status: int
    counts: dict[str, int]


def run(args: argparse.Namespace) -> int:
    return count_round(args).status


def count_round(args: argparse.Namespace) -> CountOutcome:
    """`nerts count` with `args`: prints and draws what it counted (`nerts demo` counts its
    round's spread so)."""
    if args.image is None:
        raise photo_not_given(
            {"--backs": args.backs, "--left": args.left, "--bonus": args.bonus},
            "nerts count IMAGE --backs NAME=REF ...",
        )
    if not args.backs:
        raise UserError(
            "name each player's back: --backs NAME=REF ..., REF a photo of one card's back or "
            f"the design file (e.g. nerts count {quote(str(args.image))} --backs anna=anna.jpg "
            "ben=ben.jpg)"
        )
    references = back_references(args.backs, photo=args.image)
    if args.annotate:
        refuse_overwriting([args.annotate], [args.image, *references.values()])
        refuse_replacing_pictures([args.annotate])
    left, bonus = _house_points(args, list(references))
    sheet = _sheet_given(args, list(references), bool(left or bonus))
    image = read_photo(args.image)
    greyscale = without_colour(image)
    if greyscale:
        log.warning(
            "%s is black and white: backs are told apart by colour too, so cards may be counted "
            "for the wrong back or missed; photograph the spread in colour",
            args.image,
        )
    fingerprint = None
    if sheet is not None:  # before the long work, as the photo's own mistakes are
        fingerprint = file_fingerprint(args.image)
        refuse_scoring_twice(sheet, args.sheet, args.image, fingerprint)
    pictures = read_backs(references)
    reader = load_reader()
    registered = registered_backs(references, pictures, reader)
    backs, matcher = registered.backs, registered.matcher
    alike = matcher.alike()  # warned of there
    started = time.perf_counter()
    counted = count_backs(image, reader, matcher)
    counts, cards = counted.counts, counted.cards
    log.info(
        "%s: %d x %d px, %d face-down cards counted in %.1f s",
        args.image,
        image.shape[1],
        image.shape[0],
        len(cards),
        time.perf_counter() - started,
    )
    if not cards:
        why = no_card_said(image) or "a photo of the spread, from above, is asked for"
        log.warning("no card found in %s: %s", args.image, why)
    unlike = warn_of_count(counted, references, annotating=args.annotate is not None)
    points = {
        name: round_score(count, left.get(name, 0)) + bonus.get(name, 0)
        for name, count in counts.items()
    }
    if args.json:
        sys.stdout.write(json.dumps(counts) + "\n")
    elif left or bonus or sheet is not None:
        sys.stdout.write(points_table(counts, left, bonus, points))
    else:
        sys.stdout.write(count_table(counts))
    sys.stdout.flush()  # the counts are kept should the picture not be written
    warned = (
        counted.faces_shown or counted.too_close or counted.parts_uncounted or counted.beyond_decks
    )
    # A back counting no card whose reference was warned of: its cards went to others.
    unmatched = [name for name in registered.doubted if counts.get(name) == 0]
    # Black and white whether the file holds one channel or three of one grey.
    colourless = pictures.greyscale | {
        name for name, picture in pictures.images.items() if without_colour(picture)
    }
    coloured = [] if greyscale else _coloured_for_grey(image, counted, colourless)
    doubtful = bool(
        warned
        or unlike
        or alike
        or registered.faces
        or unmatched
        or coloured
        or greyscale
        or not cards
    )
    not_drawn = args.annotate is not None and not _drawn(args, image, counted, backs)
    added = False
    if sheet is not None and fingerprint is not None:
        if doubtful:
            # Each of those warnings asks for a new photo or another reference: a round added
            # now would be scored again from the new count.
            log.error("%s", _not_added(args.sheet, args.image, points, found=bool(cards)))
        else:
            _add_round(args.sheet, points, (args.image, fingerprint), quiet=args.json)
            added = True
    if not_drawn:
        kept = f"; the round was added to {args.sheet}" if added else ""
        log.error("--annotate could not write %s (said above)%s", args.annotate, kept)
    if doubtful and (args.strict or sheet is not None):
        # It wins over a picture not drawn: it asks for a new photo.
        return CountOutcome(DOUBTFUL_COUNT_STATUS, counts)
    return CountOutcome(FAILURE_STATUS if not_drawn else 0, counts)


def _coloured_for_grey(image: np.ndarray, counted: CountResult, grey: frozenset[str]) -> list[str]:
    """The backs of black-and-white references whose cards in the photo are in colour, warned
    of: colour cannot have told those cards from another back's."""
    coloured = []
    for name in sorted(grey):
        cards = [card for card in counted.cards if card.back == name]
        if channel_spread(image, cards) > GREY_CARDS_CHANNEL_SPREAD_MAX:
            log.warning(
                "back %r: its reference is black and white, but the %d cards counted for it are "
                "in colour: they may be another back's; give a colour photo or design file",
                name,
                len(cards),
            )
            coloured.append(name)
    return coloured


def _house_points(
    args: argparse.Namespace, names: list[str]
) -> tuple[dict[str, int], dict[str, int]]:
    """--left and --bonus by back name; more cards left than a Nerts pile holds warned of."""
    left = named_numbers("--left", args.left, names, NERTS_PILE_MAX)
    for name, in_pile in left.items():
        if in_pile > DEFAULT_NERTS_PILE_SIZE:
            log.warning(
                "--left %s=%d: more cards than a %d-card Nerts pile holds (a typo, or a house "
                "rule's larger pile?)",
                name,
                in_pile,
                DEFAULT_NERTS_PILE_SIZE,
            )
    return left, named_numbers("--bonus", args.bonus, names, BONUS_MAX)


def _sheet_given(
    args: argparse.Namespace, names: list[str], points_given: bool
) -> Scoresheet | None:
    """The --sheet the round goes on, checked before the photo is read: its players are the
    backs' `names`, and it can be written."""
    if args.sheet is None:
        if args.json and points_given:
            log.warning(
                "--json prints the counts only: the points of --left/--bonus go nowhere without "
                "--sheet"
            )
        return None
    sheet = load_sheet(args.sheet)
    _check_sheet_players(sheet, args.sheet, names)
    if not os.access(args.sheet, os.W_OK):
        raise UserError(f"cannot write {args.sheet}: the round could not be added to it")
    return sheet


def _drawn(
    args: argparse.Namespace, image: np.ndarray, counted: CountResult, backs: dict[str, np.ndarray]
) -> bool:
    """Draws the count in --annotate's picture; whether it could be written (a full disk is
    said, and the count goes on: the counts are printed and the round may still be added)."""
    try:
        draw_count(args.annotate, image, counted, backs)
    except UserError as error:
        log.error("%s", error)
        return False
    if not args.json:
        sys.stdout.write(f"drawn in {args.annotate}\n")
    return True


def _not_added(sheet: Path, photo: Path, points: dict[str, int], *, found: bool) -> str:
    """Why a count is not added to the score sheet, and how to add the round by hand (with
    the photo, so that counting it again with --sheet cannot score the round twice)."""
    by_hand = " ".join(quote(f"{name}={number}") for name, number in points.items())
    by_hand += f" --photo {quote(str(photo))}"
    if not found:  # a lens cap or the wrong file must not score a round
        return (
            f"nothing added to {sheet}, as no card was found. If no card was played this round, "
            f"add its points by hand: nerts scores {quote(str(sheet))} add {by_hand}"
        )
    return (
        f"nothing added to {sheet}, as the count is likely wrong (warned above): count again; "
        f"or, if the count is right, add it by hand: nerts scores {quote(str(sheet))} add "
        f"{by_hand}"
    )


def named_numbers(option: str, specs: list[str], names: list[str], maximum: int) -> dict[str, int]:
    """`option`'s `NAME=N` specs, N in 0..`maximum`, by back name (matched as the sheet's
    players are, `same_name`); a `UserError` naming the spec."""
    numbers: dict[str, int] = {}
    for spec in specs:
        given, equals, number = spec.partition("=")
        if not equals:
            hint = (  # a second photo: the count takes one, before --backs
                "the photo goes before --backs: nerts count IMAGE --backs ..."
                if looks_like_a_photo(spec)
                else f"give its number, e.g. {spec.strip() or names[0]}=3"
            )
            raise UserError(f"{option} takes NAME=N ...; got {spec!r} ({hint})")
        given = given.strip()  # as --backs names are
        name = next((name for name in names if same_name(name, given)), None)
        if name is None:
            known = ", ".join(names)
            raise UserError(f"{option} {spec!r}: no back is named {given!r} (backs: {known})")
        if name in numbers:
            raise UserError(f"{option} gives {name!r} twice")
        left = plain_number(number)
        if left is None or left > maximum:
            raise UserError(f"{option} takes NAME=N, N from 0 to {maximum}; got {spec!r}")
        numbers[name] = left
    return numbers


def _check_sheet_players(sheet: Scoresheet, path: Path, names: list[str]) -> None:
    """A `UserError` unless the back names are the sheet's players (or seat numbers), each
    player with one back."""
    try:
        sheet.scores_from(dict.fromkeys(names, 0), complete=True)
    except RefereeInputError as error:
        raise UserError(
            f"{path}: {error}; give each player on the sheet a back, named as they are there"
        ) from None


def _add_round(path: Path, points: dict[str, int], photo: tuple[Path, str], quiet: bool) -> None:
    """Adds the round to the sheet; `photo` is the counted photo and its `file_fingerprint`.
    The sheet is read again: a round may have been added to it while the photo was counted."""
    source, fingerprint = photo
    with sheet_to_change(path) as sheet:
        refuse_scoring_twice(sheet, path, source, fingerprint)
        seats = sheet.scores_from(points, complete=True)
        # Keyed by the sheet's own names, as `nerts scores add` writes them.
        scores = {sheet.players[seat]: seat_points for seat, seat_points in seats.items()}
        entry = {
            "type": "round",
            "scores": scores,
            "source": source_name(source),
            "fingerprint": fingerprint,
        }
        over = game_over_warning(sheet)
        sheet.apply(entry)
        append_entries(path, [entry])
    if over is not None:
        log.warning("%s", over)
    log.info("round %d added to %s", len(sheet.rounds), path)
    if not quiet:
        sys.stdout.write(f"\nround {len(sheet.rounds)} added to {path}\n" + format_sheet(sheet))
