"""Every benchmark script explains its options: `--help` prints and exits 0.

The scripts are run by hand, not by the suite, so a slip in their argument parsers (a bare `%`
in a help text) would otherwise surface only when someone asks one for help.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).resolve().parents[1] / "benchmarks").glob("bench_*.py"))


def test_the_benchmarks_are_found() -> None:
    assert len(BENCHMARKS) >= 5


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda path: path.stem)
def test_help_prints_the_options(script: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(script), "--help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
    assert "--" in done.stdout.split("usage:", 1)[1]
