"""The firmware's LCD score row (`score_pages.c`), compiled on the host: every scored seat is
shown, a 16-column page at a time, no entry cut across two pages."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from collections.abc import Callable

import pytest

from hardware.simavr import SKETCH_DIR

COLUMNS = 16
ScorePageText = Callable[..., int]


@pytest.fixture(scope="module")
def score_page_text(tmp_path_factory: pytest.TempPathFactory) -> ScorePageText:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler for the host (cc or gcc)")
    library = tmp_path_factory.mktemp("score_pages") / "score_pages.so"
    source = SKETCH_DIR / "score_pages.c"
    command = [
        compiler,
        "-shared",
        "-fPIC",
        "-O1",
        "-Wall",
        "-Werror",
        "-o",
        str(library),
        str(source),
    ]
    subprocess.run(command, check=True, timeout=60)
    function = ctypes.CDLL(str(library)).score_page_text
    function.restype = ctypes.c_uint8
    return function


def _pages(function: ScorePageText, scores: dict[int, int], seats: int = 8) -> list[str]:
    """Every page of the row for `scores` (seat -> points), asking past the last page once to
    check the pages wrap."""
    points = (ctypes.c_int16 * seats)(*(scores.get(seat, 0) for seat in range(seats)))
    scored = (ctypes.c_bool * seats)(*(seat in scores for seat in range(seats)))
    text = ctypes.create_string_buffer(COLUMNS + 1)
    count = function(points, scored, seats, 0, text)
    pages = []
    for page in range(count + 1):
        assert function(points, scored, seats, page, text) == count
        pages.append(text.value.decode())
    assert pages[-1] == pages[0]
    return pages[:-1] if count else []


def test_scores_that_fit_a_row_are_one_page(score_page_text: ScorePageText) -> None:
    assert _pages(score_page_text, {}) == []
    assert _pages(score_page_text, {0: 12, 1: 34, 2: 56}) == ["0:12 1:34 2:56"]
    assert _pages(score_page_text, {1: -3, 3: 7}) == ["1:-3 3:7"]


def test_four_seats_past_two_digits_take_two_pages(score_page_text: ScorePageText) -> None:
    # The row the old firmware showed was "0:12 1:34 2:56 3": seat 3's total cut off.
    assert _pages(score_page_text, {0: 12, 1: 34, 2: 56, 3: 78}) == ["0:12 1:34 2:56", "3:78"]
    assert _pages(score_page_text, {0: -12, 1: 105, 2: 7, 3: -3}) == ["0:-12 1:105 2:7", "3:-3"]


def test_every_seat_shows_whole_on_some_page(score_page_text: ScorePageText) -> None:
    scores = {seat: -32768 + 9000 * seat for seat in range(8)}
    pages = _pages(score_page_text, scores)
    assert all(len(page) <= COLUMNS for page in pages)
    entries = [entry for page in pages for entry in page.split(" ")]
    assert entries == [f"{seat}:{points}" for seat, points in scores.items()]
