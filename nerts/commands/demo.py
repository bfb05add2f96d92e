"""`nerts demo`: the main job on built-in material: no camera, no box, no assets needed.

Bots play a round of Nerts, filmed by the simulator (built-in card design, distinct backs);
the referee then judges the round from its table events and prints the scoreboard. With
`--example` it referees the bundled example game log instead (a second, no rendering).
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

from nerts.commands import simulate
from nerts.commands.referee import referee_log
from nerts.errors import UserError, folder_argument
from nerts.eventlog import refuse_replacing_other_than_events
from nerts.scoreboard import format_scoreboard
from referee.options import RuleOptions

EXAMPLE_LOG = "example_game.jsonl"
# The bundled example is a short game, so it is played to a short target.
EXAMPLE_TARGET = 20
DEFAULT_OUT_DIR = Path("nerts-demo")
EXAMPLE_OUT_DIR = Path("nerts-demo-example")
"""The example's own default folder: its events must not sit beside a simulated round's video
and truth, which they do not describe."""
EVENTS_FILE = "events.jsonl"
# A four-player round with some races and the odd mistake, so every verdict shows up.
DEMO_SEED = 4
DEMO_RACE_RATE = 0.3
DEMO_MISTAKE_RATE = 0.03


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="simulate a filmed round, referee it and print the scoreboard",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--out",
        type=folder_argument,
        metavar="OUT",
        help=f"folder for the demo's output (default ./{DEFAULT_OUT_DIR}, with --example "
        f"./{EXAMPLE_OUT_DIR})",
    )
    parser.add_argument(
        "--example",
        action="store_true",
        help=f"referee the bundled example game log (3 players, 4 rounds, to {EXAMPLE_TARGET})",
    )
    parser.set_defaults(handler=run, files_written=files_written)


def _names_written(example: bool) -> tuple[str, ...]:
    return (EVENTS_FILE,) if example else (EVENTS_FILE, *simulate.written_files(no_video=False))


def files_written(args: argparse.Namespace) -> list[Path]:
    """The files a run with `args` writes (the command line keeps its --log-file off them)."""
    out = args.out or (EXAMPLE_OUT_DIR if args.example else DEFAULT_OUT_DIR)
    return [out / name for name in _names_written(args.example)]


def run(args: argparse.Namespace) -> int:
    if args.out is None:
        args.out = EXAMPLE_OUT_DIR if args.example else DEFAULT_OUT_DIR
    if args.example:
        simulated = [
            name for name in simulate.written_files(no_video=False) if (args.out / name).exists()
        ]
        if simulated:
            raise UserError(
                f"{args.out} holds a simulated round ({', '.join(simulated)}): the example's "
                f"events would lie beside footage they do not describe; give another --out "
                f"(the example's own is {EXAMPLE_OUT_DIR})"
            )
    # Checked now, not minutes later when the simulated round is written.
    simulate.make_out_dir(args.out, _names_written(args.example))
    refuse_replacing_other_than_events(args.out / EVENTS_FILE)
    if args.example:
        out_path = args.out / EVENTS_FILE
        options = RuleOptions(target_score=EXAMPLE_TARGET)
        with resources.as_file(resources.files("nerts.data") / EXAMPLE_LOG) as log_path:
            decided = referee_log(log_path, out_path, options)
        sys.stdout.write(f"Refereeing the bundled example game (target {EXAMPLE_TARGET})\n\n")
    else:
        sys.stdout.write(
            "Simulating a filmed four-player round (about two minutes of play, "
            "a minute or two to film on two cores)...\n"
        )
        sim_args = simulate.build_parser_defaults(
            out=args.out,
            seed=DEMO_SEED,
            race_rate=DEMO_RACE_RATE,
            mistake_rate=DEMO_MISTAKE_RATE,
        )
        # An earlier demo's events describe another round: gone before this one is filmed, so
        # that a run stopped half way leaves no verdicts beside a truth they do not match.
        (args.out / EVENTS_FILE).unlink(missing_ok=True)
        simulate.run(sim_args)
        out_path = args.out / EVENTS_FILE
        options = RuleOptions()
        decided = referee_log(args.out / simulate.TRUTH_FILE, out_path, options)
        sys.stdout.write("\n")
    sys.stdout.write(format_scoreboard(decided, options.target_score))
    sys.stdout.write(f"refereed events written to {out_path}\n")
    return 0
