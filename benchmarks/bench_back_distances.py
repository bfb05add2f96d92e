"""The count's pairwise back distances: every card against every other, as the doubt of
`vision.back_doubts` needs them.

Baseline in the same run: the same pairs measured one at a time (`BackFeature.distance`), as
the count did before `pairwise_distances` (that way now goes through the same stacked code, a
stack of one; the code before, measured beside it on 2026-12-02, took 195 ms for 60 cards,
this way 266 ms, `pairwise_distances` 85 ms). Cards: each design of ../shared/decks/backs
whole and again with its lower half covered, as cards in a spread are.
Run: .venv/bin/python benchmarks/bench_back_distances.py [--cards 60] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code first

import numpy as np

from simulator.training import whole_number
from vision.back_features import BackFeature, back_feature, pairwise_distances
from vision.backs import read_reference
from vision.geometry import RECTIFIED_SIZE

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def _cards(count: int) -> list[BackFeature]:
    designs = sorted((SHARED / "decks" / "backs").glob("*.png"))
    if not designs:
        raise SystemExit(f"no back designs in {SHARED / 'decks' / 'backs'}")
    width, height = RECTIFIED_SIZE
    lower_covered = np.ones((height, width), np.uint8)
    lower_covered[height // 2 :] = 0
    features = []
    for n in range(count):
        design = designs[n % len(designs)]
        image = read_reference(design.stem, design)
        covered = (n // len(designs)) % 2 == 1
        features.append(back_feature(image, lower_covered if covered else None))
    return features


def _one_by_one(features: list[BackFeature]) -> np.ndarray:
    pairwise = np.zeros((len(features), len(features)))
    for i, first in enumerate(features):
        for j in range(i + 1, len(features)):
            pairwise[i, j] = pairwise[j, i] = first.distance(features[j])
    return pairwise


def _median_seconds(work: Callable[[], np.ndarray], repeats: int) -> tuple[float, np.ndarray]:
    times, result = [], np.zeros(0)
    for _ in range(repeats):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--cards", type=whole_number(1), default=60, help="cards in the spread (default 60)"
    )
    parser.add_argument(
        "--repeats", type=whole_number(1), default=5, help="timings per way (median)"
    )
    args = parser.parse_args()
    features = _cards(args.cards)
    baseline, expected = _median_seconds(lambda: _one_by_one(features), args.repeats)
    ours, found = _median_seconds(lambda: pairwise_distances(features), args.repeats)
    pairs = args.cards * (args.cards - 1) // 2
    print(
        f"{pairs} pairs of {args.cards} cards: pairwise_distances {ours * 1000:.0f} ms, one pair "
        f"at a time {baseline * 1000:.0f} ms (ratio {ours / baseline:.2f}); largest difference "
        f"{np.abs(found - expected).max():.1e}"
    )


if __name__ == "__main__":
    main()
