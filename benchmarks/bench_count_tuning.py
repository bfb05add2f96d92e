"""The count on spreads the benchmark never draws, to tune its settings on.

Run: .venv/bin/python benchmarks/bench_count_tuning.py KIND [KIND ...] [--seed 1]
    [--spreads 20] [--each]
Each KIND (or `every`) is drawn as `bench_recognition.py` draws it, at another seed, its
spreads numbered from 500 (so every render differs too); the benchmark's own seed is refused.
The figures of the count's settings' docstrings come from these spreads (seeds 1 and 2).
Needs ../shared.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code first

from count_spreads import BENCHMARK_SEED, SHARED, SPREAD_KINDS, counting

from simulator.training import whole_number
from vision.identify import CardReader

TUNING_FIRST_SCENE = 500
"""Tuning spreads are numbered from here: the benchmark's are 0-19, and the number seeds the
render."""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "kinds",
        nargs="+",
        choices=[*SPREAD_KINDS, "every"],
        metavar="KIND",
        help=f"kinds of spread: {', '.join(SPREAD_KINDS)}, or every",
    )
    parser.add_argument("--seed", type=int, default=1, help="draw seed (default: %(default)s)")
    parser.add_argument(
        "--spreads", type=whole_number(1), default=20, help="of each kind (default: 20)"
    )
    parser.add_argument(
        "--each", action="store_true", help="also each spread counted wrong or warned of"
    )
    args = parser.parse_args()
    if args.seed == BENCHMARK_SEED:
        parser.error(f"--seed {BENCHMARK_SEED} draws the benchmark's spreads: tune on another")
    if not (SHARED / "decks").is_dir():
        parser.error(f"{SHARED} has no decks/: the shared folder is needed")
    reader = CardReader()
    kinds = list(SPREAD_KINDS) if "every" in args.kinds else args.kinds
    for name in kinds:
        counting(
            reader,
            args.spreads,
            SPREAD_KINDS[name],
            seed=args.seed,
            first_scene=TUNING_FIRST_SCENE,
            each=args.each,
        )


if __name__ == "__main__":
    main()
