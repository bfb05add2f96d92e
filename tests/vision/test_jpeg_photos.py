"""JPEG photos as phones and copies leave them: cut short (also when turned by their tag or
progressive), damaged inside, padded, with data after their end; told by libjpeg's own words of
damage, whatever the decoder writes itself."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np
import pytest

from nerts.errors import UserError
from nerts.photos import (
    JPEG_MISSING_GREY,
    _jpeg_end,
    damaged_said,
    decoder_quiet,
    read_photo,
)
from vision.backs import read_reference


def test_a_whole_jpeg_is_not_taken_for_one_cut_short(tmp_path: Path) -> None:
    noise = np.random.default_rng(0).integers(0, 256, (200, 200, 3), np.uint8)
    noise[-20:] = JPEG_MISSING_GREY + 1  # flat, but not the decoder's grey
    whole = tmp_path / "whole.jpg"
    whole.write_bytes(cv2.imencode(".jpg", noise)[1].tobytes())
    assert read_photo(whole).shape == (200, 200, 3)


def _turned_by_its_tag(jpeg: bytes, orientation: int) -> bytes:
    """The JPEG with an EXIF orientation tag (6: turn 90 degrees clockwise to view), as a phone
    held upright writes it: big-endian TIFF, one IFD entry (0x0112, SHORT, 1 value)."""
    entry = (0x0112).to_bytes(2, "big") + (3).to_bytes(2, "big") + (1).to_bytes(4, "big")
    ifd = (1).to_bytes(2, "big") + entry + orientation.to_bytes(2, "big") + bytes(2) + bytes(4)
    exif = b"Exif\0\0" + b"MM\0*" + (8).to_bytes(4, "big") + ifd
    return jpeg[:2] + b"\xff\xe1" + (len(exif) + 2).to_bytes(2, "big") + exif + jpeg[2:]


def test_a_jpeg_cut_short_is_refused_also_when_its_tag_turns_it(tmp_path: Path) -> None:
    """Turned by its orientation tag, the decoder's grey lies along a side, not the bottom."""
    picture = np.random.default_rng(4).integers(0, 256, (300, 400, 3), np.uint8)
    jpeg = _turned_by_its_tag(bytes(cv2.imencode(".jpg", picture)[1]), 6)
    whole, cut = tmp_path / "whole.jpg", tmp_path / "cut.jpg"
    whole.write_bytes(jpeg)
    cut.write_bytes(jpeg[: 2 * len(jpeg) // 3])
    assert read_photo(whole).shape == (400, 300, 3)  # the tag is read: turned upright
    with pytest.raises(UserError, match=f"image {cut} is cut short"):
        read_photo(cut)


def _progressive_jpeg(seed: int) -> bytes:
    picture = cv2.GaussianBlur(
        np.random.default_rng(seed).integers(0, 256, (240, 320, 3), np.uint8), (0, 0), 3
    )
    return bytes(cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1])


def test_a_progressive_jpeg_cut_short_is_refused_though_no_grey_shows(tmp_path: Path) -> None:
    # Its first scans cover the whole picture: cut short, it decodes blurred, not grey.
    cut = tmp_path / "half.jpg"
    cut.write_bytes(_progressive_jpeg(1)[: len(_progressive_jpeg(1)) // 2])
    with pytest.raises(UserError, match=f"image {cut} is cut short"):
        read_photo(cut)


def test_the_segment_walk_steps_over_stray_start_markers_and_stops_at_the_end() -> None:
    assert _jpeg_end(b"\xff\xd8\xff\xd8\xff\xd9") == (True, False)
    assert _jpeg_end(b"\xff\xd8\xff\xc2\x00\x02\xff\xda\x00\x02\x12\x34") == (False, True)


def test_data_after_a_whole_jpeg_is_no_sign_of_one_cut_short(tmp_path: Path) -> None:
    # As phones append a video or a depth map: markers of their own, after the picture's end.
    appended = tmp_path / "motion.jpg"
    tail = b"\xff\xda\x00\x08" + np.random.default_rng(2).bytes(5000) + b"\xff\xd8\x00"
    appended.write_bytes(_progressive_jpeg(3) + tail)
    assert read_photo(appended).shape == (240, 320, 3)


def test_a_whole_jpeg_padded_with_the_decoders_grey_is_not_taken_for_one_cut_short(
    tmp_path: Path,
) -> None:
    noise = np.random.default_rng(0).integers(0, 256, (200, 200, 3), np.uint8)
    noise[-40:] = JPEG_MISSING_GREY  # its end marker says it is whole
    whole = tmp_path / "padded.jpg"
    whole.write_bytes(cv2.imencode(".jpg", noise)[1].tobytes())
    assert read_photo(whole).shape == (200, 200, 3)


def test_a_back_reference_is_turned_as_its_photo_says_like_a_photo(tmp_path: Path) -> None:
    upright = np.zeros((176, 126, 3), np.uint8)
    upright[:40] = (0, 0, 255)  # red at the top
    stored = np.rot90(upright, 1)  # as a phone held sideways stores it
    jpeg = cv2.imencode(".jpg", np.ascontiguousarray(stored))[1].tobytes()
    path = tmp_path / "back.jpg"
    path.write_bytes(_turned_by_its_tag(jpeg, 6))
    reference = read_reference("anna", path)
    assert reference.shape == (176, 126, 3)
    assert reference[:30, :, 2].mean() > 200 and reference[-30:, :, 2].mean() < 50
    assert np.array_equal(read_photo(path), reference)


def _damaged_jpeg(seed: int) -> bytes:
    """A whole JPEG with a stray restart marker amid its coded data, as a bad copy leaves one."""
    picture = cv2.GaussianBlur(
        np.random.default_rng(seed).integers(0, 256, (240, 320, 3), np.uint8), (0, 0), 3
    )
    jpeg = bytes(cv2.imencode(".jpg", picture)[1])
    return jpeg[: len(jpeg) // 2] + b"\xff\xd0" + jpeg[len(jpeg) // 2 :]


def test_a_jpeg_damaged_inside_is_read_with_a_warning_naming_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    damaged = tmp_path / "damaged.jpg"
    damaged.write_bytes(_damaged_jpeg(5))
    assert read_photo(damaged).shape == (240, 320, 3)
    assert caplog.messages == [
        f"image {damaged} is damaged (libjpeg: Corrupt JPEG data: premature end of data "
        "segment): parts of the picture may be garbled and cards there missed or misnamed "
        "(copy it again)"
    ]
    assert capfd.readouterr().err == ""  # libjpeg's own words, said in ours


def test_a_back_references_warnings_are_said_though_its_decoder_is_silenced(
    files: dict[str, Path],
) -> None:
    # In a process of its own: the console is then standard error itself, which the decoder's
    # messages are caught from while a reference is read.
    grey, damaged = files["folder"] / "grey.png", files["folder"] / "damaged.jpg"
    cv2.imwrite(str(grey), np.full((176, 126), 120, np.uint8))
    damaged.write_bytes(_damaged_jpeg(6))
    command = [sys.executable, "-m", "nerts", "identify", str(files["photo"]), "--backs"]
    command += [f"anna={grey}", f"ben={damaged}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0
    said = [line.split(":")[:2] for line in done.stderr.splitlines()]
    assert said[:2] == [["warning", " back 'anna'"], ["warning", " back 'ben'"]]
    assert "is a greyscale picture" in done.stderr
    assert "Corrupt JPEG data: premature end of data segment" in done.stderr


def test_a_jpeg_cut_inside_its_last_rows_is_read_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Too little is missing for the decoder's grey to fill whole rows: only libjpeg tells.
    whole = bytes(cv2.imencode(".jpg", np.full((240, 320, 3), 90, np.uint8))[1])
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(whole[:-40])
    assert read_photo(cut).shape == (240, 320, 3)
    assert caplog.messages == [
        f"image {cut} is damaged (libjpeg: Premature end of JPEG file): parts of the picture "
        "may be garbled and cards there missed or misnamed (copy it again)"
    ]


def test_only_libjpegs_words_of_damage_are_taken_for_damage() -> None:
    assert damaged_said(["Corrupt JPEG data: 2 extraneous bytes before marker 0xd9"]) == ""
    assert damaged_said(["libpng warning: iCCP: known incorrect sRGB profile"]) == ""
    said = "Corrupt JPEG data: 147 extraneous bytes before marker 0xd9"
    assert damaged_said(["Warning: unknown JFIF revision number 2.01", said]) == said


def test_the_decoder_is_silenced_also_without_a_temporary_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_folder() -> None:
        raise FileNotFoundError(2, "No such file or directory", "/no/such/dir/tmp")

    monkeypatch.setattr(tempfile, "TemporaryFile", no_folder)
    with decoder_quiet() as messages:
        os.write(2, b"Premature end of JPEG file\n")
    assert messages == []  # nothing kept, nothing shown
