"""Errors caused by what the user gave us: reported as one clear line, never a traceback."""

from __future__ import annotations

import argparse
import codecs
import contextlib
import errno
import os
import shlex
import sys
from pathlib import Path


class UserError(Exception):
    """A mistake in the user's input (a file, an option, a device URL) that we can explain."""


FAILURE_STATUS = 1
"""The exit status of a command whose work failed though what it was given was right (a full
disk, a box that did not take a command)."""
USER_ERROR_STATUS = 2
"""The exit status of a mistake in what a command was given (a `UserError`, or argparse's)."""
DISK_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)
"""Write errors that are the machine's state, not a fault of the command: said in one line."""


def cannot_write(path: Path, error: OSError) -> Exception:
    """What to raise where `path` could not be written: for a full disk, the error itself
    naming the file (the work failed, though what was given was right: `FAILURE_STATUS`);
    else a `UserError` (a place given that cannot be written)."""
    if error.errno in DISK_FULL_ERRNOS:
        return OSError(error.errno, error.strerror, str(path))
    return UserError(f"cannot write {path}: {error.strerror or error}")


def stdout_to_devnull() -> None:
    """Points standard output at nothing once its reader went away: Python flushes it again at
    exit, into a closed pipe or a full disk, with another error, unless it is pointed elsewhere."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def folder_argument(text: str) -> Path:
    """argparse type of a folder's path, not the empty text (which would be taken for the
    current folder without a word)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("give a folder's path (or . for this one)")
    return Path(text)


NAME_BYTES_MAX = 255
"""The longest name of one file or folder that Linux, macOS and Windows file systems take."""
SHOWN_NAME_START = 40
"""Characters of an over-long name shown in its error."""


def too_long_said(name: object) -> str:
    """That a path holds a name longer than a file system takes, its start shown."""
    text = shown_name(str(name)) if name is not None else "a file name"
    start = text if len(text) <= SHOWN_NAME_START else f"{text[:SHOWN_NAME_START]}..."
    return f"'{start}': a name longer than files may have ({NAME_BYTES_MAX} bytes): shorten it"


def file_argument(text: str) -> Path:
    """argparse type of a file's path: not the empty text (which a `Path` takes for the current
    folder, said then as '.'), nor one ending in '/', which names a folder (a `Path` drops it:
    '--out results/' would write a file named 'results')."""
    if not text:
        raise argparse.ArgumentTypeError("the path is empty")
    path = Path(text)
    if any(len(os.fsencode(part)) > NAME_BYTES_MAX for part in path.parts):
        raise argparse.ArgumentTypeError(too_long_said(text))
    if text.endswith(("/", os.sep)) and not path.is_dir():  # a folder is said so where opened
        raise argparse.ArgumentTypeError(
            f"{text!r} ends in '/', as a folder does: give a file's path, e.g. {path / 'FILE'}"
        )
    return path


def backs_go_after_backs(backs: list[str]) -> str:
    """Where `backs` (NAME=REF values given where something else was asked for) belong: a
    command that pastes as given."""
    return f"backs are given after --backs: --backs {' '.join(map(shlex.quote, backs))}"


def make_folder(folder: Path) -> None:
    """Makes `folder` and its parents, or says in one line why it cannot be made."""
    blocking = next((part for part in (folder, *folder.parents) if part.is_file()), None)
    if blocking is not None:
        raise UserError(f"cannot make folder {folder}: {blocking} is a file")
    if folder.exists() and not folder.is_dir():  # a device such as /dev/null
        raise UserError(f"cannot make folder {folder}: it is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot make folder {folder}: {error.strerror or error}") from None


def refuse_overwriting(outputs: list[Path], inputs: list[Path], option: str = "--annotate") -> None:
    """A `UserError` if a file in `outputs` (given with `option`) would be written over one
    of the `inputs` (the photos, references or log given): it would be lost before it is read."""
    given = {_file_identity(path) for path in inputs}
    for output in outputs:
        if _file_identity(output) in given:
            raise UserError(f"{option} would write {output} over an input; name another file")


def _file_identity(path: Path) -> object:
    """What makes two names one file: its device and inode where it exists (a hard link, or
    /dev/stdin fed from the file, is another name for it), else its resolved path."""
    try:
        found = path.stat()
    except OSError:
        return resolved(path)
    return (found.st_dev, found.st_ino)


def resolved(path: Path) -> Path:
    """`path` made absolute, its symbolic links followed as far as they lead: a loop of links
    (which `Path.resolve` raises on) is left where it loops."""
    return Path(os.path.realpath(path))


def names_a_file(name: str) -> bool:
    """Whether `name` is a file's (a name too long to be one, say, is not)."""
    with contextlib.suppress(OSError):
        return os.path.isfile(name)
    return False


ESCAPED_BYTES = "nerts-escaped-bytes"
"""The error handler of the commands' own output (`escape_unreadable_output`): a file name's
bytes that are not UTF-8 ('caf\\xe9.jsonl', held by Python as surrogates) are written as their
escapes, as `shown_name` says them, not as '\\udce9', nor a traceback on standard output."""


def _escaped_bytes(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start : error.end]
    return "".join(
        f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF else ascii(c)[1:-1] for c in text
    ), error.end


codecs.register_error(ESCAPED_BYTES, _escaped_bytes)


def escape_unreadable_output() -> None:
    """Standard output and error write what they cannot encode as escapes (`ESCAPED_BYTES`)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a stream already closed
                reconfigure(errors=ESCAPED_BYTES)


def shown_name(name: str) -> str:
    """A file name as a person can read it: bytes that are not UTF-8 as escapes ('caf\\xe9.jpg'),
    as `refuse_name_not_utf8` says them, not as Python's surrogates ('caf\\udce9.jpg')."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def refuse_name_not_utf8(path: Path) -> None:
    """A `UserError` for a file name whose bytes are not UTF-8 text (a file named on an old
    system, 'caf\\xe9.jpg'): OpenCV, given such a name, ends the process with a segmentation
    fault, so every path the image library opens or writes is checked first."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        shown = shown_name(str(path))
        raise UserError(
            f"'{shown}' is not UTF-8 text (a name from another system?), which the image "
            "library cannot open: rename it"
        ) from None
