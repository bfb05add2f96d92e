"""Evaluates the published models as `identify` and `count` use them, against the recognition
issue's targets, and writes every figure to `models/pipeline.metrics.json`:

    python -m models.evaluate                       # about 5 minutes on 2 cores; needs ../shared
    python -m models.evaluate --count-scenes 5 --metrics /tmp/quick.json

Only the plain run, with no option, writes the committed figures: a run with options (fewer
scenes, other models) keeps its figures in the --metrics file given, or prints them only.

It runs `benchmarks/bench_recognition.py` (whose `--help` lists what else it measures), which
renders the never-trained-on decks/val designs and reads the real photos of ../shared/real.
"""

from __future__ import annotations

import runpy
import sys

from models.runs import REPO

BENCHMARK = REPO / "benchmarks" / "bench_recognition.py"
METRICS = REPO / "models" / "pipeline.metrics.json"
"""Where the figures of the plain run (no option) go."""
HELP = ("-h", "--help")


def main(argv: list[str] | None = None) -> None:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if not arguments:  # the standard run: its figures are the committed ones
        arguments = ["--metrics", str(METRICS)]
    elif not any(_names_metrics(argument) or argument in HELP for argument in arguments):
        print(  # noqa: T201  (the command's own output, beside the benchmark's)
            f"(figures printed only: a run with options leaves {METRICS.name} as committed; "
            "--metrics FILE keeps them)",
            flush=True,
        )
    if not BENCHMARK.is_file():
        raise SystemExit(f"models.evaluate: {BENCHMARK} is missing (it ships with the repository)")
    sys.argv = [str(BENCHMARK), *arguments]
    sys.path.insert(0, str(BENCHMARK.parent))  # as running the script does: its helpers beside it
    runpy.run_path(str(BENCHMARK), run_name="bench_recognition")["main"](
        prog="python -m models.evaluate"
    )


def _names_metrics(argument: str) -> bool:
    """Whether an argument is --metrics, whole or abbreviated as argparse takes it."""
    option = argument.split("=", 1)[0]
    return option.startswith("--m") and "--metrics".startswith(option)


if __name__ == "__main__":
    main()
