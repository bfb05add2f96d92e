"""What matching clipped references at other exposures costs a count (`EXPOSURE_GAINS`).

Baseline in the same run: the same counts with the references matched only as they show
(`EXPOSURE_GAINS` emptied), alternating with ours spread by spread. Spreads: drawn as the
benchmark's all-designs spreads against references photographed under harsh light, at a seed
of their own (speed only; the accuracy figures come from `bench_recognition.py`).
Run: .venv/bin/python benchmarks/bench_count_exposures.py [--spreads 6] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code first

import numpy as np
from count_spreads import SHARED, SPREAD_KINDS
from recognition_data import count_scene

from simulator.backs import back_from_spec
from simulator.training import whole_number
from vision import backs
from vision.back_references import back_image
from vision.count import count_backs
from vision.identify import CardReader

SPEED_SEED = 4
"""Not the benchmark's seed (7): these spreads are only timed."""


def _spreads(reader: CardReader, count: int) -> list[tuple[np.ndarray, dict[str, np.ndarray]]]:
    kind = SPREAD_KINDS["allphoto"]
    assert kind.reference is not None
    rng = np.random.default_rng(SPEED_SEED)
    spreads = []
    for scene in range(count):
        picked = rng.choice(len(kind.pool), size=int(rng.integers(2, 5)), replace=False)
        specs = [kind.pool[i] for i in picked]
        drawn = [replace(back_from_spec(spec), name=Path(spec).name) for spec in specs]
        image, _ = count_scene(int(rng.integers(10, 61)), drawn, scene, kind.lights)
        references = {
            back.name: back_image(kind.reference(back, 1000 * scene + k), reader.detector).image
            for k, back in enumerate(drawn)
        }
        spreads.append((image, references))
    return spreads


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--spreads", type=whole_number(1), default=6, help="spreads counted (default 6)"
    )
    parser.add_argument(
        "--repeats", type=whole_number(1), default=3, help="counts of each spread each way"
    )
    args = parser.parse_args()
    if not (SHARED / "decks").is_dir():
        parser.error(f"{SHARED} has no decks/: the shared folder is needed")
    reader = CardReader()
    ours: list[float] = []
    baseline: list[float] = []
    for image, references in _spreads(reader, args.spreads):
        for _ in range(args.repeats):
            for gains, times in ((backs.EXPOSURE_GAINS, ours), ((), baseline)):
                with mock.patch.object(backs, "EXPOSURE_GAINS", gains):
                    started = time.perf_counter()
                    count_backs(image, reader, backs.BackMatcher(references))
                    times.append(time.perf_counter() - started)
    mine, theirs = statistics.median(ours), statistics.median(baseline)
    print(
        f"count of {args.spreads} spreads (references photographed under harsh light), median: "
        f"with exposures {mine * 1000:.0f} ms, references as they show {theirs * 1000:.0f} ms "
        f"(ratio {mine / theirs:.2f})"
    )


if __name__ == "__main__":
    main()
