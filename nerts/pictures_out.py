"""Writing the pictures `--annotate` draws: checked before any work, marked as drawn by nerts
(so that a later run replaces its own picture but never a photo), and written whole."""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import stat
import zlib
from pathlib import Path

import cv2
import numpy as np

from nerts.errors import UserError, file_argument, make_folder, refuse_name_not_utf8
from nerts.photos import ANNOTATION_MARK, decoder_quiet, drawn_by_nerts


def picture_path(text: str) -> Path:
    """An --annotate argument: a path OpenCV can write a picture to, told by its extension
    (checked before any photo is read, so a mistyped name costs no work)."""
    path = file_argument(text)
    try:
        refuse_name_not_utf8(path)
    except UserError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if path.is_dir():
        raise argparse.ArgumentTypeError(
            f"{text} is a folder: name a picture in it, e.g. {path / 'found.png'}"
        )
    if path.exists() and not path.is_file():  # replaced by a picture, it would be gone
        raise argparse.ArgumentTypeError(
            f"cannot write a picture to {text}: it is not a plain file (a pipe or device)"
        )
    # Only these carry the mark that lets a later run draw over its own picture.
    if path.suffix.lower() not in ANNOTATION_SUFFIXES:
        raise argparse.ArgumentTypeError(f"cannot write a picture to {text!r}: name a .png or .jpg")
    # The folder it goes in is made when it is written; the nearest one that exists must let us.
    existing = next(folder for folder in path.absolute().parents if folder.exists())
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: {existing} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write {text}: {existing} is not writable")
    return path


ANNOTATION_SUFFIXES = {".png", ".jpg", ".jpeg"}
"""The kinds of picture --annotate writes: those `_marked` marks as drawn by nerts."""


def refuse_replacing_pictures(outputs: list[Path]) -> None:
    """A `UserError` if a file in `outputs` exists and is not a picture --annotate drew
    (a photo of another round, say): it would be lost."""
    for path in outputs:
        if not path.is_file():
            continue
        drawn = drawn_by_nerts(path)
        if drawn is False:  # None: unreadable, said when it is written
            raise UserError(
                f"--annotate would replace {path}, which nerts did not draw (a photo?): name "
                "another file, or remove it first"
            )


def _marked(encoded: bytes) -> bytes:
    """The encoded picture with `ANNOTATION_MARK` after its first header, where it has one."""
    if encoded.startswith(PNG_SIGNATURE):
        chunk = b"tEXt" + ANNOTATION_MARK
        length = len(ANNOTATION_MARK).to_bytes(4, "big")
        crc = zlib.crc32(chunk).to_bytes(4, "big")
        return encoded[:PNG_HEADER_END] + length + chunk + crc + encoded[PNG_HEADER_END:]
    if encoded.startswith(JPEG_START):
        comment = JPEG_COMMENT + (len(ANNOTATION_MARK) + 2).to_bytes(2, "big") + ANNOTATION_MARK
        return JPEG_START + comment + encoded[len(JPEG_START) :]
    return encoded


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_HEADER_END = 33
"""The signature (8 bytes) and the IHDR chunk (25), which must come first."""
JPEG_START, JPEG_COMMENT = b"\xff\xd8", b"\xff\xfe"


def write_annotated(path: Path, image: np.ndarray, drawn: bool = True) -> None:
    """`image` written whole at `path`, marked as drawn by nerts (`ANNOTATION_MARK`) unless it
    stands for a photo (`drawn` False: the demo's photo of the spread and its backs)."""
    make_folder(path.parent)
    if path.exists() and not path.is_file():  # the OUT-<n> of several photos: made meanwhile
        raise UserError(f"cannot write {path}: it is not a plain file (a pipe or device)")
    try:
        with decoder_quiet():  # libpng's own warnings, said here as one error
            encoded, buffer = cv2.imencode(path.suffix, image)
    except cv2.error as error:
        raise UserError(f"cannot write {path}: {error}") from None
    if not encoded:
        raise UserError(f"cannot write {path}")
    try:
        _write_whole(path, _marked(buffer.tobytes()) if drawn else buffer.tobytes())
    except OSError as error:
        raise UserError(f"cannot write {path}: {error.strerror or error}") from None


def _write_whole(path: Path, data: bytes) -> None:
    """`data` in `path`, all or nothing: written beside it under a name of its own, then put in
    its place, so that a full disk or a stop leaves no picture cut short (which a later run
    would refuse to replace, as not drawn by nerts). Through a symbolic link, the file it
    names is replaced; a file replaced keeps its permissions."""
    target = Path(os.path.realpath(path))
    # A letter cut in two is left out: the name stays UTF-8, as some file systems require.
    kept = os.fsencode(target.name)[:PARTIAL_NAME_KEPT].decode("utf-8", "ignore")
    partial = target.with_name(f".{kept}.{secrets.token_hex(4)}.part")
    try:
        # New and never through a link planted at that name; 0o666 less the umask, as a plain
        # open would make it (mkstemp's would be private).
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        with open(os.open(partial, flags, 0o666), "wb") as out:
            out.write(data)
            if target.exists():
                os.fchmod(out.fileno(), stat.S_IMODE(target.stat().st_mode))
        os.replace(partial, target)
    except BaseException:  # a full disk, Ctrl-C: the partial picture goes
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        raise


PARTIAL_NAME_KEPT = 64
"""Bytes of a picture's name kept in its partial file's name: the whole, with the suffix
added, could be too long for the file system where the picture's own name is not."""
