"""Score sheet files: a game's journal read, appended to and shown (`nerts scores`, and
`nerts count --sheet`, which adds the round it counted)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nerts.errors import UserError
from nerts.eventlog import json_line
from referee.errors import RefereeInputError
from referee.scoresheet import Scoresheet


def load_sheet(path: Path) -> Scoresheet:
    """The sheet journalled in `path`; a `UserError` naming the file (and line) if it cannot be
    read or does not hold a sheet."""
    try:
        lines = path.read_bytes().splitlines()
    except OSError as error:
        hint = f" (start one: nerts scores {path} new --players NAME NAME ...)"
        hint = hint if not path.exists() else ""
        raise UserError(f"cannot read {path}: {error.strerror or error}{hint}") from None
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    try:
        return Scoresheet.from_journal(
            [json_line(line, path, number) for number, line in numbered],
            [f"line {number}" for number, _ in numbered],
        )
    except RefereeInputError as error:
        raise UserError(f"{path}: {error}") from None


def append_entries(path: Path, entries: list[dict[str, Any]]) -> None:
    """Appends journal entries to the sheet in `path`, one JSON line each."""
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.writelines(json.dumps(entry) + "\n" for entry in entries)
    except OSError as error:
        raise UserError(f"cannot write {path}: {error.strerror or error}") from None


def format_sheet(sheet: Scoresheet) -> str:
    seats = sorted(sheet.players)
    width = max(6, *(len(sheet.players[s]) for s in seats))
    header = "round " + " ".join(f"{sheet.players[s]:>{width}}" for s in seats)
    lines = [f"Score sheet (target {sheet.target})", header]
    for number, scores in enumerate(sheet.rounds, start=1):
        totals = sheet.totals_after(number)
        cells = " ".join(f"{f'{scores.get(s, 0):+d}={totals[s]}':>{width}}" for s in seats)
        lines.append(f"{number:>5} {cells}")
    winner = sheet.winner
    if winner is not None:
        lines.append(f"GAME OVER: {sheet.players[winner]} wins with {sheet.totals[winner]}.")
    elif sheet.rounds:
        leader = max(seats, key=lambda s: sheet.totals[s])
        lines.append(f"leader: {sheet.players[leader]} ({sheet.totals[leader]} of {sheet.target})")
    return "\n".join(lines) + "\n"
