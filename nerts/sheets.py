"""Score sheet files: a game's journal read, appended to and shown (`nerts scores`, and
`nerts count --sheet`, which adds the round it counted)."""

from __future__ import annotations

import codecs
import contextlib
import errno
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from shlex import quote
from typing import Any, BinaryIO

from nerts.columns import right, shown_width
from nerts.errors import UserError, cannot_write, shown_name
from nerts.eventlog import blank_line, json_line, looks_like_event
from referee.errors import RefereeInputError
from referee.scoresheet import Scoresheet

UTF8_BOM = codecs.BOM_UTF8
NOT_A_JOURNAL = (
    "a score sheet is the journal 'nerts scores ... new' starts, a JSON object a line; one "
    "saved by a spreadsheet or word processor is no longer one: restore it, or start another"
)


def load_sheet(path: Path) -> Scoresheet:
    """The sheet journalled in `path`; a `UserError` naming the file (and line) if it cannot be
    read or does not hold a sheet."""
    _refuse_special_file(path)
    try:
        lines = path.read_bytes().splitlines()
    except OSError as error:
        hint = f" (start one: nerts scores {quote(str(path))} new --players NAME NAME ...)"
        hint = hint if not path.exists() and not path.is_symlink() else ""
        raise UserError(f"cannot read {path}: {error.strerror or error}{hint}") from None
    numbered = [
        (number, line) for number, line in enumerate(lines, start=1) if not blank_line(line)
    ]
    if not numbered:  # a start cut short (a full disk), or a file made by hand
        raise UserError(
            f"{path} is empty: start the sheet with: nerts scores {quote(str(path))} new "
            "--players NAME NAME ..."
        )
    try:
        first = json_line(numbered[0][1], str(path), numbered[0][0])
    except UserError as error:
        if numbered[0][1].lstrip(UTF8_BOM + b" \t").startswith(b"{"):  # a sheet's, damaged
            raise
        raise UserError(f"{error} ({NOT_A_JOURNAL})") from None
    entries = [first, *(json_line(line, str(path), number) for number, line in numbered[1:])]
    if entries and looks_like_event(entries[0]):
        raise UserError(
            f"{path} is a log of table events, not a score sheet: the rounds of refereed "
            f"events go on a sheet with: nerts scores SHEET.jsonl add --from {quote(str(path))}"
        )
    try:
        return Scoresheet.from_journal(
            entries,
            [f"{path}:{number}" for number, _ in numbered],
        )
    except RefereeInputError as error:
        said = str(error)  # named by its line ("club.jsonl:4: ..."), as a log's errors are
        raise UserError(said if said.startswith(f"{path}:") else f"{path}: {said}") from None


def _refuse_special_file(path: Path) -> None:
    """A `UserError` for a pipe or a device given as a sheet: reading one would wait for ever,
    or for nothing."""
    if path.exists() and not path.is_file() and not path.is_dir():
        raise UserError(
            f"{path} is not a regular file: a score sheet is a file rounds are added to"
        )


@contextlib.contextmanager
def sheet_to_change(path: Path) -> Iterator[Scoresheet]:
    """The sheet in `path`, read afresh while this process alone may change it: another
    `nerts count` or `nerts scores` adding to it waits until the block ends, so that neither
    adds a round to a sheet read before the other's round, nor scores one photo twice."""
    _refuse_special_file(path)
    try:
        handle = path.open("rb")
    except OSError:
        yield load_sheet(path)  # which says why it cannot be read
        return
    with handle:
        # Advisory, so a program that does not ask (an editor) is not held up by it.
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield load_sheet(path)


def start_sheet(path: Path, entry: dict[str, Any]) -> None:
    """Writes a new sheet's first entry into `path`, made if missing; a `UserError` where it
    holds anything already (an empty file, made by hand or left by a failed start, holds
    nothing to lose). Checked under the sheet's lock, so two starts at once make one sheet."""
    _refuse_special_file(path)
    try:
        with path.open("ab+", buffering=0) as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            handle.seek(0)
            if not blank_line(handle.read()):
                raise UserError(f"{path} already exists; choose another name or delete it first")
            _append_whole(handle, (json.dumps(entry) + "\n").encode("utf-8"))
    except OSError as error:
        raise cannot_write(path, error) from None


FINGERPRINT_HEX_DIGITS = 16
"""How much of a file's SHA-256 a sheet keeps to know the file again: 64 bits, where a game
has a few dozen rounds."""


def file_fingerprint(path: Path) -> str:
    """The start of the SHA-256 of the file's bytes; a `UserError` naming it if unreadable."""
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as error:
        raise UserError(f"cannot read {path}: {error.strerror or error}") from None
    return digest[:FINGERPRINT_HEX_DIGITS]


def source_name(path: Path) -> str:
    """A scored file's path as a sheet keeps it (`RoundOrigin.source`): a sheet is UTF-8 text,
    so a name from another system keeps its bytes as escapes ('caf\\xe9.jpg'); written as
    Python holds it, the sheet could not be read again."""
    return shown_name(str(path))


def refuse_scoring_twice(
    sheet: Scoresheet, sheet_path: Path, source: Path, fingerprint: str
) -> None:
    """A `UserError` if a round of the sheet was scored from this very file already (the same
    bytes, whatever its name): running a command twice must not add its rounds twice. (A log
    that has grown since is another file: its rounds are told apart by their round ends.)"""
    scored = sheet.rounds_scored_from(fingerprint)
    if scored:
        numbers = [str(number) for number, _ in scored]
        rounds = (
            f"rounds {', '.join(numbers[:-1])} and {numbers[-1]} were"
            if len(numbers) > 1
            else f"round {numbers[0]} was"
        )
        earlier = scored[0][1].source
        given = source_name(source)
        same = "" if earlier == given else f", the same file as {given}"
        raise UserError(
            f"{sheet_path}: {rounds} scored from {earlier} already{same}; nothing added. If this "
            "is another round, add its points by hand: "
            f"nerts scores {quote(str(sheet_path))} add NAME=POINTS ..."
        )


def game_over_warning(sheet: Scoresheet) -> str | None:
    """What to say when a round is added to `sheet` (as it is before the round) though its
    game is won already; None while it is not."""
    over, winner = sheet.game_over_after, sheet.winner
    if over is None or winner is None:
        return None
    return (
        f"the game was over before this round ({sheet.players[winner]} had won with "
        f"{sheet.totals_after(over)[winner]} in round {over}); the round is added, but changes "
        "nothing of who won: a new game starts with a new sheet (nerts scores NEXT.jsonl new "
        "--players ...), and 'undo' takes the round back off this one"
    )


def append_entries(path: Path, entries: list[dict[str, Any]]) -> None:
    """Appends journal entries to the sheet in `path`, one JSON line each, on a line of their
    own also where the file's last line has no line end (an editor may save it so)."""
    lines = "".join(json.dumps(entry) + "\n" for entry in entries)
    try:
        with path.open("ab+", buffering=0) as handle:
            if handle.seek(0, os.SEEK_END) > 0:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":
                    lines = "\n" + lines
            _append_whole(handle, lines.encode("utf-8"))
    except OSError as error:
        raise cannot_write(path, error) from None


def _append_whole(handle: BinaryIO, data: bytes) -> None:
    """Appends all of `data` to the sheet, or nothing: a write that fails part way (a full
    disk) is cut off again, since half a line would leave the sheet unreadable."""
    start = handle.seek(0, os.SEEK_END)
    try:
        view = memoryview(data)
        while view:
            written = handle.write(view)
            if not written:  # a file system that takes nothing and says no error
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            view = view[written:]
    except OSError:
        handle.truncate(start)
        raise


SHEET_COLUMN_MIN = 6
"""The narrowest column of a printed score sheet: "round " is as wide."""


def format_sheet(sheet: Scoresheet) -> str:
    seats = sorted(sheet.players)
    rows = [
        [f"{scores.get(s, 0):+d}={sheet.totals_after(number)[s]}" for s in seats]
        for number, scores in enumerate(sheet.rounds, start=1)
    ]
    # One width for all columns, wide enough for every name and every round's "+28=103".
    width = max(
        SHEET_COLUMN_MIN,
        *(shown_width(sheet.players[s]) for s in seats),
        *(len(c) for r in rows for c in r),
    )
    header = "round " + " ".join(right(sheet.players[s], width) for s in seats)
    lines = [f"Score sheet (target {sheet.target})", header]
    for number, cells in enumerate(rows, start=1):
        lines.append(f"{number:>5} " + " ".join(f"{cell:>{width}}" for cell in cells))
    over, winner = sheet.game_over_after, sheet.winner
    if over is not None and winner is not None:
        won_with = sheet.totals_after(over)[winner]
        lines.append(f"GAME OVER: {sheet.players[winner]} wins with {won_with}.")
        if over < len(sheet.rounds):
            later = (
                "round after it counts"
                if over + 1 == len(sheet.rounds)
                else "rounds after it count"
            )
            # After a target change, undo takes that back, not a round.
            undone = "target change" if sheet.target_undone() is not None else "last"
            lines.append(
                f"(won in round {over}: the {later} for no one; 'undo' takes the {undone} back)"
            )
    elif sheet.rounds:
        best = max(sheet.totals[s] for s in seats)
        leaders = [sheet.players[s] for s in seats if sheet.totals[s] == best]
        level = ", ".join(leaders[:-1]) + f" and {leaders[-1]}"
        if best >= sheet.target:  # none won, so the top is a tie: the game plays on
            lines.append(
                f"{level} are level at {best}, past the target of {sheet.target}: the game goes "
                "on until one leads"
            )
        elif len(leaders) > 1:
            lines.append(f"leaders: {level}, level at {best} (of {sheet.target})")
        else:
            lines.append(f"leader: {leaders[0]} ({best} of {sheet.target})")
    return "\n".join(lines) + "\n"
