"""Renderer speed: can the simulator film a full 4-player table in real time?

Renders a busy stretch of play (every seat's hand carrying a card) at the chosen size and fps,
writes it to an mp4 with VideoSink, and reports ms per frame and the ratio of video seconds to
wall seconds (>= 1.0 is real time). Baselines in the same run:
- encode only: cv2.VideoWriter writing the same frames, already rendered (the floor);
- naive: every frame painted from scratch (no card-layer or warped-card caches).

    .venv/bin/python benchmarks/bench_render.py --frames 300
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simulator.geometry import table_for_seats
from simulator.layer import CardLayer
from simulator.render import (
    RenderSettings,
    TableRenderer,
    VideoSink,
    builtin_design,
    default_backs,
)
from simulator.sample_scenes import playing_frames
from simulator.training import frame_size, positive, whole_number


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--frames", type=whole_number(1), default=300, help="frames to render (default %(default)s)"
    )
    parser.add_argument(
        "--size",
        type=frame_size,
        default=(1280, 720),
        metavar="WxH",
        help="frame size (default 1280x720)",
    )
    parser.add_argument(
        "--fps",
        type=positive,
        default=30.0,
        help="the video's frame rate (default %(default)s)",
    )
    parser.add_argument(
        "--seats",
        type=int,
        choices=range(2, 9),
        default=4,
        metavar="N",
        help="players at the table, 2 to 8 (default %(default)s)",
    )
    parser.add_argument(
        "--naive-frames",
        type=whole_number(1),
        default=60,
        help="frames timed for the baselines, encode only and naive (default %(default)s)",
    )
    args = parser.parse_args()
    if any(side % 2 for side in args.size):  # the video writer's codec halves the colour planes
        parser.error(f"--size {args.size[0]}x{args.size[1]}: give even sides, e.g. 1280x720")
    width, height = args.size
    settings = RenderSettings(size=(width, height), table_mm=table_for_seats(args.seats))
    scenes = playing_frames(args.frames, args.seats)
    n_cards = max(len(s.cards) for s in scenes)
    print(
        f"scene: {args.seats} seats, up to {n_cards} cards, {args.seats} hands, "
        f"{width}x{height} @ {args.fps:g} fps, cv2 threads {cv2.getNumThreads()}"
    )

    start = time.perf_counter()
    renderer = TableRenderer(settings, [builtin_design()] * args.seats, default_backs(args.seats))
    print(f"setup: {time.perf_counter() - start:.2f} s")

    frames = []
    with tempfile.TemporaryDirectory() as tmp:
        render_s = encode_s = 0.0
        with VideoSink(Path(tmp) / "bench.mp4", args.fps, (width, height)) as sink:
            for index, scene in enumerate(scenes):
                t0 = time.perf_counter()
                frame = renderer.render(scene, index)
                t1 = time.perf_counter()
                sink.write(frame)
                t2 = time.perf_counter()
                render_s += t1 - t0
                encode_s += t2 - t1
                if index < args.naive_frames:
                    frames.append(frame)
        total = render_s + encode_s
        video_s = args.frames / args.fps
        print(
            f"renderer: {1000 * render_s / args.frames:.1f} ms/frame render + "
            f"{1000 * encode_s / args.frames:.1f} ms/frame encode = "
            f"{1000 * total / args.frames:.1f} ms/frame; "
            f"video s / wall s = {video_s / total:.2f}"
        )

        t0 = time.perf_counter()
        with VideoSink(Path(tmp) / "encode_only.mp4", args.fps, (width, height)) as sink:
            for frame in frames:
                sink.write(frame)
        encode_only = (time.perf_counter() - t0) / len(frames)
        print(
            f"baseline encode only: {1000 * encode_only:.1f} ms/frame; "
            f"video s / wall s = {1 / (args.fps * encode_only):.2f}"
        )

    t0 = time.perf_counter()
    for index, scene in enumerate(scenes[: args.naive_frames]):
        renderer.patches._cache.clear()
        renderer.layer = CardLayer(renderer.background, renderer.patches)
        renderer.render(scene, index)
    naive = (time.perf_counter() - t0) / len(scenes[: args.naive_frames])
    print(
        f"baseline naive (no caches) render: {1000 * naive:.1f} ms/frame; "
        f"video s / wall s incl. encode = {1 / (args.fps * (naive + encode_only)):.2f}"
    )
    rendering = render_s / args.frames
    print(
        f"ours against the baselines: render {rendering / naive:.2f}x the naive one's time; "
        f"render and encode {total / args.frames / encode_only:.2f}x encoding alone"
    )
    print(f"goal: real time (video s / wall s >= 1) -> {'met' if video_s >= total else 'NOT met'}")


if __name__ == "__main__":
    main()
