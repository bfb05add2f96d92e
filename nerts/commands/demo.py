"""`nerts demo`: the main job on built-in material: no camera, no box, no assets needed.

Bots play a round of Nerts, filmed by the simulator (built-in card design, distinct backs);
the referee then judges the round from its table events and prints the scoreboard. Then the
round is counted by deck back as players count it: its foundation cards turned face down and
spread, photographed (OUT/count.png), and counted from the photo by `nerts count` against each
back's design (OUT/back-NAME.png), beside the referee's own count. With `--example` it
referees the bundled example game log instead (a second, no rendering, no count).
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path
from shlex import quote

from nerts.commands import count, simulate
from nerts.commands.referee import referee_log
from nerts.errors import FAILURE_STATUS, UserError, folder_argument
from nerts.eventlog import refuse_replacing_other_than_events
from nerts.pictures_out import write_annotated
from nerts.scoreboard import format_scoreboard
from referee.events import Event, RoundEnd, RoundStart
from referee.options import RuleOptions
from simulator.backs import default_backs
from simulator.count_spread import count_photo

EXAMPLE_LOG = "example_game.jsonl"
# The bundled example is a short game, so it is played to a short target.
EXAMPLE_TARGET = 20
DEFAULT_OUT_DIR = Path("nerts-demo")
EXAMPLE_OUT_DIR = Path("nerts-demo-example")
"""The example's own default folder: its events must not sit beside a simulated round's video
and truth, which they do not describe."""
EVENTS_FILE = "events.jsonl"
# A four-player round with some races and the odd mistake, so every verdict shows up.
DEMO_PLAYERS = 4
DEMO_SEED = 4
DEMO_RACE_RATE = 0.3
DEMO_MISTAKE_RATE = 0.03


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="simulate a filmed round, referee it, print the scoreboard and count it by back",
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


COUNT_PHOTO = "count.png"
COUNT_ANNOTATED = "count-annotated.png"


def _reference_name(back: str) -> str:
    return f"back-{back}.png"


def _names_written(example: bool) -> tuple[str, ...]:
    if example:
        return (EVENTS_FILE,)
    references = tuple(_reference_name(back.name) for back in default_backs(DEMO_PLAYERS))
    filmed = simulate.written_files(no_video=False)
    return (EVENTS_FILE, *filmed, COUNT_PHOTO, COUNT_ANNOTATED, *references)


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
            players=DEMO_PLAYERS,
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
    return 0 if args.example else _count_by_back(args.out, decided)


def _count_by_back(out: Path, decided: list[Event]) -> int:
    """The end-of-round count of the round refereed: its foundation cards, face down, spread
    and photographed, counted by `nerts count` from the photo; said beside the referee's
    count. The exit status of the count (1 where a back's count differs from the referee's)."""
    ends = [event for event in decided if isinstance(event, RoundEnd)]
    deals = [event for event in decided if isinstance(event, RoundStart)]
    if not ends or not deals:  # a round cut short before its end: nothing to count
        return 0
    end, deal = ends[-1], deals[-1]
    backs = default_backs(DEMO_PLAYERS)
    back_of_seat = {info.seat: info.back for info in deal.seats}
    on_foundations = {back_of_seat[seat]: end.foundation[seat] for seat in sorted(back_of_seat)}
    cards = [on_foundations.get(back.name, 0) for back in backs]
    photo = count_photo(cards, backs, DEMO_SEED)
    # Photos, as a player's camera takes them: not marked as drawn, or count would refuse them.
    write_annotated(out / COUNT_PHOTO, photo, drawn=False)
    for back in backs:
        write_annotated(out / _reference_name(back.name), back.printed(), drawn=False)
    arguments = [
        str(out / COUNT_PHOTO),
        "--backs",
        *(f"{back.name}={out / _reference_name(back.name)}" for back in backs),
        "--left",
        *(f"{back_of_seat[seat]}={left}" for seat, left in sorted(end.nerts_left.items())),
        "--annotate",
        str(out / COUNT_ANNOTATED),
    ]
    sys.stdout.write(
        f"\nCounting round {end.round} by deck back, as players do: its {sum(cards)} "
        f"foundation cards turned face down, spread and photographed ({out / COUNT_PHOTO}), "
        f"then counted from the photo:\n  nerts count {' '.join(map(quote, arguments))}\n\n"
    )
    status, counts = count.count_round(_count_arguments(arguments))
    wrong = [
        f"{back}: {counts.get(back, 0)} in the photo, {number} on the foundations"
        for back, number in on_foundations.items()
        if counts.get(back, 0) != number
    ]
    if wrong:
        sys.stdout.write(f"The photo's count differs from the referee's: {'; '.join(wrong)}\n")
        return FAILURE_STATUS
    sys.stdout.write("The photo's count agrees with the referee's, back by back.\n")
    return status


def _count_arguments(arguments: list[str]) -> argparse.Namespace:
    """`nerts count ARGUMENTS` as its own parser reads them."""
    parser = argparse.ArgumentParser(prog="nerts")
    count.register(parser.add_subparsers())
    return parser.parse_args(["count", *arguments])
