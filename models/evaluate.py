"""Evaluates the published models as `identify` and `count` use them, against the recognition
issue's targets, and writes every figure to `models/pipeline.metrics.json`:

    python -m models.evaluate                       # about 5 minutes on 2 cores; needs ../shared
    python -m models.evaluate --count-scenes 5 --metrics /tmp/quick.json

It runs `benchmarks/bench_recognition.py` (whose `--help` lists what else it measures), which
renders the never-trained-on decks/val designs and reads the real photos of ../shared/real.
"""

from __future__ import annotations

import runpy
import sys

from models.runs import REPO

BENCHMARK = REPO / "benchmarks" / "bench_recognition.py"
METRICS = REPO / "models" / "pipeline.metrics.json"
"""Where the figures go unless `--metrics` says otherwise."""


def main(argv: list[str] | None = None) -> None:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if not any(argument.startswith("--metrics") for argument in arguments):
        arguments += ["--metrics", str(METRICS)]
    if not BENCHMARK.is_file():
        raise SystemExit(f"models.evaluate: {BENCHMARK} is missing (it ships with the repository)")
    sys.argv = [str(BENCHMARK), *arguments]
    sys.path.insert(0, str(BENCHMARK.parent))  # as running the script does: its helpers beside it
    runpy.run_path(str(BENCHMARK), run_name="bench_recognition")["main"](
        prog="python -m models.evaluate"
    )


if __name__ == "__main__":
    main()
