"""The rule book and contracts the repository holds are the project's own."""

from __future__ import annotations

from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
SHARED = REPOSITORY.parent / "shared"
COPIES = ["RULES.md", "contracts/events.md", "contracts/box-protocol.md"]


@pytest.mark.parametrize("name", COPIES)
def test_the_copies_in_docs_are_the_shared_ones(name: str) -> None:
    if not SHARED.is_dir():
        pytest.skip("no ../shared beside the repository")
    assert (REPOSITORY / "docs" / name).read_bytes() == (SHARED / name).read_bytes()
