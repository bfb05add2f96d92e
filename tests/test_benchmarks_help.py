"""Every benchmark script explains its options: `--help` prints and exits 0.

The scripts are run by hand, not by the suite, so a slip in their argument parsers (a bare `%`
in a help text) would otherwise surface only when someone asks one for help.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from models import evaluate

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
    assert done.stdout.startswith(f"usage: {script.name}")
    # Every option the script defines is explained (a line of its own, with words after it).
    defined = set(re.findall(r'add_argument\(\s*"(--[a-z-]+)"', script.read_text()))
    assert defined, f"{script.name} defines no options"
    lines = done.stdout.splitlines()
    for option in defined:
        at = next(i for i, line in enumerate(lines) if line.lstrip().startswith(option))
        following = " ".join(lines[at + 1 : at + 2])
        wrapped = following.startswith(" " * 10) and not following.lstrip().startswith("-")
        words = lines[at].split()[1:] + (following.split() if wrapped else [])
        assert len(words) >= 3, f"{script.name} {option} has no help"


def test_models_evaluate_runs_the_recognition_benchmark_writing_its_figures() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "models.evaluate", "--help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m models.evaluate ")  # the command typed
    assert "--metrics FILE.json" in done.stdout


@pytest.mark.parametrize(
    ("arguments", "given"),
    [
        ([], ["--metrics", str(evaluate.METRICS)]),  # the plain run: the committed figures
        (["--count-only"], ["--count-only"]),  # a partial run leaves them as committed
        (["--metric", "quick.json"], ["--metric", "quick.json"]),  # abbreviated, as argparse takes
        (["--metrics=quick.json", "--tiled"], ["--metrics=quick.json", "--tiled"]),
    ],
)
def test_only_the_plain_evaluation_writes_the_committed_figures(
    arguments: list[str],
    given: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    benchmark = tmp_path / "bench_recognition.py"
    benchmark.write_text("import sys\ndef main(prog):\n    print(sys.argv[1:], prog)\n")
    monkeypatch.setattr(evaluate, "BENCHMARK", benchmark)
    monkeypatch.setattr(sys, "argv", sys.argv)  # restored after: main sets it as a script's
    monkeypatch.setattr(sys, "path", list(sys.path))
    evaluate.main(arguments)
    said = capsys.readouterr().out.splitlines()
    assert said[-1] == f"{given} python -m models.evaluate"
    assert ("figures printed only" in said[0]) == (arguments in (["--count-only"],))


def test_the_referee_benchmark_runs_on_a_small_log() -> None:
    """Its log is a game longer than most: a bound on the rules' options once broke it."""
    script = next(path for path in BENCHMARKS if path.stem == "bench_referee")
    done = subprocess.run(
        [sys.executable, str(script), "--plays", "300", "--repeats", "1", "--ticks", "100"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("baseline, JSON decode only:")
