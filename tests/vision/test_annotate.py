"""Annotated images: the count's legend shows each back as it was matched, with its count."""

from __future__ import annotations

import numpy as np

from vision.annotate import LEGEND_BGR, with_legend


def _plain(colour: tuple[int, int, int], height: int, width: int) -> np.ndarray:
    return np.full((height, width, 3), colour, np.uint8)


def test_the_legend_shows_each_reference_in_its_row_beside_the_photo() -> None:
    photo = _plain((90, 90, 90), 720, 1280)
    red, blue, green = (30, 30, 200), (200, 60, 20), (40, 180, 40)
    wide = _plain(blue, 189, 264)
    wide[:, 132:] = green  # its right half: the top once turned portrait
    backs = [("anna", _plain(red, 264, 189), 9), ("ben", wide, 12)]
    out = with_legend(photo, backs)
    assert out.shape[0] == 720 and out.shape[1] > 1280
    assert np.array_equal(out[:, :1280], photo)
    panel = out[:, 1280:]
    # Each row holds its back's colour (the wide one turned portrait), in the order given.
    rows = [np.flatnonzero(np.all(panel == colour, axis=2).any(axis=1)) for colour in (red, blue)]
    assert rows[0].size and rows[1].size and rows[0].max() < rows[1].min()
    columns = np.flatnonzero(np.all(panel == blue, axis=2).any(axis=0))
    greens = np.flatnonzero(np.all(panel == green, axis=2).any(axis=1))
    assert greens.max() < rows[1].min()  # the wide reference turned a quarter, portrait
    # Beside each reference its name and count are written.
    text = np.all(panel > 150, axis=2)  # white, anti-aliased
    for first, last in ((rows[0].min(), rows[0].max()), (greens.min(), rows[1].max())):
        assert text[first : last + 1, columns.max() + 1 :].any()
    assert np.all(panel[-5:] == LEGEND_BGR)


def test_many_backs_share_the_photo_height() -> None:
    photo = _plain((90, 90, 90), 200, 300)
    backs = [(f"player {n}", _plain((0, 0, 25 * n), 88, 63), n) for n in range(1, 9)]
    out = with_legend(photo, backs)
    assert out.shape[0] == 200
    for n in range(1, 9):
        assert np.all(out[:, 300:] == (0, 0, 25 * n), axis=2).any()
