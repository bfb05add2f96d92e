"""The readable scoreboard printed after refereeing: one table per round, then the game."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from nerts.columns import left, shown_width
from referee.events import (
    Event,
    GameEnd,
    NertsCall,
    Play,
    RoundEnd,
    RoundEndCause,
    RoundStart,
    Stuck,
    Verdict,
)
from referee.scoresheet import without_controls


def format_scoreboard(
    events: Iterable[Event], target: int | None = None, *, interrupted: bool = False
) -> str:
    """The scoreboard of refereed `events`; with the game's `target`, a round after which
    seats stand level at the top past it says why the game plays on. `interrupted`: the
    events stop where refereeing was stopped, not at the log's end."""
    lines: list[str] = []
    totals: Counter[int] = Counter()
    backs: dict[int, str] = {}
    verdicts: Counter[str] = Counter()
    call_frames: dict[int, int] = {}  # each seat's first valid call this round
    false_calls = 0
    stucks = 0
    in_play: RoundStart | None = None
    last: Event | None = None
    # The round ended last: its table, and the game's end if it came; its summary follows once
    # the next deal (or the log's end) shows the plays and calls that came after its end.
    ended: list[str] = []
    game_over: list[str] = []
    for event in events:
        last = event
        if isinstance(event, RoundStart):
            lines += _closed(ended, game_over, _round_summary(verdicts, false_calls, stucks))
            ended, game_over = [], []
            # A log's back names are free text: printed, a control character would tear the
            # table or drive the terminal.
            backs = {info.seat: without_controls(info.back) for info in event.seats}
            verdicts, call_frames, false_calls, stucks = Counter(), {}, 0, 0
            in_play = event
        elif isinstance(event, Play) and event.verdict is not None:
            verdicts[event.verdict.value] += 1
        elif isinstance(event, NertsCall):
            if event.valid:
                call_frames.setdefault(event.seat, event.frame)
            false_calls += not event.valid
        elif isinstance(event, Stuck):
            stucks += 1
        elif isinstance(event, RoundEnd):
            totals.update({s: v + event.bonus.get(s, 0) for s, v in event.scores.items()})
            ended = _round_table(event, backs, totals, _how_it_ended(event, call_frames))
            ended += _level_at_the_top(totals, target)
            in_play = None
        elif isinstance(event, GameEnd):
            won_with = event.totals[event.winner]
            game_over = [
                f"GAME OVER: seat {event.winner} ({backs.get(event.winner, '?')}) wins "
                f"with {won_with} point{'' if won_with == 1 else 's'}.",
                "",
            ]
            totals = Counter()
    lines += _closed(ended, game_over, _round_summary(verdicts, false_calls, stucks))
    if in_play is not None and last is not None:
        until = "when refereeing was stopped" if interrupted else "by the log's end"
        lines.append(
            f"Round {in_play.round} (not scored: no valid Nerts call and no final stuck "
            f"{until}, frame {last.frame}, {last.t:.1f} s)"
        )
        lines.append(_round_summary(verdicts, false_calls, stucks))
        lines.append("")
    if not lines:
        return "No round ended in this log (no valid Nerts call and no final stuck).\n"
    return "\n".join(lines)


def _closed(table: list[str], game_over: list[str], summary: str) -> list[str]:
    """An ended round's lines: its table, its summary, then the game's end if it came."""
    return [*table, summary, "", *game_over] if table else []


def _how_it_ended(end: RoundEnd, call_frames: dict[int, int]) -> str:
    """As the referee says it ended (`RoundEnd.ended_by`, `caller`): at a valid call, once the
    cards in the air were down; at a second stuck without progress; or at the next deal."""
    if end.caller is not None:
        return (
            f"Nerts! called by seat {end.caller} at frame {call_frames.get(end.caller, end.frame)}"
        )
    if end.ended_by is RoundEndCause.STUCK:
        return "everyone stuck"
    return "no Nerts call: the next round started"


BACK_COLUMN_MIN = 10
"""Columns of the round table's back names at least, so that tables of short names line up."""


def _round_table(end: RoundEnd, backs: dict[int, str], totals: Counter[int], how: str) -> list[str]:
    """The round's points by seat; its "round" column is what the round added to the total
    (the caller's bonus included, as the live line and the score sheet show it), not the
    contract's bare `scores`."""
    # Whole names, however long: two backs "kde-nicu-white__back_c1" and "..._c2" cut to ten
    # characters would read as one.
    width = max(BACK_COLUMN_MIN, *(shown_width(backs.get(seat, "?")) for seat in end.scores))
    lines = [
        f"Round {end.round} ({how}; ended at frame {end.frame}, {end.t:.1f} s)",
        f"  {'seat':>4}  {left('back', width)} {'centre':>6} {'nerts':>5} {'bonus':>5} "
        f"{'round':>5} {'total':>5}",
    ]
    for seat in sorted(end.scores):
        lines.append(
            f"  {seat:>4}  {left(backs.get(seat, '?'), width)} {end.foundation[seat]:>6} "
            f"{end.nerts_left[seat]:>5} {end.bonus.get(seat, 0):>5} "
            f"{end.scores[seat] + end.bonus.get(seat, 0):>5} "
            f"{totals[seat]:>5}" + ("  <- Nerts!" if seat == end.caller else "")
        )
    return lines


def _level_at_the_top(totals: Counter[int], target: int | None) -> list[str]:
    """Why no one won though the target was reached: seats level at the top play on."""
    best = max(totals.values(), default=0)
    level = sorted(seat for seat, total in totals.items() if total == best)
    if target is None or best < target or len(level) < 2:
        return []
    seats = ", ".join(map(str, level[:-1])) + f" and {level[-1]}"
    return [f"  seats {seats} are level at {best}, at or past the target {target}: play on"]


def _round_summary(verdicts: Counter[str], false_calls: int, stucks: int) -> str:
    parts = [f"{verdicts[name]} {name}" for name in ("accepted", "tie", "late", "illegal")]
    calls = "call" if false_calls == 1 else "calls"
    extra = f", {false_calls} false Nerts {calls}" if false_calls else ""
    extra += f", stuck {stucks}x" if stucks else ""
    return "  plays: " + ", ".join(parts) + extra


def as_it_happens(event: Event) -> str | None:
    """One line telling a decided event worth hearing at once, as a live game is refereed:
    a play that does not simply stay (late, illegal, tie), a Nerts call, a round's end, the
    game's end; None for the rest (accepted plays, counts, ticks)."""
    when = f"{event.t:7.1f} s  frame {event.frame:>6}:"
    verdict = event.verdict if isinstance(event, Play) else None
    if isinstance(event, Play) and verdict is not None and verdict is not Verdict.ACCEPTED:
        reason = f" ({event.reason.value.replace('_', ' ')})" if event.reason else ""
        return (
            f"{when} seat {event.seat}'s {event.card} on {without_controls(event.pile)}: "
            f"{verdict.value}{reason}"
        )
    if isinstance(event, NertsCall):
        return f"{when} seat {event.seat} calls Nerts: {'valid' if event.valid else 'not valid'}"
    if isinstance(event, RoundEnd):
        points = ", ".join(
            f"seat {seat} {event.scores[seat] + event.bonus.get(seat, 0):+d}"
            for seat in sorted(event.scores)
        )
        return f"{when} round {event.round} ends: {points}"
    if isinstance(event, GameEnd):
        return (
            f"{when} GAME OVER: seat {event.winner} wins with {event.totals[event.winner]} points"
        )
    return None
