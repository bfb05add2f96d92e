"""The rounds a refereed events log scored, as `nerts scores add --from` puts them on a sheet:
game by game, each round known by what does not change however often, or however far, the
log is refereed, so that no round goes on a sheet twice."""

from __future__ import annotations

import logging
from pathlib import Path
from shlex import quote
from typing import NamedTuple

from nerts.columns import first_few
from nerts.errors import UserError
from nerts.eventlog import read_numbered_events
from nerts.sheets import source_name
from referee.events import GameEnd, NertsCall, Play, RoundEnd, RoundStart
from referee.scoresheet import ROUND_POINTS_MAX, Scoresheet
from referee.scoring import round_score

log = logging.getLogger(__name__)


class LoggedRound(NamedTuple):
    """A round's end, what tells the round from any other (`round_identity`), and each seat's
    back as its deal named it (empty where the log lacks the deal)."""

    end: RoundEnd
    identity: str
    backs: dict[int, str]


class LoggedGame(NamedTuple):
    """A game's rounds in a log, and the line of its `game_end` (None: a game not over)."""

    rounds: list[LoggedRound]
    end_line: int | None


def round_identity(deal: RoundStart | None, end: RoundEnd, called_at: int | None) -> str:
    """What tells a round from any other: its number, the frame, time and backs of its deal,
    and the frame of its first valid Nerts call (or of its end, where no one called: a second
    stuck, or the next deal). Neither points nor the end's own frame: a log refereed with a
    caller's bonus, or cut short before the cards in the air were down, holds the same round."""
    dealt = (
        "?"
        if deal is None
        else f"frame {deal.frame} ({deal.t} s) to {', '.join(seat.back for seat in deal.seats)}"
    )
    ended = f"called at frame {called_at}" if called_at is not None else f"ended at {end.frame}"
    caller = "" if end.caller is None else f" by seat {end.caller}"
    return f"round {end.round} {IDENTITY_MARK} {dealt}; {ended}{caller}"


IDENTITY_MARK = "dealt at"
"""In every `round_identity`: a sheet's round whose `ended` lacks it was added by an earlier
version, which kept the round's end, and is told as a round whose identity is unknown."""


def read_logged_games(path: Path) -> tuple[list[LoggedGame], bool, bool]:
    """The rounds an events file scored, game by game; whether it may have been refereed (no
    play lacks a verdict: a log of no play at all has nothing for a referee to add either); and
    whether it holds any event; a `UserError` naming the line of a round whose scores are not
    its centre cards less twice its Nerts cards, or that gives a bonus to more than one seat or
    a negative one (a line edited by hand, or another tool's)."""
    games: list[LoggedGame] = []
    rounds: list[LoggedRound] = []
    refereed = True  # until a play without a verdict shows it was not
    # The seats whose Nerts call the referee judged valid this round: a caller's last Nerts
    # card, late and taken back after the call, leaves it one Nerts card and its bonus.
    called: set[int] = set()
    called_at: int | None = None  # the frame of the round's first valid call
    deal: RoundStart | None = None
    read = False
    for line, event in read_numbered_events(path):
        read = True
        refereed = refereed and not (isinstance(event, Play) and event.verdict is None)
        if isinstance(event, RoundStart):
            called, called_at, deal = set(), None, event
        elif isinstance(event, NertsCall) and event.valid:
            called.add(event.seat)
            called_at = event.frame if called_at is None else called_at
        elif isinstance(event, GameEnd):  # the next round begins a new game
            deal = None
            if rounds:
                games.append(LoggedGame(rounds, line))
                rounds = []
        if isinstance(event, RoundEnd):
            _check_points(path, line, event, called)
            backs = {} if deal is None else {info.seat: info.back for info in deal.seats}
            rounds.append(LoggedRound(event, round_identity(deal, event, called_at), backs))
            # A log whose next deal is missing must not lend this round's call to the next.
            called, called_at = set(), None
    if rounds:
        games.append(LoggedGame(rounds, None))
    return games, refereed, read


def _check_points(path: Path, line: int, end: RoundEnd, called: set[int]) -> None:
    """A `UserError` for a round end whose points the rules cannot give (`read_logged_games`)."""
    again = (
        f"nothing added. Referee the log again: nerts referee {quote(str(path))} --out EVENTS.jsonl"
    )
    for seat, score in sorted(end.scores.items()):
        centre, left = end.foundation.get(seat), end.nerts_left.get(seat)
        if centre is None or left is None or score != round_score(centre, left):
            raise UserError(
                f"{path}:{line}: round {end.round} gives seat {seat} {score} points, but "
                f"its centre cards ({centre}) less twice its Nerts cards ({left}) do not "
                f"make that; {again}"
            )
    given = {seat: bonus for seat, bonus in end.bonus.items() if bonus}
    callers = [seat for seat in given if end.nerts_left.get(seat) == 0 or seat in called]
    if len(given) > 1 or callers != list(given) or any(b < 0 for b in given.values()):
        raise UserError(
            f"{path}:{line}: round {end.round} gives a bonus to "
            f"{', '.join(f'seat {seat} ({bonus})' for seat, bonus in sorted(given.items()))}, "
            "but only its Nerts caller (a seat that called with no Nerts card left) earns "
            f"one, and no less than nothing; {again}"
        )
    for seat, score in end.scores.items():
        if abs(score + given.get(seat, 0)) > ROUND_POINTS_MAX:
            raise UserError(
                f"{path}:{line}: round {end.round} gives seat {seat} "
                f"{score + given.get(seat, 0)} points, beyond -{ROUND_POINTS_MAX} to "
                f"{ROUND_POINTS_MAX}; {again}"
            )


GAME_ENDS_LISTED = 5
"""The games' ends named where a log holds several: a long night's log may hold hundreds."""


def rounds_of_game(
    games: list[LoggedGame], log_path: Path, number: int | None
) -> list[LoggedRound]:
    """The rounds of the log's game `number` (None: its only one); a `UserError` where that
    leaves a choice to make, or names no game of it."""
    if number is None and len(games) > 1:
        ends = [str(game.end_line) for game in games if game.end_line is not None]
        raise UserError(
            f"{log_path} holds {len(games)} games (game_end on line{'s' * (len(ends) > 1)} "
            f"{first_few(ends, GAME_ENDS_LISTED)}), and a sheet keeps one: give --game 1 to "
            f"--game {len(games)}, each to a sheet of its own"
        )
    if number is not None and number > len(games):
        held = f"{len(games)} game{'s' * (len(games) != 1)}"
        raise UserError(f"--game {number}: {log_path} holds {held}")
    return games[(number or 1) - 1].rounds if games else []


def refuse_another_game(
    sheet: Scoresheet, sheet_path: Path, log_path: Path, games: list[LoggedGame], number: int
) -> None:
    """A `UserError` where the sheet holds rounds of another game of this log than game
    `number` (added with another --game, from this file or a copy of it, grown since or not): a
    sheet keeps one game."""
    others = {
        logged.identity
        for other, game in enumerate(games, start=1)
        if other != number
        for logged in game.rounds
    }
    scored = [
        str(round_number)
        for round_number, origin in enumerate(sheet.origins, start=1)
        if origin is not None and origin.ended in others
    ]
    if scored:
        raise UserError(
            f"{sheet_path} holds another game of {log_path} (its "
            f"{'round' if len(scored) == 1 else 'rounds'} {', '.join(scored)}), "
            "and a sheet keeps one game: give this one a sheet of its own (nerts scores "
            "NEXT.jsonl new --players ...)"
        )


def not_yet_scored(
    sheet: Scoresheet, sheet_path: Path, log_path: Path, rounds: list[LoggedRound]
) -> list[LoggedRound]:
    """The log's rounds not yet on the sheet (`round_identity`): the same round from another
    file (a copy, the log grown since, refereed again with a caller's bonus) is left out, and
    said so; a `UserError` where none is left. Rounds of a file of this name on the sheet
    without their identity (added before sheets kept it) cannot be told apart: warned of."""
    unknown = [
        str(number)
        for number, origin in enumerate(sheet.origins, start=1)
        if origin is not None
        and origin.source == source_name(log_path)
        and IDENTITY_MARK not in (origin.ended or "")
    ]
    if unknown:
        log.warning(
            "%s: round(s) %s came from a file named %s before sheets kept which round each "
            "is: should this log hold them too, they are added again ('undo' takes this "
            "log's rounds back)",
            sheet_path,
            ", ".join(unknown),
            log_path,
        )
    on_sheet = [(logged, sheet.round_ended_as(logged.identity)) for logged in rounds]
    scored = [f"round {logged.end.round} (as round {n})" for logged, n in on_sheet if n]
    fresh = [logged for logged, number in on_sheet if number is None]
    fixes = [
        fix
        for logged, number in on_sheet
        if number is not None
        for fix in [_fix_if_other(sheet, sheet_path, number, logged_points(logged.end))]
        if fix
    ]
    if fixes:  # the round refereed again gives other points: the sheet keeps its own
        log.warning(
            "%s gives other points than the sheet for the same round; to take the log's: %s",
            log_path,
            "; ".join(fixes),
        )
    if scored and not fresh:
        raise UserError(
            f"{sheet_path}: every round of {log_path} is on it already ({', '.join(scored)}): "
            "nothing added"
        )
    if scored:
        log.warning(
            "%s: %s of %s %s on the sheet already (the same rounds): left out",
            sheet_path,
            ", ".join(scored),
            log_path,
            "is" if len(scored) == 1 else "are",
        )
    return fresh


def logged_points(end: RoundEnd) -> dict[int, int]:
    """A logged round's points by seat, as a sheet adds them: the caller's bonus included."""
    return {seat: score + end.bonus.get(seat, 0) for seat, score in end.scores.items()}


def _fix_if_other(
    sheet: Scoresheet, sheet_path: Path, number: int, points: dict[int, int]
) -> str | None:
    """The `nerts scores ... fix` that gives round `number` of the sheet these points; None
    where it holds them already."""
    held = sheet.rounds[number - 1]
    if all(held.get(seat) == value for seat, value in points.items()):
        return None
    values = " ".join(
        quote(f"{sheet.players.get(seat, seat)}={value}") for seat, value in sorted(points.items())
    )
    return f"nerts scores {quote(str(sheet_path))} fix {number} {values}"
