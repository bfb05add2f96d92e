"""Running the `nerts` command in process, as the command-line tests do."""

from __future__ import annotations

from pathlib import Path

import pytest

from nerts.cli import main

GOLDEN = Path(__file__).parent / "golden"
"""Inputs and the exact outputs expected of them."""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`nerts ARGV...`: its exit status, and what it printed on standard output and error."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err
