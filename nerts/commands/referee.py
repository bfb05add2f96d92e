"""`nerts referee`: re-decides every verdict of a table-event log and prints the scoreboard."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import logging
import math
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from tqdm import tqdm

from hardware.announce import BoxAnnouncer
from nerts.commands.box import refuse_no_device
from nerts.errors import (
    FAILURE_STATUS,
    UserError,
    file_argument,
    refuse_overwriting,
)
from nerts.eventlog import STANDARD_INPUT, EventWriter, log_name, read_numbered_events, streamed
from nerts.live import LIVE_BANNER, NertsButtons, SaidAtOnce, tell_presses_ignored
from nerts.scoreboard import format_scoreboard
from referee.errors import EventError, RefereeInputError
from referee.event_parsing import EVENT_TYPES
from referee.events import Event, GameEnd, NertsCall, OtherEvent, RoundStart, Stuck
from referee.game import GameReferee
from referee.options import (
    CALLER_BONUS_MAX,
    DEFAULT_IN_AIR_GRACE_S,
    DEFAULT_TARGET_SCORE,
    RuleOptions,
)

log = logging.getLogger(__name__)

HELP = "re-decide every verdict of a table-event log (JSON Lines) and print the scoreboard"
DESCRIPTION = """\
Reads a log of table events (docs/contracts/events.md: the simulator's truth.jsonl, a replay's
events.jsonl, or a live log) and referees it again from scratch: verdicts in the input are
decided afresh (one not of the contract's words is refused, naming its line: the log is not
what it claims to be); round ends, completed piles and the game's end are worked out anew.
Prints a scoreboard, and with --out writes the full refereed events file. Feeding that output back
(with the same house rules: --target, --caller-bonus, --in-air-grace) gives the same verdicts
and scores; a log whose game ended where no one reaches this run's --target is warned of.
With --box, the exit status is 1 where the box did not show every announcement: not
acknowledged within --box-wait, refused, or for a seat the box lacks (the scoreboard is
printed all the same). On a live log ('-' or a FIFO), a seat's Nerts! button on the box is
that seat's Nerts call, in the frame being read when it is pressed: it is refereed and written
to --out as a nerts_call of the log would be (a recorded file is read too fast for a press to
have a frame: ignored, with a warning). What cannot happen but a camera may report (a card
played while it lies on a foundation, a take-back of a card not on top of its pile, an event
of a seat not dealt in, a count of more cards than a Nerts pile held) is warned of by its line
and ignored, and refereeing goes on.

A frame is decided once an event of a later frame arrives, as more events of it may still come.
A live log (LOG '-', piped in, or a FIFO) whose writer sends events only when something
happens would hold a late play's buzz until the next event: such a writer should send a line
for every frame, of a type of its own (e.g. {"frame": 1234, "t": 41.13, "type": "tick"}),
which the referee ignores but which decides the frames before it. As a live log is refereed,
--out is written as each frame is decided (a tool may follow it); each late, illegal or tied
play, Nerts call, round end and game end is printed once decided; and -vv logs every decided
event. Ctrl-C ends a live log: the frames read are decided and the scoreboard printed. A line
that cannot be refereed (not JSON, out of frame order) ends the run with status 2, naming it;
the frames before it are decided and written to --out first.
"""
BOX_WAIT_DEFAULT_S = 10.0
"""How long the box is waited for once the log is refereed: a sound link acknowledges a round's
announcements in a fraction of a second, while a noisy one resends each garbled line after
250 ms (the emulator's bad cable, 2% of bytes corrupted, took 5 s for the example game's 32)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "referee",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "log",
        type=_log_path,
        metavar="LOG.jsonl",
        help="table events, frame order; - reads them from standard input (a log piped in)",
    )
    parser.add_argument(
        "--out", type=_out_path, metavar="EVENTS.jsonl", help="write refereed events"
    )
    parser.add_argument(
        "--box",
        metavar="URL",
        help="announce verdicts on the referee box (/dev/ttyUSB0, socket://host:port, auto)",
    )
    parser.add_argument(
        "--box-wait",
        type=_seconds,
        metavar="S",
        help="once the log is refereed, wait up to S seconds for the box to acknowledge what it "
        f"was told (default {BOX_WAIT_DEFAULT_S:g}; Ctrl-C stops waiting)",
    )
    add_rule_options(parser)
    parser.set_defaults(handler=run)


BOX_WAIT_MAX_S = 3600.0
"""An hour: longer is surely a slip (and threading's waits refuse far larger numbers)."""


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= BOX_WAIT_MAX_S:  # NaN too
        raise argparse.ArgumentTypeError(
            f"give seconds from 0 to {BOX_WAIT_MAX_S:g}, e.g. 10; got {text!r}"
        )
    return value


def _log_path(text: str) -> Path:
    if text != "-":
        return file_argument(text)
    if not STANDARD_INPUT.exists():
        raise argparse.ArgumentTypeError("- (standard input) cannot be read here: give the file")
    return STANDARD_INPUT


def _out_path(text: str) -> Path:
    if text == "-":  # not standard output, which the scoreboard is printed on
        raise argparse.ArgumentTypeError(
            "'-' would be standard output, where the scoreboard is printed: name a file"
        )
    return file_argument(text)


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    rules = parser.add_argument_group("house rules")
    rules.add_argument(
        "--target",
        type=int,
        default=DEFAULT_TARGET_SCORE,
        metavar="N",
        help=f"the game ends when a seat reaches N points (default {DEFAULT_TARGET_SCORE})",
    )
    rules.add_argument(
        "--caller-bonus",
        type=int,
        default=0,
        metavar="N",
        help=f"points for a valid Nerts call, 0 to {CALLER_BONUS_MAX} (default 0; a common "
        "house rule is 10)",
    )
    rules.add_argument(
        "--in-air-grace",
        type=float,
        default=DEFAULT_IN_AIR_GRACE_S,
        metavar="S",
        help="seconds after a Nerts call in which cards already in the air still count "
        f"(default {DEFAULT_IN_AIR_GRACE_S})",
    )


def rule_options(args: argparse.Namespace) -> RuleOptions:
    try:
        return RuleOptions(
            target_score=args.target,
            caller_bonus=args.caller_bonus,
            in_air_grace_s=args.in_air_grace,
        )
    except RefereeInputError as error:
        raise UserError(str(error)) from None


class RefereeingInterrupted(KeyboardInterrupt):
    """Ctrl-C while a log was read: `decided` holds what was decided up to there (the frame
    being read decided too, as at the log's end, unless it came while a frame was judged)."""

    def __init__(self, decided: list[Event]) -> None:
        super().__init__()
        self.decided = decided


def referee_log(
    log_path: Path,
    out_path: Path | None,
    options: RuleOptions,
    box: BoxAnnouncer | None = None,
    tell: Callable[[Event], None] | None = None,
    *,
    live: bool | None = None,
) -> list[Event]:
    """Referees a whole log; the events file is written as it goes, so an error keeps the rest.

    With `box` (not started), every decided event is also announced on the referee box (queued,
    so the referee never waits for the box); it is started and closed here. `tell` hears each
    decided event as it is decided (a live log's players are told what matters at once).
    `live`: whether the log is being played now (None: if it is no regular file, but piped
    in or a FIFO), so that a Nerts! button pressed belongs to the frame being read; a recorded
    log is read far faster than it was played, and its presses are told and ignored.

    Returns the events decided; of those of a type the referee does not know (a tick a
    frame), only the last, where it is the last event."""
    referee = GameReferee(options)
    decided: list[Event] = []
    last_other: list[Event] = []  # the last event decided, where it is of a type not refereed
    name = log_name(log_path)
    events: Iterator[tuple[int, Event]] = read_numbered_events(log_path)
    # The log's first event is read before --out is replaced: a mistyped log name, or a score
    # sheet given as the log, must not cost the events an earlier run wrote there.
    first = next(events, None)
    if first is None:  # and no --out is made: an empty one would look refereed
        raise UserError(f"{name} holds no events: nothing to referee")
    events = itertools.chain([first], events)
    # Only on a terminal: a disabled bar still costs a generator step per event.
    progress = (
        tqdm(events, unit=" events", desc="refereeing", leave=False)
        if sys.stderr.isatty()
        else None
    )
    events = events if progress is None else progress
    with (
        EventWriter(out_path) as writer,
        box or contextlib.nullcontext(),
        # Closed on leaving, so that an error told after is not written onto the bar.
        contextlib.nullcontext() if progress is None else progress,
    ):
        deals = _DealOrder(name)

        debugging = log.isEnabledFor(logging.DEBUG)

        def publish(out: Event, called: set[int]) -> None:
            """`called`: the frames of the decisions at hand holding a valid Nerts call."""
            writer.write(out)
            if isinstance(out, OtherEvent):
                # Kept alone: a camera's tick a frame is 60 MB an hour of a live evening, and
                # the scoreboard needs only the last event's frame and time.
                last_other[:] = [out]
            else:
                decided.append(out)
                last_other.clear()
            deals.decided(out)
            if debugging:  # not to build a dict per event of a long log for nothing
                log.debug("decided: %s", out.to_dict())
            if tell is not None:
                tell(out)
            # A stuck listed before a valid call of its frame was judged after it, and ended
            # nothing: the box, told in the log's order, would buzz it.
            if box is not None and not (isinstance(out, Stuck) and out.frame in called):
                box.announce(out.to_dict())

        held: list[tuple[Event, int]] = []  # the events not yet decided, with their lines
        logged_end: int | None = None  # the line of the log's own first game end, if any
        reading, interrupted, judged_whole = iter(events), False, True
        # A line the log cannot be read past: the frames before it are still decided and
        # written, as at the log's end, before it is told.
        stopped_by: UserError | None = None
        known_read = False  # whether any event read is of a type the referee knows
        if live is None:
            live = streamed(log_path)  # not a file recorded, also when given with '<'
        buttons = None if box is None or not live else NertsButtons(box)
        while True:
            try:
                numbered = next(reading, None)
            except KeyboardInterrupt:  # a live log stopped with Ctrl-C: as if it ended here
                interrupted = True
                break
            except UserError as error:  # a line that is no event
                stopped_by = error
                break
            if numbered is None:
                break
            line_number, event = numbered
            known_read = known_read or not isinstance(event, OtherEvent)
            held.append((event, line_number))
            deals.read(event, line_number)
            if logged_end is None and isinstance(event, GameEnd):
                logged_end = line_number
            try:
                decisions = buttons.calls_before(event, referee) if buttons else []
                try:
                    decisions += referee.feed(event)
                except RefereeInputError as error:
                    stopped_by = UserError(f"{_where(name, error, held)}: {error}")
                    break
                _tell_ignored(referee, name, held)
                if held[0][0].frame != event.frame:  # the frames before it are decided now
                    held = [held[-1]]
                called = _valid_calls(decisions)
                for out in decisions:
                    publish(out, called)
                if decisions and live:  # for a tool following --out as the game is played
                    writer.flush()
            except KeyboardInterrupt:  # mid-judgement: what was decided stands, no more
                interrupted, judged_whole = True, False
                break
        if judged_whole:
            finished = buttons.calls_before(None, referee) if buttons else []
            try:
                finished += referee.finish()
            except RefereeInputError as error:  # the log's last frame, decided once it ends
                # After an error, the frame that raised it may raise it again: told once.
                stopped_by = stopped_by or UserError(f"{_where(name, error, held)}: {error}")
            _tell_ignored(referee, name, held)
            called = _valid_calls(finished)
            for out in finished:
                publish(out, called)
        if box is not None and buttons is None:
            tell_presses_ignored(box, name)
    if not known_read and stopped_by is None and not interrupted:  # the whole log was read
        log.warning(
            "%s: no event in it is of a type the referee knows (%s): nothing was refereed",
            name,
            ", ".join(sorted(EVENT_TYPES)),
        )
    if stopped_by is not None:
        raise stopped_by
    if interrupted:
        raise RefereeingInterrupted(decided + last_other)
    if logged_end is not None and not any(isinstance(out, GameEnd) for out in decided):
        log.warning(
            "%s:%d: the log's game ends here, but no one reaches --target %d: give the target "
            "it was played to (--target N)",
            name,
            logged_end,
            options.target_score,
        )
    return decided + last_other


def _valid_calls(decided: list[Event]) -> set[int]:
    """The frames of `decided` that hold a valid Nerts call."""
    return {event.frame for event in decided if isinstance(event, NertsCall) and event.valid}


def _warn_of_shared_backs(deal: RoundStart, where: str) -> None:
    """Each deck's back differs from every other at the table (RULES.md): seats dealt one back
    are warned of, as their cards cannot be told apart when the round is counted by back."""
    seats_of: dict[str, list[int]] = {}
    for info in deal.seats:
        seats_of.setdefault(info.back, []).append(info.seat)
    for back, seats in seats_of.items():
        if len(seats) > 1:
            log.warning(
                "%s: seats %s are dealt the same back %r: counted by back, their cards cannot "
                "be told apart (each deck's back must differ)",
                where,
                " and ".join(map(str, seats)),
                back,
            )


class _DealOrder:
    """Warns of a round dealt under a number no higher than the last one dealt in its game
    (a logger restarted, or a number typed twice): the referee plays it as a new round all
    the same. A game's end, the referee's or the log's own, starts the numbers again."""

    def __init__(self, log_name: str) -> None:
        self.log_name = log_name
        # The line of each deal read, by the event's id; the event is kept with it, so that
        # its id is not another's while the entry stands.
        self.lines: dict[int, tuple[Event, int]] = {}
        self.last: int | None = None  # the last round dealt in the game in play

    def read(self, event: Event, line: int) -> None:
        if isinstance(event, RoundStart):
            self.lines[id(event)] = (event, line)
            _warn_of_shared_backs(event, f"{self.log_name}:{line}")
        elif isinstance(event, GameEnd):  # the log's own: its next round 1 is a new game's
            self.last = None

    def decided(self, event: Event) -> None:
        if isinstance(event, GameEnd):
            self.last = None
        elif isinstance(event, RoundStart):
            read = self.lines.pop(id(event), None)
            line = None if read is None or read[0] is not event else read[1]
            if self.last is not None and event.round <= self.last:
                log.warning(
                    "%s: round %d is dealt after round %d of the same game (a logger "
                    "restarted?): refereed as a round of its own",
                    self.log_name if line is None else f"{self.log_name}:{line}",
                    event.round,
                    self.last,
                )
            self.last = event.round


def _tell_ignored(referee: GameReferee, log_name: str, held: list[tuple[Event, int]]) -> None:
    """Warns of each event just judged that the rules ignore as impossible, though the camera
    (or whoever wrote the log) saw it: a take-back of a card not on its pile, a play of a card
    already on a foundation, an event of a seat not dealt in, a count over a Nerts pile.
    Refereeing goes on: one misread must not end a live game's."""

    def where(about: Event) -> str:
        line = next((number for event, number in held if event is about), None)
        return log_name if line is None else f"{log_name}:{line}"

    for take_back in referee.pop_unmatched_take_backs():
        log.warning(
            "%s: seat %d's take_back of %s from pile %s took back nothing (no such card of "
            "theirs lies on top of that pile): ignored",
            where(take_back),
            take_back.seat,
            take_back.card,
            take_back.pile,
        )
    for repeated in referee.pop_repeated_plays():
        play = repeated.play
        log.warning(
            "%s: seat %d's %s played on pile %s already lies on pile %s, and a deck holds each "
            'card once: ignored (a misread card? a joker played for it needs "joker": true)',
            where(play),
            play.seat,
            play.card,
            play.pile,
            repeated.lies_on,
        )
    for impossible in referee.pop_impossible_events():
        log.warning(
            "%s: %s at frame %d: %s: ignored (a misread?)",
            where(impossible.event),
            impossible.event.type_name,
            impossible.event.frame,
            impossible.why,
        )


def _where(log_name: str, error: RefereeInputError, held: list[tuple[Event, int]]) -> str:
    """The file and line of the event the error is about: the referee decides a frame once
    the next one begins, so that is not always the line just read."""
    about = error.event if isinstance(error, EventError) else None
    for event, number in held:
        if event is about:
            return f"{log_name}:{number}"
    return f"{log_name}:{held[-1][1]}" if held else log_name


def run(args: argparse.Namespace) -> int:
    if args.out is not None:
        refuse_overwriting([args.out], [args.log], "--out")
    if args.box is None and args.box_wait is not None:
        raise UserError("--box-wait is how long to wait for the box: give its --box too")
    wait = BOX_WAIT_DEFAULT_S if args.box_wait is None else args.box_wait
    if args.box is not None:  # a device not there yet is waited for, never a file
        refuse_no_device("--box", args.box)
    try:
        box = None if args.box is None else BoxAnnouncer(args.box, drain_timeout=wait)
    except ValueError as error:  # a port URL pyserial does not understand
        raise UserError(f"--box {error}") from None
    try:
        live = streamed(args.log)
        if args.log == STANDARD_INPUT and sys.stdin.isatty():  # typing, or waiting for output
            sys.stderr.write(LIVE_BANNER)
        tell = SaidAtOnce() if live else None
        options = rule_options(args)
        decided = referee_log(args.log, args.out, options, box, tell, live=live)
    except RefereeingInterrupted as stopped:  # the rounds decided so far are still told
        stopped_board = format_scoreboard(stopped.decided, options.target_score, interrupted=True)
        sys.stdout.write(stopped_board)
        if args.out:
            sys.stdout.write(f"refereed events written to {args.out}\n")
        raise
    sys.stdout.write(format_scoreboard(decided, options.target_score))
    if args.out:
        sys.stdout.write(f"refereed events written to {args.out}\n")
    # As 'nerts box send' does: the verdicts are right, but the players were not all told.
    return FAILURE_STATUS if box is not None and (box.undelivered or box.rejected) else 0
