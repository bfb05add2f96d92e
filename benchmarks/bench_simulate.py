"""`nerts simulate` end to end at 1280x720, 30 fps: video seconds made per wall-clock second.

Baselines in the same run: the game alone (no pictures) and encoding alone (the same number of
frames, through the same video writer: the first `ENCODED_FRAMES_KEPT` of the full run's own
video, read back before the timing and written over and over). Real time means a ratio of >= 1.0.
Run: .venv/bin/python benchmarks/bench_simulate.py [--seconds 30] [--seed 4]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code first

import cv2
import numpy as np

from nerts.cli import main as nerts_main
from nerts.commands.simulate import VIDEO_FILE
from simulator.pace import frames_in
from simulator.render import VideoSink
from simulator.training import positive, whole_number

FPS = 30


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


ENCODED_FRAMES_KEPT = 30
"""Frames of the full run's video kept in memory for the encoding baseline (a second's worth:
all of a 30 s video would take 2.5 GB)."""


def _first_frames(video: Path, count: int) -> list[np.ndarray]:
    capture = cv2.VideoCapture(str(video))
    frames: list[np.ndarray] = []
    while len(frames) < count:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(frame)
    capture.release()
    if not frames:
        raise SystemExit(f"cannot read back {video}: no frames for the encoding baseline")
    return frames


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
        type=positive,
        default=30.0,
        help="seconds of play to simulate (default %(default)s)",
    )
    parser.add_argument(
        "--seed", type=whole_number(0), default=4, help="the game's seed (default %(default)s)"
    )
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
        pictures = _first_frames(Path(folder) / "b" / VIDEO_FILE, ENCODED_FRAMES_KEPT)

        def encode_only() -> None:
            with VideoSink(Path(folder) / "c.mp4", FPS, (1280, 720)) as sink:
                for number in range(frames):
                    sink.write(pictures[number % len(pictures)])

        encode = timed(encode_only)
    print(f"{args.seconds:.0f} s of play, {frames} frames at 1280x720")
    rows = (
        ("game logic only (--no-video)", game),
        ("encoding only (baseline)", encode),
        ("nerts simulate, full", whole),
    )
    for name, wall in rows:
        print(f"{name:<30} {wall:6.2f} s wall, {args.seconds / wall:6.2f} x real time")
    print(
        f"ours against the baselines: {whole / game:.1f}x the game alone's time, "
        f"{whole / encode:.1f}x encoding alone's"
    )
    print(f"real time at 1280x720 30 fps -> {'met' if args.seconds / whole >= 1 else 'NOT met'}")


if __name__ == "__main__":
    main()
