from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
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
