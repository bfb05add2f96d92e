"""The readable scoreboard printed after refereeing: one table per round, then the game."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from nerts.columns import left, shown_width
from referee.events import (
    Event,
    GameEnd,
    NertsCall,
    NertsCount,
    Play,
    RoundEnd,
    RoundStart,
    Stuck,
)
from referee.round import judging_key
from referee.scoresheet import without_controls


def format_scoreboard(events: Iterable[Event]) -> str:
    lines: list[str] = []
    totals: Counter[int] = Counter()
    backs: dict[int, str] = {}
    verdicts: Counter[str] = Counter()
    caller: int | None = None
    call_frame = 0
    first_call: NertsCall | None = None
    false_calls = 0
    stucks = 0
    stuck_frame: int | None = None
    # As the referee ends a round at a second stuck with no progress since the first (a card
    # to a foundation, a Nerts pile going down): one stuck only rotates the stocks. Progress
    # in a stuck's own frame came before it (`judging_key`), whatever their order in the log.
    stucks_without_progress = 0
    nerts_left: dict[int, int] = {}
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
            verdicts, caller, false_calls, stucks, stuck_frame = Counter(), None, 0, 0, None
            first_call = None
            stucks_without_progress = 0
            nerts_left = {info.seat: event.pile_size(info.seat) for info in event.seats}
            in_play = event
        elif isinstance(event, Play) and event.verdict is not None:
            verdicts[event.verdict.value] += 1
            if event.verdict.stays:
                stucks_without_progress = int(stuck_frame == event.frame)
        elif isinstance(event, NertsCount):
            if event.remaining < nerts_left.get(event.seat, event.remaining + 1):
                stucks_without_progress = int(stuck_frame == event.frame)
            nerts_left[event.seat] = event.remaining
        elif isinstance(event, NertsCall):
            # The first valid call ends the round; of two in one frame, the referee judged
            # first the one `judging_key` puts first, whatever their order in the log.
            if event.valid and (caller is None or _judged_before(event, first_call)):
                caller, call_frame, first_call = event.seat, event.frame, event
            false_calls += not event.valid
        elif isinstance(event, Stuck):
            stucks += 1
            stuck_frame = event.frame
            stucks_without_progress += 1
        elif isinstance(event, RoundEnd):
            totals.update({s: v + event.bonus.get(s, 0) for s, v in event.scores.items()})
            stuck_end = stuck_frame == event.frame and stucks_without_progress >= 2
            how = _how_it_ended(caller, call_frame, stuck_end)
            ended = _round_table(event, backs, totals, caller, how)
            in_play = None
        elif isinstance(event, GameEnd):
            game_over = [
                f"GAME OVER: seat {event.winner} ({backs.get(event.winner, '?')}) wins "
                f"with {event.totals[event.winner]} points.",
                "",
            ]
            totals = Counter()
    lines += _closed(ended, game_over, _round_summary(verdicts, false_calls, stucks))
    if in_play is not None and last is not None:
        lines.append(
            f"Round {in_play.round} (not scored: no valid Nerts call and no final stuck "
            f"by the log's end, frame {last.frame}, {last.t:.1f} s)"
        )
        lines.append(_round_summary(verdicts, false_calls, stucks))
        lines.append("")
    if not lines:
        return "No round ended in this log (no valid Nerts call and no final stuck).\n"
    return "\n".join(lines)


def _closed(table: list[str], game_over: list[str], summary: str) -> list[str]:
    """An ended round's lines: its table, its summary, then the game's end if it came."""
    return [*table, summary, "", *game_over] if table else []


def _judged_before(call: NertsCall, earlier: NertsCall | None) -> bool:
    """Whether `call`, in the same frame as the `earlier` valid call, was judged before it."""
    return (
        earlier is not None
        and call.frame == earlier.frame
        and (judging_key(call) < judging_key(earlier))
    )


def _how_it_ended(caller: int | None, call_frame: int, stuck_end: bool) -> str:
    """The referee ends a round at a valid call (once the cards in the air are down), at a
    second stuck without progress in between (`stuck_end`), or, with neither, when the next
    round starts."""
    if caller is not None:
        return f"Nerts! called by seat {caller} at frame {call_frame}"
    if stuck_end:
        return "everyone stuck"
    return "no Nerts call: the next round started"


BACK_COLUMN_MIN = 10
"""Columns of the round table's back names at least, so that tables of short names line up."""


def _round_table(
    end: RoundEnd, backs: dict[int, str], totals: Counter[int], caller: int | None, how: str
) -> list[str]:
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
            f"{end.nerts_left[seat]:>5} {end.bonus.get(seat, 0):>5} {end.scores[seat]:>5} "
            f"{totals[seat]:>5}" + ("  <- Nerts!" if seat == caller else "")
        )
    return lines


def _round_summary(verdicts: Counter[str], false_calls: int, stucks: int) -> str:
    parts = [f"{verdicts[name]} {name}" for name in ("accepted", "tie", "late", "illegal")]
    calls = "call" if false_calls == 1 else "calls"
    extra = f", {false_calls} false Nerts {calls}" if false_calls else ""
    extra += f", stuck {stucks}x" if stucks else ""
    return "  plays: " + ", ".join(parts) + extra
