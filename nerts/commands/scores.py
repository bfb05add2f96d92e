"""`nerts scores`: the running score sheet of a game, kept as an append-only journal file."""

from __future__ import annotations

import argparse
import json
import logging
import secrets
import sys
from pathlib import Path
from shlex import quote
from typing import Any

from nerts.errors import (
    DISK_FULL_ERRNOS,
    FAILURE_STATUS,
    UserError,
    file_argument,
    make_folder,
    shown_name,
    stdout_to_devnull,
)
from nerts.eventlog import blank_line, streamed
from nerts.logged_rounds import (
    LoggedRound,
    logged_points,
    not_yet_scored,
    read_logged_games,
    refuse_another_game,
    rounds_of_game,
)
from nerts.sheets import (
    append_entries,
    file_fingerprint,
    format_sheet,
    game_over_warning,
    refuse_scoring_twice,
    sheet_to_change,
    source_name,
    start_sheet,
)
from referee.errors import RefereeInputError
from referee.numbers import PLAIN_DIGITS_MAX, plain_number
from referee.options import DEFAULT_TARGET_SCORE, TARGET_SCORE_MAX
from referee.scoresheet import (
    ROUND_POINTS_MAX,
    Scoresheet,
    control_character,
)

DESCRIPTION = """\
Keeps a game's score sheet in GAME, a JSON Lines journal: every round added, undone or corrected
is appended as one line, so nothing is ever overwritten and every correction stays visible.

actions:
  new --players NAME NAME...   start a sheet (seats 0, 1, ... in that order: seat 0 is the
                               player at the bottom edge of the camera's image, then
                               clockwise as the image shows them)
  add SEAT=POINTS ...          append a round (SEAT is a seat number or a player's name;
                               --photo IMAGE: the photo it was counted from)
  add --from EVENTS.jsonl      append every round a refereed events file scored (--game N:
                               those of its Nth game, where it holds more than one)
  undo                         take back the last round added, all the rounds of the
                               last 'add --from', or the last target change (undo is not for
                               a fix: to take back a fix, fix the round again)
  fix ROUND SEAT=POINTS ...    correct one round's numbers
  target N                     change the score that ends the game (a house rule agreed
                               during it); who won, and in which round, follow it
  show                         the sheet with running totals (the default)

A file scored once (an events file here, a photo with 'nerts count --sheet') is known by its
bytes, whatever its name: scoring it again is refused. A log's rounds are also known as
themselves (by their deal and their Nerts call): a log grown since, a copy, or the log refereed
again adds only its rounds not yet on the sheet, and names those left out.
"""
EPILOG = """\
examples:
  nerts scores club.jsonl new --players Anna Ben Cleo --target 150
  nerts scores club.jsonl add Anna=12 Ben=2 Cleo=-6
  nerts scores club.jsonl fix 1 Ben=4
  nerts scores club.jsonl target 200
  nerts scores club.jsonl add --from events.jsonl
"""
ACTIONS = ("show", "new", "add", "undo", "fix", "target")
log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "scores",
        help="keep a game's score sheet across rounds: add, undo, correct, show",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "game", type=file_argument, metavar="GAME", help="the score sheet file (.jsonl)"
    )
    # Checked in `run`, not by argparse, to say when the file and the action are swapped.
    parser.add_argument("action", nargs="?", metavar="{" + ",".join(ACTIONS) + "}")
    parser.add_argument(
        "values",
        nargs="*",
        default=[],
        metavar="ARG",
        help="SEAT=POINTS, ROUND for fix, or N for target",
    )
    parser.add_argument(
        "--players", nargs="+", action="extend", metavar="NAME", help="for new: the player names"
    )
    parser.add_argument(
        "--target",
        type=int,
        metavar="N",
        help=f"for new: the score that ends the game (default {DEFAULT_TARGET_SCORE})",
    )
    parser.add_argument(
        "--from",
        dest="from_events",
        type=file_argument,
        metavar="EVENTS.jsonl",
        help="for add: take the rounds from a refereed events file",
    )
    parser.add_argument(
        "--photo",
        type=file_argument,
        metavar="IMAGE",
        help="for add SEAT=POINTS: the photo the round was counted from, kept with it, so that "
        "'nerts count IMAGE --sheet' refuses to score it again (as count's own rounds are)",
    )
    parser.add_argument(
        "--game",
        dest="game_number",
        type=_game_number,
        metavar="N",
        help="for add --from: the log's Nth game, where it holds more than one (the referee "
        "starts a new game after one ends: a sheet keeps one game)",
    )
    parser.set_defaults(handler=run, take_loose_words=_take_loose_words)


def _take_loose_words(args: argparse.Namespace, words: list[str]) -> None:
    """Words argparse left over after an option ('add --photo IMG Anna=3 Ben=1': it reads
    positionals in one run, before the option): the action, where none was read, then its
    values, in the order given."""
    if args.action is None:
        args.action, *words = words
    args.values = [*args.values, *words]


def _game_number(text: str) -> int:
    number = plain_number(text)
    if number is None or number < 1:
        raise argparse.ArgumentTypeError(f"give a game's number from 1, got {text!r}")
    return number


CHANGE_NAME_BYTES = 6
"""Random bytes naming the change that added a log's rounds together: two adds side by side
never share one."""


def run(args: argparse.Namespace) -> int:
    if args.action is None:  # none given: 'show', unless --players took it for a name
        _refuse_action_taken_for_a_player(args.game, args.players or [])
        args.action = "show"
    _check_order(args.game, args.action)
    taken_back = target_was = ""
    try:
        if args.action == "new":
            sheet = _new(args)
        else:
            with sheet_to_change(args.game) as sheet:
                if args.action == "undo" and (sheet.rounds or sheet.targets_before):
                    taken_back = _change_said(sheet)
                    fixed = sheet.fixed_last
                    # A fix of a round taken back goes with it; a fix of another stays.
                    if fixed is not None and fixed not in sheet.last_change():
                        taken_back += (
                            f"; the fix of round {fixed} made after it stays (undo "
                            "takes back rounds and targets: fix it again to change it)"
                        )
                target_was = str(sheet.target)
                _change(args, sheet)
    except RefereeInputError as error:
        raise UserError(f"{args.game}: {error}") from None
    try:
        if taken_back:  # what undo took back: one round, or the rounds of one log
            sys.stdout.write(f"took back {taken_back}\n")
        if args.action == "target":
            sys.stdout.write(f"target changed from {target_was} to {sheet.target}\n")
        sys.stdout.write(format_sheet(sheet))
        sys.stdout.flush()
    except OSError as error:
        if error.errno not in DISK_FULL_ERRNOS or args.action in ("show", "new"):
            raise
        # The change is on the sheet: run again, it would be made twice.
        stdout_to_devnull()
        log.error(
            "cannot write the output (%s), but the %s is on %s all the same: run again, it "
            "would be made twice ('nerts scores %s' shows the sheet)",
            error.strerror,
            args.action,
            args.game,
            quote(str(args.game)),
        )
        return FAILURE_STATUS
    return 0


def _change_said(sheet: Scoresheet) -> str:
    """What `undo` takes back: "round 5 (Anna 12, Ben -4)", "rounds 2 to 5 (added together
    from events.jsonl)", or "the target change: the target is 100 again"."""
    target = sheet.target_undone()
    if target is not None:
        return f"the target change: the target is {target} again"
    rounds = sheet.last_change()
    if len(rounds) == 1:
        return _round_said(sheet, rounds.start)
    origin = sheet.origins[rounds.start - 1]
    source = f" from {origin.source}" if origin is not None else ""
    return f"rounds {rounds.start} to {rounds.stop - 1} (added together{source})"


def _round_said(sheet: Scoresheet, number: int) -> str:
    """Round `number` (from 1) of the sheet as its points: "round 2 (Anna 12, Ben -4)"."""
    points = sheet.rounds[number - 1]
    return (
        f"round {number} ("
        + ", ".join(
            f"{sheet.players.get(seat, seat)} {value}" for seat, value in sorted(points.items())
        )
        + ")"
    )


def _refuse_action_taken_for_a_player(game: Path, players: list[str]) -> None:
    """A `UserError` where no action was given and --players took the last word for a name,
    which is an action ('nerts scores club.jsonl --players Anna Ben new')."""
    if players and players[-1] in ACTIONS and not game.exists():
        named = " ".join(quote(name) for name in players[:-1]) or "NAME NAME ..."
        raise UserError(
            f"--players took {players[-1]!r} for a player: put the action before it: nerts "
            f"scores {quote(str(game))} {players[-1]} --players {named}"
        )


def _check_order(game: Path, action: str) -> None:
    """A `UserError` that says what was meant when the sheet is missing or comes after the
    action ('nerts scores new club.jsonl ...', 'nerts scores add Anna=3')."""
    looks_like_sheet = action.endswith(".jsonl") or Path(action).is_file()
    if str(game) in ACTIONS and not game.exists():
        if looks_like_sheet:
            raise UserError(
                "the sheet comes first, then the action: nerts scores "
                f"{quote(action)} {quote(str(game))} ..."
            )
        raise UserError(f"give the sheet first: nerts scores GAME.jsonl {game} ...")
    if action not in ACTIONS:
        points = (
            f" (points go in with add: nerts scores {quote(str(game))} add {quote(action)} ...)"
        )
        raise UserError(
            f"unknown action {action!r}: choose from {', '.join(ACTIONS)}"
            + (points if "=" in action else "")
        )


def _new(args: argparse.Namespace) -> Scoresheet:
    if args.game.exists() and not args.game.is_file():
        raise UserError(f"{args.game} already exists and is no file; choose another name")
    if args.game.is_file() and not blank_line(args.game.read_bytes()):  # checked again, locked
        raise UserError(f"{args.game} already exists; choose another name or delete it first")
    if not args.players or len(args.players) < 2:
        raise UserError("new needs --players with at least two names")
    for name in args.players:
        if shown_name(name) != name:  # bytes from another system: the sheet is UTF-8 text
            raise UserError(
                f"a player's name '{shown_name(name)}' is not UTF-8 text (typed in another "
                "encoding?): type it again"
            )
        control = control_character(name)
        if control is not None:  # printed, it would tear the tables or drive the terminal
            raise UserError(f"a player's name {name!r} holds the control character {control}")
        if "=" in name:  # points are given as NAME=POINTS: such a name could not be scored
            raise UserError(f"a player's name cannot hold '=': {name!r}")
    if args.from_events:
        raise UserError("--from is for add: a new sheet starts without rounds")
    target = DEFAULT_TARGET_SCORE if args.target is None else args.target
    entry = {"type": "game", "players": dict(enumerate(args.players)), "target": target}
    sheet = Scoresheet.from_journal([json.loads(json.dumps(entry))])
    make_folder(args.game.parent)
    start_sheet(args.game, entry)
    return sheet


def _change(args: argparse.Namespace, sheet: Scoresheet) -> Scoresheet:
    if args.action in ("show", "undo") and args.values:
        raise UserError(f"{args.action} takes no values, got {' '.join(args.values)}")
    if args.players or args.target is not None:
        raise UserError(
            "--players and --target are for new: a sheet's players are set when it is started; "
            f"its target is changed with: nerts scores {quote(str(args.game))} target N"
        )
    if args.from_events and args.action != "add":
        raise UserError(f"--from is for add, not {args.action}")
    if args.photo is not None and (args.action != "add" or args.from_events):
        raise UserError("--photo is for add SEAT=POINTS: the photo a round was counted from")
    if args.game_number is not None and not args.from_events:
        raise UserError("--game picks a game of the log given by --from: give it too")
    if args.action == "add" and args.from_events and args.values:
        raise UserError("add takes either --from EVENTS.jsonl or SEAT=POINTS, not both")
    if args.from_events is not None and (
        streamed(args.from_events)
        or (str(args.from_events) == "-" and not args.from_events.exists())
    ):
        # A sheet keeps the bytes of the file each round came from, so that it is not scored
        # twice: a pipe's are gone once read.
        raise UserError(
            f"--from takes the refereed log's file, not a stream ({args.from_events}): write it "
            "with nerts referee ... --out EVENTS.jsonl, then add --from EVENTS.jsonl"
        )
    entries: list[dict[str, Any]] = []
    rounds: list[LoggedRound] = []  # those of a log, with --from
    if args.action == "add" and args.from_events:
        games, refereed, read = read_logged_games(args.from_events)
        if not read:
            raise UserError(f"{args.from_events} holds no events: nothing to add")
        if not games and refereed:
            raise UserError(
                f"{args.from_events}: no round ended in this log (it stops before a valid Nerts "
                "call or a final stuck): nothing to add yet"
            )
        if not games:
            raise UserError(
                f"{args.from_events}: no round_end in this events file; a log not yet "
                f"refereed has none: nerts referee {quote(str(args.from_events))} --out "
                "EVENTS.jsonl writes one with them"
            )
        rounds = rounds_of_game(games, args.from_events, args.game_number)
        seats = sorted({seat for logged in rounds for seat in logged.end.scores})
        # A player of the sheet may sit the log's rounds out (0 each, warned of); a seat of the
        # log not on the sheet would be scored to nobody.
        if not set(seats) <= set(sheet.players):
            players = ", ".join(f"{seat}={name}" for seat, name in sheet.players.items())
            raise UserError(
                f"{args.from_events} scores seats {', '.join(map(str, seats))}, but {args.game} "
                f"has players {players}: add its rounds to a sheet of its own seats"
            )
        refuse_another_game(sheet, args.game, args.from_events, games, args.game_number or 1)
        source = _scored_from(sheet, args.game, args.from_events)
        rounds = not_yet_scored(sheet, args.game, args.from_events, rounds)
        # One change: undo takes a log's rounds back together, as they were added.
        change = {"change": secrets.token_hex(CHANGE_NAME_BYTES)} if len(rounds) > 1 else {}
        for end, identity, _ in rounds:
            points = {str(seat): value for seat, value in logged_points(end).items()}
            # A player who joined later, or sat a round out, was not dealt in: no points then.
            absent = [seat for seat in sheet.players if str(seat) not in points]
            if absent:
                names = ", ".join(sheet.players[seat] for seat in absent)
                log.warning(
                    "%s: round %d: %s not dealt in: 0 points", args.from_events, end.round, names
                )
                points |= {str(seat): 0 for seat in absent}
            ended = {"ended": identity}
            entries.append({"type": "round", "scores": points, **source, **ended, **change})
    elif args.action == "add":
        photo = {} if args.photo is None else _scored_from(sheet, args.game, args.photo)
        entries.append({"type": "round", "scores": _seat_points(args.values), **photo})
    elif args.action == "undo":
        entries.append({"type": "undo"})
    elif args.action == "target":
        entries.append(_target_change(args.values, sheet.target))
    elif args.action == "fix":
        round_number = plain_number(args.values[0]) if args.values else None
        if round_number is None and args.values and _many_digits(args.values[0]):
            raise UserError(f"no round {args.values[0]} (the sheet has {sheet.rounds_held()})")
        if round_number is None:
            raise UserError("fix needs the round number first, e.g. 'fix 2 Ben=4'")
        entry = {"type": "fix", "round": round_number}
        entries.append({**entry, "scores": _seat_points(args.values[1:])})
    over = None  # said of the first round added to a game already won (--from: any of them)
    for entry in entries:
        if args.action == "add" and over is None:
            over = game_over_warning(sheet)
            where = f"round {len(sheet.rounds) + 1}: " if len(entries) > 1 else ""
        sheet.apply(entry)  # raises before anything is written when an entry does not fit
    append_entries(args.game, entries)
    backs = {seat: back for logged in reversed(rounds) for seat, back in logged.backs.items()}
    if args.action == "add" and args.from_events and backs:
        # Names typed in another order than the seats would score each round to the wrong player.
        named = ", ".join(
            f"seat {seat} ({backs[seat]}) is {sheet.players[seat]}"
            for seat in sorted(backs)
            if seat in sheet.players
        )
        sys.stdout.write(f"{source_name(args.from_events)}: {named}\n")
    if over is not None:
        log.warning("%s%s", where, over)
    return sheet


def _scored_from(sheet: Scoresheet, sheet_path: Path, source: Path) -> dict[str, str]:
    """The keys a round keeps of the file it was scored from (an events log, a photo), so that
    scoring that file again is refused; refused here if it was scored already."""
    fingerprint = file_fingerprint(source)
    refuse_scoring_twice(sheet, sheet_path, source, fingerprint)
    return {"source": source_name(source), "fingerprint": fingerprint}


USUAL_ROUND_POINTS = (-26, 64)
"""What one seat usually scores in a round (a 13-card Nerts pile left; a deck of 54 cards, jokers
in, in the centre, with a +10 house bonus for the call): points beyond are added with a
warning, as a handicap's larger Nerts pile or another house bonus may score them."""


def _target_change(values: list[str], target: int) -> dict[str, Any]:
    """The journal entry of `target N`; a `UserError` unless one whole number is given, other
    than the sheet's `target` (checked against the highest target as the entry is applied)."""
    number = plain_number(values[0]) if len(values) == 1 else None
    if number is None and len(values) == 1 and _many_digits(values[0]):
        raise UserError(f"target must be at most {TARGET_SCORE_MAX} (a typo?), got {values[0]}")
    if number is None:
        got = f", got {' '.join(values)}" if values else ""
        raise UserError(f"target takes the new target score, e.g. 'target 150'{got}")
    if number == target:
        raise UserError(f"the target is {target} already: nothing changed")
    return {"type": "target", "target": number}


def _many_digits(text: str) -> bool:
    """Whether `text` is a whole number written plainly, but longer than any a sheet holds."""
    return len(text) > PLAIN_DIGITS_MAX and text.isascii() and text.isdigit()


def _seat_points(values: list[str]) -> dict[str, int]:
    points: dict[str, int] = {}
    for value in values:
        seat, sep, number = value.partition("=")
        if seat in points:
            raise UserError(f"{seat} is given twice")
        given = plain_number(number, signed=True)
        if (
            given is None
            and sep
            and seat
            and _many_digits(number[1:] if number[:1] in ("+", "-") else number)
        ):
            given = ROUND_POINTS_MAX + 1  # told as beyond a round's points, below
        if given is None or not sep or not seat:
            raise UserError(f"expected SEAT=POINTS (e.g. 0=12 or Anna=-4), got {value!r}")
        points[seat] = given
        if abs(given) > ROUND_POINTS_MAX:
            raise UserError(
                f"{value!r}: a round's points lie within -{ROUND_POINTS_MAX} to "
                f"{ROUND_POINTS_MAX} (a typo?)"
            )
        if not USUAL_ROUND_POINTS[0] <= given <= USUAL_ROUND_POINTS[1]:
            log.warning(
                "%s: beyond what one round usually scores (%d to %d: a Nerts pile of 13 left, "
                "a deck with jokers in the centre and a +10 bonus): a typo? Kept; "
                "'undo' or 'fix' changes it",
                value,
                *USUAL_ROUND_POINTS,
            )
    if not points:
        raise UserError("give the points as SEAT=POINTS, e.g. 0=12 1=-4")
    return points
