"""The pictures --annotate writes (`nerts/pictures_out.py`): refused before any work where they
cannot be written, never over a photo or a pipe, written whole, and no result lost when they
fail."""

from __future__ import annotations

import argparse
import json
import os
import stat
from pathlib import Path

import cv2
import numpy as np
import pytest

from nerts.errors import UserError
from nerts.photos import ANNOTATION_MARK, MARK_SEARCH_BYTES
from nerts.pictures_out import picture_path, write_annotated
from tests.vision.test_user_errors import exit_status


def test_an_annotation_nowhere_writable_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_writing(path: object, mode: int) -> bool:
        return False

    monkeypatch.setattr(os, "access", no_writing)
    target = tmp_path / "new" / "found.png"
    with pytest.raises(argparse.ArgumentTypeError, match=f"{tmp_path} is not writable"):
        picture_path(str(target))


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_annotate_replaces_its_own_drawing_but_never_a_photo(
    suffix: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    drawn = files["folder"] / f"found{suffix}"
    for _ in range(2):  # drawn again over the first drawing
        assert exit_status(["identify", str(files["photo"]), "--annotate", str(drawn)]) == 0
        assert ANNOTATION_MARK in drawn.read_bytes()[:MARK_SEARCH_BYTES]
    picture = cv2.imread(str(drawn))
    assert picture is not None and picture.shape == (720, 1280, 3)
    other = files["folder"] / f"round-2{suffix}"
    cv2.imwrite(str(other), np.full((72, 128, 3), 30, np.uint8))
    before = other.read_bytes()
    arguments = ["count", str(files["photo"]), "--backs", f"a={files['back']}"]
    assert exit_status([*arguments, "--annotate", str(other)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"nerts count: error: --annotate would replace {other}, which nerts did not draw (a "
        "photo?): name another file, or remove it first"
    )
    assert other.read_bytes() == before


@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_a_picture_nerts_drew_is_refused_as_a_photo_and_as_a_back(
    suffix: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Its key and card thumbnails would be counted as cards (tab completion offers it beside
    the photo): a wrong round on the sheet."""
    drawn = files["folder"] / f"count-annotated{suffix}"
    assert exit_status(["identify", str(files["photo"]), "--annotate", str(drawn)]) == 0
    capsys.readouterr()
    said = f"{drawn} is a picture nerts drew (--annotate), not a photo"
    assert exit_status(["count", str(drawn), "--backs", f"a={files['back']}"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"nerts count: error: {said}: give the photo it was drawn from"
    )
    assert exit_status(["identify", str(files["photo"]), str(drawn)]) == 2
    assert f"{said}: give the photo it was drawn from" in capsys.readouterr().err
    assert exit_status(["count", str(files["photo"]), "--backs", f"a={drawn}"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"nerts count: error: back 'a': {said}: give a photo of one card of that back, or its "
        "design file"
    )


def test_a_picture_that_cannot_be_written_loses_no_result(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A full disk: what was found is still told, and no picture is left cut short (a later
    run would refuse to replace it, as not drawn by nerts)."""

    def disk_full(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    photo, drawn = files["photo"], files["folder"] / "drawn" / "found.png"
    again = files["folder"] / "table-again.png"
    again.write_bytes(photo.read_bytes())
    before = sorted(files["folder"].iterdir())
    arguments = ["identify", str(photo), str(again), "--json", "--annotate", str(drawn)]
    assert exit_status(arguments) == 1  # what was given was right: the disk failed
    out, err = capsys.readouterr()
    assert json.loads(out) == {str(photo): [], str(again): []}
    pictures = [drawn.parent / f"found-{number}.png" for number in (1, 2)]
    said = [line for line in err.splitlines() if "no card found" not in line]
    assert said == [
        *(f"error: cannot write {picture}: No space left on device" for picture in pictures),
        f"error: --annotate could not write {pictures[0]}, {pictures[1]} (said above)",
    ]
    arguments = ["count", str(photo), "--backs", f"a={files['back']}", "--annotate", str(drawn)]
    assert exit_status([*arguments, "--json"]) == 1
    out, err = capsys.readouterr()
    assert out == '{"a": 0}\n'
    assert err.splitlines()[-2:] == [
        f"error: cannot write {drawn}: No space left on device",
        f"error: --annotate could not write {drawn} (said above)",
    ]
    # No card found is a doubtful count: with --strict its status wins, the failure still said.
    assert exit_status([*arguments, "--json", "--strict"]) == 3
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"error: --annotate could not write {drawn} (said above)"
    )
    assert sorted(files["folder"].iterdir()) == sorted([*before, drawn.parent])
    assert list(drawn.parent.iterdir()) == []


def test_a_picture_is_written_whole_through_a_link_keeping_its_permissions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    picture = np.full((30, 40, 3), 90, np.uint8)
    drawn, link = tmp_path / "drawn.png", tmp_path / "link.png"
    write_annotated(drawn, picture)
    drawn.chmod(0o640)
    link.symlink_to(drawn.name)
    write_annotated(link, picture[::-1].copy())
    assert link.is_symlink() and stat.S_IMODE(drawn.stat().st_mode) == 0o640
    assert sorted(path.name for path in tmp_path.iterdir()) == ["drawn.png", "link.png"]

    def stopped(source: object, target: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", stopped)
    with pytest.raises(KeyboardInterrupt):
        write_annotated(drawn, picture)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["drawn.png", "link.png"]


def test_a_picture_is_never_written_over_a_pipe_and_a_long_name_of_many_bytes_is_kept(
    tmp_path: Path,
) -> None:
    pipe, link = tmp_path / "pipe", tmp_path / "found.png"
    os.mkfifo(pipe)
    link.symlink_to(pipe.name)
    with pytest.raises(argparse.ArgumentTypeError, match="it is not a plain file"):
        picture_path(str(link))
    with pytest.raises(UserError, match=f"cannot write {link}: it is not a plain file"):
        write_annotated(link, np.full((30, 40, 3), 90, np.uint8))
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    # 60 letters of 4 bytes, 80 of 3: names of 244 bytes, whose partial files' names must stay
    # under 255 (and UTF-8: 64 bytes cut a 3-byte letter in two)
    long_names = [tmp_path / ("\U0001f600" * 60 + ".png"), tmp_path / ("\u20ac" * 80 + ".png")]
    for long_name in long_names:
        write_annotated(picture_path(str(long_name)), np.full((30, 40, 3), 90, np.uint8))
    assert sorted(tmp_path.iterdir()) == sorted([pipe, link, *long_names])
