"""`nerts simulate` end to end at 1280x720, 30 fps: video seconds made per wall-clock second.

Baselines in the same run: the game alone (no pictures) and encoding alone (the same number of
frames, already rendered, through the same video writer). Real time means a ratio of >= 1.0.
Run: .venv/bin/python benchmarks/bench_simulate.py [--seconds 30] [--seed 4]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from nerts.cli import main as nerts_main
from simulator.render import VideoSink
from simulator.timeline import frames_in

FPS = 30


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def simulate(argv: list[str]) -> None:
    """`nerts simulate ARGV`; a failed run would be timed as if it worked, so it stops here."""
    status = nerts_main(argv)
    if status != 0:
        raise SystemExit(f"nerts {' '.join(argv)} failed with status {status}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=30.0,
        help="seconds of play to simulate (default %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=4, help="the game's seed (default %(default)s)")
    args = parser.parse_args()
    frames = frames_in(args.seconds, FPS)
    with tempfile.TemporaryDirectory() as folder:
        common = [
            "simulate",
            "--seed",
            str(args.seed),
            "--race-rate",
            "0.5",
            "--seconds",
            str(args.seconds),
            "--fps",
            str(FPS),
        ]
        game = timed(lambda: simulate([*common, "--out", f"{folder}/a", "--no-video"]))
        whole = timed(lambda: simulate([*common, "--out", f"{folder}/b"]))
        picture = np.random.default_rng(0).integers(0, 255, (720, 1280, 3), np.uint8)

        def encode_only() -> None:
            with VideoSink(Path(folder) / "c.mp4", FPS, (1280, 720)) as sink:
                for _ in range(frames):
                    sink.write(picture)

        encode = timed(encode_only)
    print(f"{args.seconds:.0f} s of play, {frames} frames at 1280x720")
    rows = (
        ("game logic only (--no-video)", game),
        ("encoding only (baseline)", encode),
        ("nerts simulate, full", whole),
    )
    for name, wall in rows:
        print(f"{name:<30} {wall:6.2f} s wall, {args.seconds / wall:6.2f} x real time")
    print(f"real time at 1280x720 30 fps -> {'met' if args.seconds / whole >= 1 else 'NOT met'}")


if __name__ == "__main__":
    main()
