"""`nerts simulate`: bots play a Nerts round, rendered as overhead footage with ground truth."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import math
import re
import sys
from pathlib import Path

from tqdm import tqdm

from nerts.errors import (
    UserError,
    folder_argument,
    make_folder,
    refuse_name_not_utf8,
)
from nerts.eventlog import EventWriter, holds_events
from referee.game import GameReferee
from referee.options import RuleOptions
from simulator.backs import BackDesign
from simulator.camera import DEFAULT_FPS, FRAME_LARGEST, FRAME_SIDE_MIN, frame_shape_refused
from simulator.errors import DesignError
from simulator.faces import CardDesign
from simulator.pace import (
    DEFAULT_PLAYERS,
    MAX_PLAYERS,
    MAX_ROUND_S,
    MIN_PLAYERS,
    SimulationSettings,
    frames_in,
)
from simulator.render import (
    DEFAULT_FRAME_SIZE,
    RenderSettings,
    TableRenderer,
    VideoSink,
    back_from_spec,
    builtin_design,
    default_backs,
    load_design,
)
from simulator.table import TABLES
from simulator.timeline import RoundSimulation

log = logging.getLogger(__name__)

DESCRIPTION = """\
Bots play one round of Nerts at human speed, racing each other to the foundations, and the
round is rendered as an overhead camera would film it: OUT/video.mp4, plus OUT/truth.jsonl,
the exact table events (docs/contracts/events.md) with the referee's verdicts. The same
seed gives the same round and the same footage.
"""
EPILOG = """\
examples:
  nerts simulate --out sim --players 4 --seed 7 --seconds 60
  nerts simulate --out races --players 4 --seed 3 --race-rate 0.5 --mistake-rate 0.05
  nerts simulate --out real --deck ../shared/decks/train/kde-standard --backs red blue green navy
  nerts simulate --out fast --no-video          # truth only, in a second
"""
TRUTH_FILE = "truth.jsonl"
VIDEO_FILE = "video.mp4"
MIN_SIDE = FRAME_SIDE_MIN
MAX_SIZE = FRAME_LARGEST
DEFAULT_SIZE = "{}x{}".format(*DEFAULT_FRAME_SIZE)
# The frame rates cameras film at. OpenCV's mp4v writer refused to open at 0.001 and at 1e6
# fps, and far outside this range a move lasts under one frame or a round spans millions.
MIN_FPS = 1.0
MAX_FPS = 240.0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="bots play a round; write overhead footage and its ground truth",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    parser.set_defaults(handler=run, files_written=files_written)


def files_written(args: argparse.Namespace) -> list[Path]:
    """The files a run with `args` writes (the command line keeps its --log-file off them)."""
    return [args.out / name for name in written_files(args.no_video)]


def build_parser_defaults(**overrides: object) -> argparse.Namespace:
    """The options of `nerts simulate` at their defaults, with some set (for other commands)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--out", "."])
    for key, value in overrides.items():
        setattr(args, key, value)
    return args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", type=folder_argument, required=True, metavar="DIR", help="output folder"
    )
    parser.add_argument(
        "--players",
        type=int,
        default=DEFAULT_PLAYERS,
        metavar="N",
        help=f"{MIN_PLAYERS} to {MAX_PLAYERS} (default {DEFAULT_PLAYERS})",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="default 0")
    parser.add_argument(
        "--seconds",
        type=float,
        metavar="T",
        help=f"stop after T seconds, at most {MAX_ROUND_S:g} (default: round's end)",
    )
    parser.add_argument(
        "--race-rate",
        type=float,
        default=0.0,
        metavar="P",
        help="chance that another seat races a foundation play for the same place (0-1; "
        "default 0: no races made on purpose, though bots wanting one place still meet there); "
        "a mistaken play is not raced",
    )
    parser.add_argument(
        "--mistake-rate",
        type=float,
        default=0.0,
        metavar="P",
        help="chance of an illegal foundation play (or a false Nerts call) per decision (0-1; "
        "default 0: no mistakes)",
    )
    parser.add_argument(
        "--deck",
        type=folder_argument,
        nargs="+",
        action="extend",  # given twice, both count
        metavar="DIR",
        help="card design folder(s) with <RANK><SUIT>.png: one for all seats or one per seat "
        "(default: the built-in design)",
    )
    parser.add_argument(
        "--backs",
        nargs="+",
        action="extend",  # given twice, both count
        metavar="SPEC",
        help="one back per seat: a colour (red, blue, #2040a0, blue:dots) or an image file "
        "(default: distinct built-in backs)",
    )
    parser.add_argument(
        "--size",
        default=DEFAULT_SIZE,
        metavar="WxH",
        help=f"even numbers, {MIN_SIDE}x{MIN_SIDE} to {MAX_SIZE[0]}x{MAX_SIZE[1]} "
        f"(default {DEFAULT_SIZE})",
    )
    parser.add_argument(
        "--fps",
        type=float,
        default=DEFAULT_FPS,
        metavar="F",
        help=f"{MIN_FPS:g} to {MAX_FPS:g} (default {DEFAULT_FPS:g})",
    )
    parser.add_argument(
        "--table", choices=TABLES, default="wood", help="table surface (default wood)"
    )
    parser.add_argument("--no-video", action="store_true", help="write truth.jsonl only")


def _size(text: str) -> tuple[int, int]:
    # ASCII digits only: str.isdigit() also passes "²", which int() then refuses.
    match = re.fullmatch(r"([0-9]+)x([0-9]+)", text.strip().lower())
    width, height = (int(match[1]), int(match[2])) if match else (0, 0)
    valid = min(width, height) >= MIN_SIDE and width <= MAX_SIZE[0] and height <= MAX_SIZE[1]
    # The mp4 encoder silently crops odd sizes, so they are refused here.
    if not valid or width % 2 or height % 2:
        raise UserError(
            f"--size must be WIDTHxHEIGHT, even numbers, from {MIN_SIDE}x{MIN_SIDE} to "
            f"{MAX_SIZE[0]}x{MAX_SIZE[1]}, e.g. 1280x720; got {text!r}"
        )
    refused = frame_shape_refused(width, height)
    if refused is not None:
        raise UserError(f"--size {text}: {refused}")
    return width, height


def _settings(args: argparse.Namespace) -> SimulationSettings:
    if args.seed < 0:  # numpy's generators take none
        raise UserError(f"--seed must be 0 or more, got {args.seed}")
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        raise UserError(f"--players must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {args.players}")
    for name in ("race_rate", "mistake_rate"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            raise UserError(f"--{name.replace('_', '-')} must be between 0 and 1")
    # NaN and infinity pass a plain "> 0" and then break the frame count.
    if not (math.isfinite(args.fps) and MIN_FPS <= args.fps <= MAX_FPS):
        raise UserError(f"--fps must be {MIN_FPS:g} to {MAX_FPS:g}, got {args.fps:g}")
    if args.seconds is not None:
        if not (math.isfinite(args.seconds) and 0 < args.seconds <= MAX_ROUND_S):
            raise UserError(
                f"--seconds must be more than 0 and at most {MAX_ROUND_S:g}, got {args.seconds:g}"
            )
        if frames_in(args.seconds, args.fps) < 1:  # as the simulation counts its frames
            raise UserError(
                f"--seconds {args.seconds:g} at --fps {args.fps:g} is less than one frame; "
                f"give --seconds {1 / args.fps:g} or more"
            )
    return SimulationSettings(
        players=args.players,
        seed=args.seed,
        fps=args.fps,
        seconds=args.seconds,
        race_rate=args.race_rate,
        mistake_rate=args.mistake_rate,
        options=RuleOptions(),
    )


def _designs(args: argparse.Namespace) -> tuple[list[CardDesign], list[BackDesign]]:
    """The card designs (one for all seats, or one a seat) and each seat's back, as --deck and
    --backs give them; a `UserError` naming a count or a file that does not fit."""
    players = args.players
    folders = args.deck or []
    if len(folders) not in (0, 1, players):
        raise UserError(
            f"give one --deck for all seats or one per seat ({players}), not {len(folders)}"
        )
    if args.backs and len(args.backs) != players:
        raise UserError(f"give one back per seat: {players} --backs, not {len(args.backs)}")
    for path in [*folders, *(Path(spec) for spec in args.backs or [])]:
        refuse_name_not_utf8(path)  # read by OpenCV
    try:
        decks = [load_design(folder) for folder in folders] or [builtin_design()]
        backs = (
            [back_from_spec(spec) for spec in args.backs] if args.backs else default_backs(players)
        )
    except (OSError, DesignError) as error:
        raise UserError(str(error)) from None
    names = [back.name for back in backs]
    files = [Path(spec) for spec in args.backs or [] if Path(spec).is_file()]
    same_stem = [p for p in files if any(o.stem == p.stem and o != p for o in files)]
    if same_stem:  # two files, one name: a back is named by its file's stem
        raise UserError(
            f"{' and '.join(map(str, same_stem))} would be backs of one name, "
            f"{same_stem[0].stem!r} (a back is named by its file, less its extension): rename "
            "one of them"
        )
    if len(set(names)) != len(names):
        raise UserError(
            f"every seat needs a different back, got {', '.join(names)} (a back is named by its "
            "colour or its file, whatever its pattern: give each seat another)"
        )
    return decks * players if len(decks) == 1 else decks, backs


def written_files(no_video: bool) -> tuple[str, ...]:
    """The names `run` writes in its --out folder."""
    return (TRUTH_FILE,) if no_video else (TRUTH_FILE, VIDEO_FILE)


def make_out_dir(out: Path, files: tuple[str, ...] = ()) -> None:
    """Makes the --out folder, or says why it cannot, before any long work starts; `files`,
    the names the command will write in it, must not be folders."""
    if VIDEO_FILE in files:  # the video writer is OpenCV's
        refuse_name_not_utf8(out)
    make_folder(out)
    for name in files:
        if (out / name).is_dir():
            raise UserError(f"cannot write {out / name}: it is a folder")
    video = out / VIDEO_FILE
    # Footage is told as a round simulated here by the truth written beside it: a camera's own
    # recording, or any other video.mp4 in the folder, is not filmed over, nor given a truth
    # that would let a later run film over it.
    if video.is_file() and not holds_events(out / TRUTH_FILE):
        harm = (
            "filming would replace it"
            if VIDEO_FILE in files
            else f"a {TRUTH_FILE} written beside it would make it look so"
        )
        truth = out / TRUTH_FILE
        beside = (
            f"the {TRUTH_FILE} beside it is empty, as a run stopped before its first event "
            "leaves it (killed, or on a full disk)"
            if truth.is_file() and truth.stat().st_size == 0
            else f"no {TRUTH_FILE} of table events beside it"
        )
        raise UserError(
            f"{video} is not footage of a round simulated here ({beside}): {harm}; give another "
            "--out, or remove it first"
        )


VIDEO_ONLY_OPTIONS = ("size", "table", "deck")
"""Options that change only the video (the round played is the same), by dest: given with
--no-video, they do nothing."""


def _tell_unused_by_truth(args: argparse.Namespace) -> None:
    parser: argparse.ArgumentParser = args.command_parser
    given = [
        f"--{dest}"
        for dest in VIDEO_ONLY_OPTIONS
        if getattr(args, dest) != parser.get_default(dest)
    ]
    if given:
        log.warning(
            "%s change%s only the video, and --no-video writes none: ignored",
            ", ".join(given),
            "s" if len(given) == 1 else "",
        )


def run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    size = _size(args.size)
    decks, backs = _designs(args)
    make_out_dir(args.out, written_files(args.no_video))
    if args.no_video:
        _tell_unused_by_truth(args)
    if args.no_video and (args.out / VIDEO_FILE).exists():
        log.warning(
            "%s is left from an earlier run: it does not show this round", args.out / VIDEO_FILE
        )
    settings = dataclasses.replace(settings, backs=tuple(b.name for b in backs))
    simulation = RoundSimulation(settings)
    renderer = None
    if not args.no_video:
        render_settings = RenderSettings(
            size=size, table=args.table, table_mm=simulation.geometry.table_mm, seed=args.seed
        )
        renderer = TableRenderer(render_settings, decks, backs)
    referee = GameReferee(settings.options)
    total = frames_in(settings.seconds, settings.fps) if settings.seconds else None
    frames = tqdm(
        simulation.frames(with_scenes=renderer is not None),
        total=total,
        unit=" frames",
        desc="simulating",
        disable=not sys.stderr.isatty(),
    )
    video = VideoSink(args.out / VIDEO_FILE, settings.fps, size) if renderer else None
    with EventWriter(args.out / TRUTH_FILE) as truth, contextlib.ExitStack() as recording:
        recording.enter_context(frames)  # the bar cleared before anything is told after
        if video is not None:
            try:
                recording.enter_context(video)
            except OSError as error:
                raise UserError(
                    f"{error}: try another --size or --fps, or check the folder is writable"
                ) from None
        try:
            for state in frames:
                for event in state.events:
                    truth.write_all(referee.feed(event))
                if video is not None and renderer is not None and state.scene is not None:
                    video.write(renderer.render(state.scene, state.frame))
        except KeyboardInterrupt:
            kept = f"{args.out / TRUTH_FILE}" + ("" if video is None else f" and {video.path}")
            # The video's own count: a stop between a frame's writing and the next frame's
            # start leaves the simulation a frame behind what was filmed.
            played = simulation.frames_played if video is None else video.frames_written
            log.warning("stopped after %d frames: the round so far is kept in %s", played, kept)
            # The frame the referee holds is written where it was filmed (a stop while it was
            # drawn leaves it out of the video, so out of the truth); after any other failure
            # (a full disk) writing more would only hide what went wrong.
            filmed = [e for e in referee.finish() if video is None or e.frame < played]
            truth.write_all(filmed)
            raise
        truth.write_all(referee.finish())
    played = simulation.frames_played
    sys.stdout.write(f"simulated {played / settings.fps:.1f} s of play ({played} frames)\n")
    if args.seconds is None and played >= frames_in(MAX_ROUND_S, settings.fps):
        log.warning(
            "the round was cut at the %g s cap: the bots neither called Nerts nor got stuck",
            MAX_ROUND_S,
        )
    if video is not None:
        sys.stdout.write(f"video: {args.out / VIDEO_FILE}\n")
    events = "event" if truth.count == 1 else "events"
    sys.stdout.write(f"truth: {args.out / TRUTH_FILE} ({truth.count} {events})\n")
    return 0
