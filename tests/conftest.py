from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

# The property tests draw the same examples on every run, so that a run fails or passes for the
# code alone; HYPOTHESIS_PROFILE=explore draws new ones, to look for faults on purpose.
HYPOTHESIS_PROFILES = {"repeatable": True, "explore": False}
for _name, _derandomize in HYPOTHESIS_PROFILES.items():
    settings.register_profile(_name, derandomize=_derandomize)
_profile = os.environ.get("HYPOTHESIS_PROFILE", "repeatable")
if _profile not in HYPOTHESIS_PROFILES:
    raise pytest.UsageError(
        f"HYPOTHESIS_PROFILE={_profile!r}: give one of {', '.join(HYPOTHESIS_PROFILES)}"
    )
settings.load_profile(_profile)


@pytest.fixture(autouse=True, scope="session")
def committed_models_untouched() -> Iterator[None]:
    """No test may write into models/, where training publishes by default: a step left
    unstubbed once overwrote the committed 8-bit classifier mid-suite."""
    models = REPO / "models"

    def stamps() -> dict[str, int]:
        return {path.name: path.stat().st_mtime_ns for path in models.glob("*.onnx")}

    before = stamps()
    yield
    assert stamps() == before, "a test wrote into models/"


@pytest.fixture(autouse=True, scope="session")
def checkout_left_as_found() -> Iterator[None]:
    """No test leaves files at the top of the checkout (tools' hidden caches aside): a
    simulation run in the working folder once left one there, and it was committed."""

    def entries() -> set[str]:
        return {path.name for path in REPO.iterdir() if not path.name.startswith(".")}

    before = entries()
    yield
    assert entries() <= before, f"tests left {sorted(entries() - before)} in {REPO}"


@pytest.fixture(autouse=True)
def logging_as_it_was() -> Iterator[None]:
    """The root logger's handlers and level put back after each test: a test running the
    command line configures logging onto that test's captured standard error, which is closed
    once it ends, and a later test's warnings would be written there ("Logging error")."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers, root.level = handlers, level
