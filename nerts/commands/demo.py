"""`nerts demo`: the main job on built-in material: no camera, no box, no assets needed."""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

from nerts.commands.referee import referee_log
from nerts.scoreboard import format_scoreboard
from referee.options import RuleOptions

EXAMPLE_LOG = "example_game.jsonl"
# The bundled example is a short game, so it is played to a short target.
EXAMPLE_TARGET = 20
DEFAULT_OUT_DIR = Path("nerts-demo")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="referee the bundled example game and print the scoreboard",
        description="Referees a bundled example game log (three players, four rounds, played "
        f"to {EXAMPLE_TARGET}) and prints the scoreboard; the refereed events go to "
        f"OUT/events.jsonl.",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT_DIR,
        metavar="OUT",
        help=f"folder for the demo's output (default ./{DEFAULT_OUT_DIR})",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    out_path = args.out / "events.jsonl"
    with resources.as_file(resources.files("nerts.data") / EXAMPLE_LOG) as log_path:
        decided = referee_log(log_path, out_path, RuleOptions(target_score=EXAMPLE_TARGET))
    sys.stdout.write(f"Refereeing the bundled example game (target {EXAMPLE_TARGET} points)\n\n")
    sys.stdout.write(format_scoreboard(decided))
    sys.stdout.write(f"refereed events written to {out_path}\n")
    return 0
