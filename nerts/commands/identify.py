"""`nerts identify`: name every card in photos of a table."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import cast

import numpy as np
from tqdm import tqdm

from nerts.backs import back_references, photo_not_given, read_backs, registered_backs
from nerts.columns import first_few, left, shown_width
from nerts.errors import (
    FAILURE_STATUS,
    UserError,
    backs_go_after_backs,
    refuse_overwriting,
    shown_name,
)
from nerts.photos import (
    check_photo,
    no_card_said,
    read_photo,
    without_colour,
)
from nerts.pictures_out import picture_path, refuse_replacing_pictures, write_annotated
from referee.cards import card_order
from vision.annotate import annotate, back_colours, for_drawing
from vision.back_views import with_backs
from vision.backs import BackMatcher
from vision.detections import CardDetection
from vision.geometry import visible_centre
from vision.identify import CardReader
from vision.onnx_models import ModelFileError

log = logging.getLogger(__name__)

DESCRIPTION = """\
Finds every card in each photo (any photo of cards on a table: made for 1 to 24 megapixels,
refused over 64), face up or face down, and names the face-up ones by rank and suit from their
index corner, also when the rest of the card is covered; a card seen whole is read from its
whole face too; next to each named card, the index of a card fanned under it (in a hand or a
work pile) is looked for, where no card was found. Cards are read best 120 px long or more (a
1280 px wide photo of no more than about 90 cm of table); where the index corners show smaller
cards (under about 90 px long), the cards are looked for again in the photo at a larger size.
A photo over 1920 px long (a 24-megapixel photo of a whole table, a panorama) is also looked
at in tiles of 1280 px, so that its cards look to the detector as in a 1280 px photo (a few
seconds a photo on 2 cores).
Prints a table (each card's name, face up or down, back, how sure, and centre in the photo;
"sure" is how surely it is a card times how surely it is named or its back matched: low for a
card mostly covered, or for a find that may be no card at all), or with --json one object
mapping each image path to its cards:
{"card", "face_up", "back", "quad" (the card's corners, image pixels), "confidence"}. With
--backs, each face-down card's "back" is the nearest registered back (matched as `nerts count`
matches them; cards that look like no back given are warned of, and marked '?' with
--annotate); without, null. To count a spread of face-down cards, use `nerts count`: it
also tells apart the overlapping cards of a spread, which this command can report twice or
merge. A path that does not exist, or is a folder, stops the command before any photo is
read; of several photos, a file that cannot be read as a picture is named and skipped, as is
an --annotate picture that cannot be written, and the command ends with an error.

Exit status: 0 when every photo was read (and drawn); 1 when what was asked for could not be
written (an --annotate picture, the output: a full disk); 2 for a mistake in what was given (a
photo or reference missing or not a picture, an option).
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "identify",
        help="name every card in photos",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  nerts identify table.jpg --annotate found.png",
        usage="nerts identify IMAGE [IMAGE ...] [options]",
    )
    # Not required here: a photo that --backs took is named in `run`, not "IMAGE is required".
    parser.add_argument(
        "images",
        nargs="*",
        metavar="IMAGE",
        help="photos of cards on a table (JPEG, PNG, WebP, TIFF, BMP; a folder's as folder/*.jpg)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--annotate",
        type=picture_path,
        metavar="OUT.png",
        help="draw what was found (with several images: OUT-<n>.png)",
    )
    parser.add_argument(
        "--backs",
        nargs="+",
        action="extend",  # given twice, both count
        default=[],
        metavar="NAME=REF",
        help="name the back of each face-down card: a name and an image of each back (a photo "
        "of one card on the table, cropped or not, or the design file), as for `nerts count`",
    )
    parser.add_argument(
        "--tiled",
        action="store_true",
        help="also search 2 x 2 overlapping tiles of each photo up to 1920 px long (a larger "
        "one is always searched in tiles): names more cards under about 100 px long, but also "
        "more wrong ones; no gain on larger cards; about 3x slower",
    )
    parser.set_defaults(handler=run)


def load_reader() -> CardReader:
    started = time.perf_counter()
    try:
        reader = CardReader()
    except ModelFileError as error:
        raise UserError(str(error)) from None
    log.info("models loaded in %.2f s", time.perf_counter() - started)
    return reader


def annotated_path(base: Path, number: int, total: int) -> Path:
    return base if total == 1 else base.with_name(f"{base.stem}-{number}{base.suffix}")


def run(args: argparse.Namespace) -> int:
    """Every photo is looked for before the first is read, then each is read, worked on and let
    go in turn (a hundred 24-megapixel photos need not fit in memory together). A photo of
    several that turns out unreadable (cut short, too small) is named and skipped: the others
    are still worth their minutes; the run then ends with an error naming how many."""
    names = _photos_given(args)
    references = back_references(args.backs)
    if args.annotate:
        outputs = [annotated_path(args.annotate, n, len(names)) for n in range(1, len(names) + 1)]
        refuse_overwriting(outputs, [Path(name) for name in names] + list(references.values()))
        refuse_replacing_pictures(outputs)
    pictures = read_backs(references)
    reader = load_reader()
    matcher = registered_backs(references, pictures, reader).matcher if references else None
    colours = back_colours(list(references))
    results: dict[str, list[dict[str, object]]] = {}
    unread: list[str] = []
    not_drawn: list[str] = []
    try:
        for number, name in enumerate(_progress(names), start=1):
            try:
                image = read_photo(Path(name))
            except UserError as error:
                if len(names) == 1:
                    raise
                log.error("%s: skipped", error)
                unread.append(name)
                continue
            cards = _cards_in(name, image, reader, matcher, args.tiled)
            results[name] = [card.to_json() for card in cards]
            drawn = None
            if args.annotate:
                drawn = annotated_path(args.annotate, number, len(names))
                try:
                    write_annotated(drawn, annotate(*for_drawing(image, cards), colours))
                except UserError as error:  # a full disk: the names found are still told
                    log.error("%s", error)
                    not_drawn.append(str(drawn))
                    drawn = None
            if not args.json:
                # Through tqdm, so that a line never shares the progress bar's.
                size = (image.shape[1], image.shape[0])
                tqdm.write(_table(name, results[name], size, drawn), file=sys.stdout, end="")
                sys.stdout.flush()
    except KeyboardInterrupt:
        left_out = [name for name in names if name not in results and name not in unread]
        log.warning(
            "stopped: %d of %d photos read%s; left out: %s",
            len(results),
            len(names),
            " (those printed)" if args.json else "",
            _listed(left_out),
        )
        raise
    finally:
        # What was read is kept, also when a later photo fails or Ctrl-C stops the run; with
        # nothing read nothing is printed, so that a script never takes `{}` for a bare table.
        if args.json and results:
            sys.stdout.write(json.dumps(results, indent=1) + "\n")
    return _status_of_what_failed(len(names), unread, not_drawn)


def _photos_given(args: argparse.Namespace) -> list[str]:
    """The photos, each once, keyed as given; a `UserError` before any work for a typo, a
    folder or a back given among them (a file that is no picture, which a shell pattern took
    in, is named and skipped where its turn comes, unless it is the only one)."""
    if not args.images:
        raise photo_not_given(
            {"--backs": args.backs}, "nerts identify IMAGE... [--backs NAME=REF ...]"
        )
    names = list(dict.fromkeys(args.images))
    _refuse_backs_given_as_photos(names, args.backs)
    for name in names:
        if not name:
            raise UserError("an image path is empty")
        try:
            check_photo(Path(name), several=True)
        except UserError:
            if len(names) == 1 or not Path(name).is_file():
                raise
    return names


def _cards_in(
    name: str,
    image: np.ndarray,
    reader: CardReader,
    matcher: BackMatcher | None,
    tiled: bool,
) -> list[CardDetection]:
    """The cards `reader` finds in the photo `name`, with their backs where `matcher` is
    given; what makes them doubtful (no colour, no card, a back not given) is warned of."""
    if without_colour(image):
        log.warning(
            "%s is black and white: suits are told apart by colour too, so a heart may be "
            "named a spade (or a diamond a club, or the other way)%s; photograph the cards in "
            "colour",
            name,
            " and backs matched wrongly" if matcher is not None else "",
        )
    started = time.perf_counter()
    cards = reader.read(image, tiled=tiled)
    log.info(
        "%s: %d x %d px, %d cards found (%d face up, %d named) in %.0f ms",
        name,
        image.shape[1],
        image.shape[0],
        len(cards),
        sum(card.face_up for card in cards),
        sum(card.card is not None for card in cards),
        1000 * (time.perf_counter() - started),
    )
    if not cards:
        log.warning("no card found in %s: %s", name, no_card_said(image) or NO_CARD_HINT)
    if matcher is not None:
        cards = with_backs(cards, image, matcher)
        _warn_of_backs_not_given(name, cards)
    return cards


def _status_of_what_failed(total: int, unread: list[str], not_drawn: list[str]) -> int:
    """A `UserError` naming the photos of `total` left unread (and any pictures not drawn);
    where only pictures could not be written (a full disk), they are said and the status is
    `FAILURE_STATUS`, what was given being right."""
    drawing = f"--annotate could not write {_listed(not_drawn)} (said above)"
    if unread:
        also = f"; {drawing}" if not_drawn else ""
        raise UserError(
            f"{len(unread)} of {total} photos could not be read and "
            f"{'is' if len(unread) == 1 else 'are'} left out "
            f"(named above): {_listed(unread)}{also}"
        )
    if not_drawn:
        log.error("%s", drawing)
        return FAILURE_STATUS
    return 0


def _refuse_backs_given_as_photos(names: list[str], backs: list[str] | None) -> None:
    """A NAME=REF among the photos, no file of that name: a back given without --backs (the
    photos, being any number, took it), said as `nerts count` says it."""
    taken = [name for name in names if "=" in name and not Path(name).exists()]
    if taken:
        every = [*(backs or []), *taken]
        raise UserError(f"image not found: {taken[0]} ({backs_go_after_backs(every)})")


def _warn_of_backs_not_given(name: str, cards: list[CardDetection]) -> None:
    unlike = sum(card.back_unlike for card in cards)
    if unlike:
        log.warning(
            "%s: %s like a back not given (marked '?' with --annotate): if a player's back is "
            "missing from --backs, their cards were named for another",
            name,
            "1 face-down card looks" if unlike == 1 else f"{unlike} face-down cards look",
        )


NO_CARD_HINT = "a photo of cards on a table is asked for, taken from above in good light"
"""Said of a photo in which no card is found, where it is neither too small nor too dark."""
UNREAD_LISTED = 3
"""Photos that could not be read are named again in the closing error up to this many."""


def _listed(names: list[str]) -> str:
    return first_few([shown_name(name) for name in names], UNREAD_LISTED)


PROGRESS_FROM_PHOTOS = 3
"""A progress bar is shown (on a terminal) from this many photos."""


def _progress(names: list[str]) -> Iterable[str]:
    if len(names) < PROGRESS_FROM_PHOTOS:
        return names
    return tqdm(names, unit=" photo", desc="identifying", leave=False, disable=None)


def _table(
    path: str, found: list[dict[str, object]], size: tuple[int, int], drawn: Path | None = None
) -> str:
    """A photo's cards as `nerts identify` prints them, one row each: the named ones by rank
    and suit, then those found face up but not named (`?`), then the face-down ones by back;
    how sure the reading is, and where the card's centre lies in the photo (of `size`: of
    the part within it, for a card cut by its edge), so that a doubtful one can be found in it
    (or in the picture `drawn`)."""
    up = [c for c in found if c["face_up"]]
    named = sum(1 for c in up if c["card"])
    lines = [f"{path}: {len(up)} face up ({named} named), {len(found) - len(up)} face down"]
    centres = [_centre(card, size) for card in found]
    listed = sorted(zip(found, centres, strict=True), key=lambda pair: _listed_order(*pair))
    rows = [_row(card, centre) for card, centre in listed]
    if rows:
        width = max(len("back"), *(shown_width(back) for _, _, back, _, _ in rows))
        lines.append(f"  card  face  {left('back', width)}  sure  centre (x, y)")
        lines += [
            f"  {card:<4}  {face:<4}  {left(back, width)}  {sure:>4}  {centre}"
            for card, face, back, sure, centre in rows
        ]
    backs = Counter(str(c["back"]) for c in found if not c["face_up"] and c["back"])
    if backs:
        lines.append("  backs: " + ", ".join(f"{n} {k}" for n, k in backs.items()))
    if drawn is not None:
        lines.append(f"  drawn in {drawn}")
    return "\n".join(lines) + "\n"


def _listed_order(card: dict[str, object], centre: tuple[int, int]) -> tuple[object, ...]:
    x, y = centre
    if card["face_up"] and card["card"]:
        return (0, *card_order(str(card["card"])))
    return (1, "", y, x) if card["face_up"] else (2, str(card["back"] or ""), y, x)


def _row(card: dict[str, object], centre: tuple[int, int]) -> tuple[str, str, str, str, str]:
    """A card's table cells: name (`?` face up unnamed, `-` face down), face, back, how sure,
    centre."""
    name = str(card["card"]) if card["card"] else "?" if card["face_up"] else "-"
    sure = f"{round(100 * cast(float, card['confidence']))}%"
    x, y = centre
    face = "up" if card["face_up"] else "down"
    return name, face, str(card["back"] or "-"), sure, f"{x:>4}, {y:>4}"


def _centre(card: dict[str, object], size: tuple[int, int]) -> tuple[int, int]:
    x, y = visible_centre(np.array(card["quad"], np.float32), size)
    return round(x), round(y)
