"""The score sheet players keep across rounds: add a round, undo the last change, correct one,
change the target.

A sheet is rebuilt from a journal of entries (plain dicts, as stored one per line), so that
every correction stays visible and nothing is ever overwritten.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.errors import RefereeInputError, json_kind, json_text
from referee.numbers import plain_number
from referee.options import DEFAULT_TARGET_SCORE, TARGET_SCORE_MAX
from referee.scoring import game_winner


class ScoresheetError(RefereeInputError):
    """A journal entry or a command that does not fit the sheet."""


ROUND_POINTS_MAX = 1000
"""One seat's points for a round beyond this either way are a typo: a round scores at most 52
(a whole deck on the foundations) and at least -26 (a Nerts pile of 13 left), house bonuses
aside."""


@dataclass(frozen=True)
class RoundOrigin:
    """The file a round was scored from (a photo counted, an events file refereed): its
    `fingerprint` (of its bytes) and its path as given (`source`)."""

    fingerprint: str
    source: str
    ended: str | None = None
    """Of a round scored from a log: which round of which game it was
    (`nerts.logged_rounds.round_identity`), so that the same round is not scored twice from
    another file (a copy, the log grown since, refereed again with other house rules)."""


ENTRY_TYPES = "round, undo, fix or target"
"""The types of a sheet's entries after its first (the game), as errors name them."""


@dataclass
class Scoresheet:
    players: dict[int, str]
    target: int = DEFAULT_TARGET_SCORE
    rounds: list[dict[int, int]] = field(default_factory=list)
    origins: list[RoundOrigin | None] = field(default_factory=list)
    """Per round, the file it was scored from (None when typed in), so that the same file is
    not scored twice; kept as long as `rounds`."""
    changes: list[str | None] = field(default_factory=list)
    """Per round, the change that added it with others (the rounds of one log, added by one
    command), so that `undo` takes them back together; None for a round added alone."""
    targets_before: list[tuple[int, int]] = field(default_factory=list)
    """Per target change, the rounds the sheet had then and the target before it, so that
    `undo` takes back a target change made after the last round as it takes back a round."""
    fixed_last: int | None = None
    """The round the sheet's last entry fixed, where it was a fix (which `undo` leaves: it
    takes back rounds and target changes, and a fix is fixed again)."""

    def __post_init__(self) -> None:
        self.origins += [None] * (len(self.rounds) - len(self.origins))
        self.changes += [None] * (len(self.rounds) - len(self.changes))

    @classmethod
    def from_journal(
        cls, entries: Iterable[object], where: Iterable[str] | None = None
    ) -> Scoresheet:
        """The sheet a journal's entries (parsed JSON, each an object) describe; `where`
        names each entry in errors (default "entry 1", "entry 2", ...), e.g. by its line."""
        sheet: Scoresheet | None = None
        entries = list(entries)
        names = [f"entry {n}" for n in range(1, len(entries) + 1)] if where is None else where
        for number, (entry, name) in enumerate(zip(entries, names, strict=True), start=1):
            if not isinstance(entry, Mapping):
                raise ScoresheetError(f"{name}: must be a JSON object, got {json_kind(entry)}")
            kind = entry.get("type")
            if number == 1:
                if kind != "game":
                    raise ScoresheetError(f"{name}: a score sheet starts with a 'game' entry")
                sheet = cls(_players(entry.get("players")), _target(entry.get("target")))
                continue
            assert sheet is not None
            try:
                sheet.apply(entry)
            except ScoresheetError as error:
                raise ScoresheetError(f"{name}: {error}") from None
        if sheet is None:
            raise ScoresheetError("the score sheet is empty")
        return sheet

    def apply(self, entry: Mapping[str, Any]) -> None:
        kind = entry.get("type")
        self.fixed_last = None
        needed = {"round": ("scores",), "fix": ("round", "scores"), "target": ("target",)}.get(
            str(kind), ()
        )
        missing = [key for key in needed if key not in entry]
        if missing:
            raise ScoresheetError(f"a {kind} entry needs {' and '.join(map(repr, missing))}")
        if kind == "round":
            change = entry.get("change")
            if change is not None and not isinstance(change, str):
                raise ScoresheetError(f"a round's change is a name, got {json_text(change)}")
            scores = self.scores_from(entry["scores"], complete=True)
            self.add_round(scores, _origin(entry), change)
        elif kind == "undo":
            if "round" in entry:  # written by hand, meaning one round: undo takes the last
                raise ScoresheetError(
                    "an undo takes back the last round and names none; to change round "
                    f"{json_text(entry['round'])}, write a fix"
                )
            self.undo()
        elif kind == "fix":
            round_number = _int(entry["round"], "round")
            self.fix(round_number, self.scores_from(entry["scores"]))
            self.fixed_last = round_number
        elif kind == "target":
            # A house rule changed during the game: who won, and when, follow the new target.
            self.targets_before.append((len(self.rounds), self.target))
            self.target = _target(entry["target"])
        elif kind == "game":
            raise ScoresheetError(
                "a sheet keeps one game, started by its first line: another game starts a "
                "sheet of its own"
            )
        elif kind is None:
            raise ScoresheetError(
                f"an entry needs a 'type' ({ENTRY_TYPES}), got {json_text(entry)}"
            )
        else:
            raise ScoresheetError(f"unknown entry type {json_text(kind)} ({ENTRY_TYPES})")

    def scores_from(self, value: Any, complete: bool = False) -> dict[int, int]:
        """Seat -> points from a mapping keyed by seat number or player name."""
        if not isinstance(value, Mapping) or not value:
            raise ScoresheetError(
                f"scores must be an object of seat -> points, got {json_text(value)}"
            )
        scores: dict[int, int] = {}
        for key, points in value.items():
            seat = self.seat_of(str(key))
            if seat in scores:
                raise ScoresheetError(f"seat {seat} ({self.players[seat]}) is given twice")
            scores[seat] = _int(points, f"points of {key}", None)
            if abs(scores[seat]) > ROUND_POINTS_MAX:
                raise ScoresheetError(
                    f"points of {key} lie within -{ROUND_POINTS_MAX} to {ROUND_POINTS_MAX} in a "
                    f"round, got {scores[seat]} (a typo?)"
                )
        missing = sorted(set(self.players) - set(scores))
        if complete and missing:
            names = ", ".join(self.players[s] for s in missing)
            raise ScoresheetError(f"a round needs every seat's points; missing: {names}")
        return scores

    def seat_of(self, key: str) -> int:
        seat = plain_number(key)
        if seat is not None and seat in self.players:
            return seat
        for seat, name in self.players.items():
            if same_name(name, key):
                return seat
        known = ", ".join(f"{seat}={name}" for seat, name in self.players.items())
        raise ScoresheetError(f"no player {key!r} (players: {known})")

    def add_round(
        self, scores: dict[int, int], origin: RoundOrigin | None = None, change: str | None = None
    ) -> None:
        self.rounds.append(scores)
        self.origins.append(origin)
        self.changes.append(change)

    def last_change(self) -> range:
        """The rounds (numbered from 1) that `undo` takes back: the last, with the others the
        same change added (the rounds of one log)."""
        if not self.rounds:
            return range(0)
        change, first = self.changes[-1], len(self.rounds)
        while change is not None and first > 1 and self.changes[first - 2] == change:
            first -= 1
        return range(first, len(self.rounds) + 1)

    def target_undone(self) -> int | None:
        """The target `undo` goes back to, where the last change was the target's (no round
        added since); None where undo takes back rounds."""
        if self.targets_before and self.targets_before[-1][0] >= len(self.rounds):
            return self.targets_before[-1][1]
        return None

    def undo(self) -> None:
        """Takes back the last change: a target change, its last round, or every round of a
        log added at once (a fix is not taken back: it is fixed again)."""
        if self.target_undone() is not None:
            self.target = self.targets_before.pop()[1]
            return
        if not self.rounds:
            raise ScoresheetError("there is no round to undo")
        kept = self.last_change().start - 1
        del self.rounds[kept:], self.origins[kept:], self.changes[kept:]

    def rounds_scored_from(self, fingerprint: str) -> list[tuple[int, RoundOrigin]]:
        """The rounds (numbered from 1) scored from the file of this fingerprint, with their
        origins (the file's path as it was given then)."""
        return [
            (number, origin)
            for number, origin in enumerate(self.origins, start=1)
            if origin is not None and origin.fingerprint == fingerprint
        ]

    def round_ended_as(self, key: str) -> int | None:
        """The round (numbered from 1) scored from the logged round of this identity."""
        return next(
            (
                number
                for number, origin in enumerate(self.origins, start=1)
                if origin is not None and origin.ended == key
            ),
            None,
        )

    def fix(self, round_number: int, scores: dict[int, int]) -> None:
        if not 1 <= round_number <= len(self.rounds):
            raise ScoresheetError(f"no round {round_number} (the sheet has {self.rounds_held()})")
        self.rounds[round_number - 1].update(scores)

    def rounds_held(self) -> str:
        """The sheet's rounds as an error names them: "rounds 1..4"."""
        return {0: "no rounds yet", 1: "round 1 only"}.get(
            len(self.rounds), f"rounds 1..{len(self.rounds)}"
        )

    def totals_after(self, round_count: int) -> dict[int, int]:
        return {
            seat: sum(scores.get(seat, 0) for scores in self.rounds[:round_count])
            for seat in self.players
        }

    @property
    def totals(self) -> dict[int, int]:
        return self.totals_after(len(self.rounds))

    @property
    def game_over_after(self) -> int | None:
        """The round (numbered from 1) that won the game; None while no one has won. Rounds
        added after it (by mistake, or played on) change neither the winner nor when."""
        for count in range(1, len(self.rounds) + 1):
            if game_winner(self.totals_after(count), self.target) is not None:
                return count
        return None

    @property
    def winner(self) -> int | None:
        """The seat that won the game, as of the round that won it."""
        over = self.game_over_after
        return None if over is None else game_winner(self.totals_after(over), self.target)


def _origin(entry: Mapping[str, Any]) -> RoundOrigin | None:
    """A round entry's `RoundOrigin`: its "fingerprint", "source" and "ended" (a log's round
    end); None without a fingerprint."""
    fingerprint, source = entry.get("fingerprint"), entry.get("source", "")
    if fingerprint is None:
        return None
    if not isinstance(fingerprint, str) or not isinstance(source, str):
        raise ScoresheetError(
            f"'fingerprint' and 'source' must be strings, got {json_text(fingerprint)} and "
            f"{json_text(source)}"
        )
    ended = entry.get("ended")
    if ended is not None and not isinstance(ended, str):
        raise ScoresheetError(f"'ended' must be a string, got {json_text(ended)}")
    return RoundOrigin(fingerprint, source, ended)


def control_character(name: str) -> str | None:
    """The first control character in a name (a tab, a line break, a terminal's escape), as
    its escape ('\\t'); None where there is none. Printed, one would tear the score tables or
    drive the terminal; letters of any script, spaces and joiners are all fine."""
    found = next((c for c in name if unicodedata.category(c) in _CONTROLS), None)
    return None if found is None else found.encode("unicode_escape").decode("ascii")


_CONTROLS = {"Cc", "Zl", "Zp"}
"""Unicode's categories of characters that break a printed line or drive a terminal: controls,
and the line and paragraph separators."""


def without_controls(name: str) -> str:
    """A name as it can be printed: each control character as its escape ('\\t')."""
    return "".join(
        c.encode("unicode_escape").decode("ascii") if unicodedata.category(c) in _CONTROLS else c
        for c in name
    )


def same_name(one: str, other: str) -> bool:
    """Whether two player names are one: alike in any case, with spaces around or not, and
    however their accents are encoded ('Zoë' typed as one letter or as 'e' and a combining
    mark looks the same on the sheet)."""
    return _folded(one) == _folded(other)


def _folded(name: str) -> str:
    # Unicode's canonical caseless match: casefold between decompositions. Control characters
    # as their escapes: a sheet's names are kept so (`_players`).
    plain = without_controls(name).strip()
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", plain).casefold())


def _int(value: Any, what: str, minimum: int | None = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScoresheetError(f"{what} must be an integer, got {json_text(value)}")
    if minimum is not None and value < minimum:
        raise ScoresheetError(f"{what} must be at least {minimum}, got {value}")
    return value


def _target(value: Any) -> int:
    target = _int(value, "target")
    if target > TARGET_SCORE_MAX:
        raise ScoresheetError(f"target must be at most {TARGET_SCORE_MAX} (a typo?), got {target}")
    return target


def _players(value: Any) -> dict[int, str]:
    if not isinstance(value, Mapping) or len(value) < 2:
        raise ScoresheetError(f"'players' must name at least two seats, got {json_text(value)}")
    players: dict[int, str] = {}
    for seat_text, name in value.items():
        seat = plain_number(str(seat_text))
        if seat is None or not isinstance(name, str):
            raise ScoresheetError(
                f"'players' must map seat numbers to names, got {json_text(value)}"
            )
        if not name.strip() or plain_number(name.strip()) is not None:
            # Points are given as NAME=POINTS or SEAT=POINTS: a name must not read as a seat.
            raise ScoresheetError(f"a player needs a name that is not blank or a number: {name!r}")
        if any(same_name(name, known) for known in players.values()):
            raise ScoresheetError(f"two players are called {name!r}; give each their own name")
        if seat in players:  # '0' and '00': one seat, which the later name would take
            raise ScoresheetError(
                f"'players' names seat {seat} twice ({players[seat]!r} and {name!r}), got "
                f"{json_text(value)}"
            )
        # Kept printable (`nerts scores new` refuses such a name; an older sheet may hold one).
        players[seat] = without_controls(name)
    return players
