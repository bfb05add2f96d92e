from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]

# The property tests draw the same examples on every run, so that a run fails or passes for the
# code alone; HYPOTHESIS_PROFILE=explore draws new ones, to look for faults on purpose.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
SHARED = REPO.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"../shared is not beside this checkout ({SHARED}); skipping shared-data test")
    return SHARED


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
