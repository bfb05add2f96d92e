"""`nerts count`: the end-of-round count of face-down cards by deck back."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from nerts.backs import back_references, read_backs, registered_backs
from nerts.commands.identify import load_reader
from nerts.photos import picture_path, read_photo, write_annotated
from vision.annotate import annotate, with_legend
from vision.count import count_backs

DESCRIPTION = """\
At the end of a round, turn the foundation cards face down and spread them out, each showing at
least half of itself (overlapping is fine; a card mostly under others is not counted). Give a
photo and a reference image of each player's back: a photo of one card's back lying on the
table (the card is found and cut out), the same cropped to the card's edges, or the design
file. The command counts the cards of each back. Backs are told apart by colour, pattern and
where they are darker, so a plain back and one of its colour with a faint picture are counted
apart. It searches the whole photo and four overlapping tiles of it, so a photo of the whole
table works; take it from above, cards at least about 60 px long. Keep other cards out of the
photo: every card found is taken for a back (some backs are pictures) and counted for the
nearest reference. Two references that look the same to it (one design printed twice) are
warned about: their cards cannot be told apart.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "count",
        help="count face-down cards per deck back in a photo",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  nerts count centre.jpg --backs anna=anna-back.jpg ben=ben-back.png",
    )
    parser.add_argument("image", type=Path, metavar="IMAGE")
    parser.add_argument(
        "--backs",
        nargs="+",
        required=True,
        metavar="NAME=REF",
        help="each player's back: a name and an image of that back",
    )
    parser.add_argument("--json", action="store_true", help='print {"NAME": count, ...}')
    parser.add_argument(
        "--annotate",
        type=picture_path,
        metavar="OUT.png",
        help="draw each counted card, and beside the photo each back as it was matched (a "
        "photo of a card cut to the card) with its count",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    references = back_references(args.backs)
    image = read_photo(args.image)
    images = read_backs(references)
    reader = load_reader()
    backs, matcher = registered_backs(references, images, reader)
    counts, cards = count_backs(image, reader, matcher)
    if args.annotate:
        legend = [(name, backs[name], count) for name, count in counts.items()]
        write_annotated(args.annotate, with_legend(annotate(image, cards), legend))
    if args.json:
        sys.stdout.write(json.dumps(counts) + "\n")
    else:
        width = max(map(len, counts))
        for name, count in counts.items():
            sys.stdout.write(f"{name:<{width}}  {count:>3}\n")
        sys.stdout.write(f"{'total':<{width}}  {sum(counts.values()):>3}\n")
    return 0
