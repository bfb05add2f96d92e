"""Refereeing a 100,000-play log: the engine alone, and the whole `nerts referee` path; and a
live log's long pause (a tick a frame, nothing played).

Baseline in the same run: just decoding the same JSON lines (the least any referee must do).
Run: .venv/bin/python benchmarks/bench_referee.py [--plays N] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code first

from nerts.commands.referee import referee_log
from referee.event_parsing import event_from_dict
from referee.game import GameReferee
from referee.options import TARGET_SCORE_MAX, RuleOptions
from simulator.training import whole_number

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SEATS = 4
FPS = 30.0
"""The synthetic log's frame rate: every event's time is its own frame over it."""


GOAL_S = 2.0
"""The whole path's goal for a log of `GOAL_PLAYS` plays: a long club evening's log refereed
again in a moment."""
GOAL_PLAYS = 100_000


def make_log(plays: int, seed: int = 1) -> list[dict[str, object]]:
    """Rounds of 4 seats building 16 piles, with races (late, tie) and illegal plays mixed in."""
    rng = random.Random(seed)
    lines: list[dict[str, object]] = []
    frame, made, round_number = 0, 0, 0
    while made < plays:
        round_number += 1
        seats = [{"seat": s, "back": f"back{s}"} for s in range(SEATS)]
        lines.append(
            {
                "frame": frame,
                "t": frame / FPS,
                "type": "round_start",
                "round": round_number,
                "seats": seats,
                "nerts_pile": 13,
            }
        )
        tops = {f"P{i}": 0 for i in range(16)}
        while made < plays and any(rank < 13 for rank in tops.values()):
            frame += rng.randint(1, 3)
            pile = rng.choice([p for p, rank in tops.items() if rank < 13])
            suit = "SHDC"[int(pile[1:]) % 4]
            rank = tops[pile] + 1
            if rng.random() < 0.05 and rank + 2 <= 13:
                rank += 2  # some illegal
            card = RANKS[rank - 1] + suit
            racers = 1 + (rng.random() < 0.2) + (rng.random() < 0.05)
            # A deck holds each card once: each pile is built from one seat's deck, and the
            # other seats race it with jokers declared as the card.
            owner = int(pile[1:]) // 4
            for racer in range(racers):
                at = frame + rng.randint(0, 1) * racer
                play: dict[str, object] = {
                    "frame": at,
                    "t": at / FPS,
                    "type": "play",
                    "seat": (owner + racer) % SEATS,
                    "card": card,
                    "pile": pile,
                }
                lines.append(play | ({"joker": True} if racer else {}))
                made += 1
            frame += 1
            tops[pile] = rank if rank == tops[pile] + 1 else tops[pile]
        frame += 2
        lines.append({"frame": frame, "t": frame / FPS, "type": "stuck"})
        lines.append({"frame": frame + 1, "t": (frame + 1) / FPS, "type": "stuck"})
        frame += 10
    lines.sort(key=lambda line: line["frame"])  # type: ignore[arg-type,return-value]
    return lines


def make_pause(ticks: int) -> list[dict[str, object]]:
    """A deal, then `ticks` frames in which nothing counts: a live log's tick a frame while the
    players talk. Each frame's tick is held until the round goes on, and must cost once."""
    seats = [{"seat": s, "back": f"back{s}"} for s in range(SEATS)]
    deal = {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "seats": seats}
    ticks_after = [{"frame": f, "t": f / FPS, "type": "tick"} for f in range(1, ticks + 1)]
    return [deal | {"nerts_pile": 13}, *ticks_after]


def best_of(repeats: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--plays",
        type=whole_number(1),
        default=100_000,
        help="plays in the log (default %(default)s)",
    )
    parser.add_argument(
        "--repeats",
        type=whole_number(1),
        default=3,
        help="times each is timed, the fastest kept (default %(default)s)",
    )
    parser.add_argument(
        "--ticks",
        type=whole_number(1),
        default=20_000,
        help="frames of the pause, a tick each (default %(default)s: 11 minutes at 30 fps)",
    )
    args = parser.parse_args()
    data = make_log(args.plays)
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "log.jsonl"
        log.write_text("".join(json.dumps(item) + "\n" for item in data))
        text_lines = log.read_text().splitlines()
        events = [event_from_dict(item) for item in data]
        options = RuleOptions(target_score=TARGET_SCORE_MAX)  # a game as long as is taken
        decode = best_of(args.repeats, lambda: [json.loads(line) for line in text_lines])
        engine = best_of(args.repeats, lambda: GameReferee(options).referee_all(events))
        whole = best_of(args.repeats, lambda: referee_log(log, Path(folder) / "out.jsonl", options))
    pause = make_pause(args.ticks)
    pause_lines = [json.dumps(item) for item in pause]
    pause_events = [event_from_dict(item) for item in pause]
    pause_decode = best_of(args.repeats, lambda: [json.loads(line) for line in pause_lines])
    pause_engine = best_of(args.repeats, lambda: GameReferee(options).referee_all(pause_events))
    plays = sum(1 for item in data if item["type"] == "play")
    print(f"log: {plays} plays, {len(data)} events")
    print(f"baseline, JSON decode only:      {decode:6.3f} s")
    print(f"referee engine (events in):      {engine:6.3f} s  ({engine / decode:.2f}x decode)")
    print(f"nerts referee, file to file:     {whole:6.3f} s  ({whole / decode:.2f}x decode)")
    print(
        f"a pause of {args.ticks} ticks, engine: {pause_engine:6.3f} s  "
        f"({pause_engine / pause_decode:.2f}x decoding them; a long pause must cost as many "
        "plays do)"
    )
    if plays < GOAL_PLAYS:  # fixed costs weigh on a short log: the goal is not scaled down
        print(f"goal: under {GOAL_S:g} s for {GOAL_PLAYS:,} plays (run with that many to judge)")
    else:
        goal = GOAL_S * plays / GOAL_PLAYS
        print(
            f"goal: under {GOAL_S:g} s for {GOAL_PLAYS:,} plays, {goal:.3g} s for these, for the "
            f"whole path -> {'met' if whole < goal else 'NOT met'}"
        )


if __name__ == "__main__":
    main()
