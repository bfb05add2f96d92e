"""Reading photos for the vision commands, with errors that name the file."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import cv2
import numpy as np

from nerts.errors import (
    UserError,
    names_a_file,
    refuse_name_not_utf8,
)
from nerts.limits import DECODE_PIXELS_MAX, MAX_MEGAPIXELS

log = logging.getLogger(__name__)

MIN_SIDE_PX = 32
"""Photos narrower or lower than this hold no card the models could find (cards are found
from about 50 px long); refused with a clear message."""


SMALL_PHOTO_SIDE_PX = 640
"""A photo whose longer side is shorter than this, where no card is found, is likely a preview
or a thumbnail (a chat app's): its cards would be under about 50 px long, too small to find."""


def small_photo_said(image: np.ndarray) -> str:
    """Why no card is found in a photo too small (`SMALL_PHOTO_SIDE_PX`), or "" if not."""
    height, width = image.shape[:2]
    if max(height, width) >= SMALL_PHOTO_SIDE_PX:
        return ""
    return (
        f"it is only {width} x {height} pixels, too small for cards to be found: give the "
        "photo itself, not a preview (1280 pixels wide or more)"
    )


DARK_PHOTO_MEAN_MAX = 40
"""A photo whose mean brightness (0-255) is below this, where no card is found, is too dark:
the darkest of the 424 photos of ../shared/real, whose cards are found, has a mean of 17."""


def no_card_said(image: np.ndarray) -> str:
    """Why no card may be found in a photo: too small (`small_photo_said`) or too dark
    (`DARK_PHOTO_MEAN_MAX`), or "" where neither is likely."""
    small = small_photo_said(image)
    if small:
        return small
    brightness = float(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).mean())
    if brightness < DARK_PHOTO_MEAN_MAX:
        return (
            f"it is very dark (mean brightness {brightness:.0f} of 255): light the table and "
            "take it again"
        )
    return ""


CUT_SHORT_SAID = "is cut short: the file ends before the picture does (copy it again)"
"""What is said of a photo or back reference `cut_short`, after its name."""


PATTERNS_SUGGESTED_MAX = 3
"""The most patterns suggested for a folder's photos (one for each ending among them)."""


def _photo_patterns(folder: Path) -> str:
    """How to give a folder's photos, with the endings its photos have, as spelled there
    (a phone's .JPG is not matched by *.jpg): "folder/*.JPG folder/*.jpg"."""
    try:
        endings = Counter(
            entry.suffix for entry in folder.iterdir() if entry.suffix.lower() in PHOTO_SUFFIXES
        )
    except OSError:  # said by whoever reads the folder next
        endings = Counter()
    ranked = sorted(endings, key=lambda ending: (-endings[ending], ending))  # the most first
    common = ranked[:PATTERNS_SUGGESTED_MAX] or [".jpg"]
    return " ".join(str(folder / f"*{ending}") for ending in common)


def check_photo(path: Path, several: bool = False) -> None:
    """A `UserError` unless `path` is a file of a kind OpenCV decodes (told from its first
    bytes, without decoding it): every photo is checked before the first is worked on. For a
    command taking `several` photos, a folder's are suggested all at once."""
    refuse_name_not_utf8(path)
    if path.is_dir():
        example = _photo_patterns(path) if several else str(path / "spread.jpg")
        give = "the photos" if several else "one photo"
        raise UserError(f"{path} is a folder: give {give} in it, e.g. {example}")
    if not path.is_file():
        if path.exists():
            raise UserError(f"{path} is not a regular file")
        raise UserError(f"image not found: {path}{_where_link_leads(path)}")
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        raise UserError(f"cannot read image {path}: {error.strerror or error}") from None
    if not cv2.haveImageReader(str(path)):
        raise UserError(f"cannot read image {path} ({undecodable_said(path)})")
    if drawn_by_nerts(path):
        raise UserError(f"{path} {DRAWN_SAID}: give the photo it was drawn from")


ANNOTATION_MARK = b"Software\0nerts annotation"
"""Written into every picture --annotate draws (a PNG's text chunk, a JPEG's comment), right
after the file's first header, so that drawing again replaces it while a photo is never
replaced, and it is not taken for a photo (its key and thumbnails counted as cards)."""
MARK_SEARCH_BYTES = 256
"""The start of a file the mark is looked for in: it follows a PNG's 33-byte header or a
JPEG's 2-byte start marker."""


def drawn_by_nerts(path: Path) -> bool | None:
    """Whether the file at `path` is a picture --annotate drew (`ANNOTATION_MARK`); None where
    it cannot be read."""
    try:
        with path.open("rb") as handle:
            return ANNOTATION_MARK in handle.read(MARK_SEARCH_BYTES)
    except OSError:
        return None


DRAWN_SAID = "is a picture nerts drew (--annotate), not a photo"
"""Said, after its name, of a picture --annotate drew given as a photo or a back reference."""


HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"}
"""The 'ftyp' brands of HEIC/HEIF pictures (ISO 23008-12), an iPhone's own photo format, which
OpenCV does not decode (`AVIF_BRANDS` apart)."""


def _first_bytes(path: Path) -> bytes:
    """The start of a file, enough for its kind: an ISO media file's 'ftyp' box and brand."""
    try:
        with path.open("rb") as handle:
            return handle.read(12)
    except OSError:
        return b""


HEIC_SAID = (
    "a HEIC photo, an iPhone's format, which OpenCV cannot decode: export it as JPEG, or set "
    "the iPhone's Settings > Camera > Formats to Most Compatible"
)


VIDEO_SAID = "a video, not a photo: save a still of it (a frame) as JPEG or PNG"
AVIF_BRANDS = {b"avif", b"avis"}
"""The 'ftyp' brands of AVIF pictures (a still, a sequence), which some phones and browsers
save and OpenCV decodes only where it was built with an AV1 decoder."""
AVIF_SAID = "an AVIF picture, which this OpenCV cannot decode: save it as JPEG or PNG"


def undecodable_said(path: Path) -> str:
    """Why a file OpenCV cannot decode is no picture for it, and what to do where that is
    known (an iPhone's HEIC photo, also when named .jpg; a video; an empty file)."""
    start = _first_bytes(path)
    if not start and path.is_file() and path.stat().st_size == 0:
        return "the file is empty"
    if start[4:8] == b"ftyp":  # an ISO media file: a HEIC or AVIF photo, else a video
        if start[8:12] in AVIF_BRANDS:
            return AVIF_SAID
        return HEIC_SAID if start[8:12] in HEIF_BRANDS else VIDEO_SAID
    return "not a picture OpenCV can decode"


@contextlib.contextmanager
def decoder_quiet() -> Iterator[list[str]]:
    """Standard error caught while a picture is decoded: libjpeg writes "Premature end of JPEG
    file" and "Corrupt JPEG data" straight to it, past OpenCV's log level, where the commands
    say in their own words what is wrong with the file (`cut_short`, `damaged_said`). Yields
    the list the caught lines are put in when the block ends; left open, and the list empty,
    where standard error cannot be caught (none to copy). The whole process's standard error
    is redirected meanwhile: one thread at a time (`_REDIRECTING`), and another thread's
    messages of that moment are caught with the decoder's."""
    caught: list[str] = []
    with _REDIRECTING:
        sys.stderr.flush()
        try:
            saved = os.dup(STDERR_FD)
        except OSError:
            yield caught
            return
        try:
            with _catcher() as catcher:
                os.dup2(catcher.fileno(), STDERR_FD)
                try:
                    yield caught
                finally:
                    os.dup2(saved, STDERR_FD)
                    catcher.seek(0)
                    text = catcher.read(CAUGHT_BYTES_MAX).decode("utf-8", "replace")
                    caught.extend(line.strip() for line in text.splitlines() if line.strip())
        finally:
            os.close(saved)


_REDIRECTING = threading.RLock()
"""Held while standard error is redirected: two threads redirecting at once had left it
redirected for good. Re-entrant, so that a decoder silenced within another only nests."""


def _catcher() -> IO[bytes]:
    """A file to catch standard error in: a temporary one, or where none can be made (no
    writable temporary folder) the null device, which keeps nothing."""
    try:
        return tempfile.TemporaryFile()
    except OSError:
        return open(os.devnull, "w+b")


CAUGHT_BYTES_MAX = 4096
"""The most of a decoder's messages kept: the first say what is wrong."""


def damaged_said(messages: list[str]) -> str:
    """What libjpeg said of damaged data among a decoder's `messages` ("Corrupt JPEG data:
    premature end of data segment"), or "": the picture was decoded, but from where the damage
    lies it may be garbled (shifted colours, a band repeated) or grey. libjpeg says only the
    first thing wrong. None of the 424 photos of ../shared/real makes it say any."""
    damage = [
        line
        for line in messages
        if line.startswith(JPEG_DAMAGE_PREFIXES) and not _harmless_padding(line)
    ]
    return damage[0] if damage else ""


JPEG_DAMAGE_PREFIXES = (
    "Corrupt JPEG data",
    "Premature end of JPEG file",
    "Inconsistent progression sequence",
    "Invalid SOS parameters",
)
"""How libjpeg begins its warnings of data it could not decode (its other warnings, of an
unknown JFIF revision or a thumbnail's size, and libpng's, say nothing of the picture)."""
EXTRANEOUS_BYTES_HARMLESS_MAX = 16
"""A byte or two before a JPEG's end marker is what some cameras and webcams leave, the picture
whole: libjpeg's "N extraneous bytes before marker 0xd9" is not taken for damage up to this
many (damaged data that ran on to the end says more: 147 in a photo with 200 bytes overwritten
mid-file)."""
_EXTRANEOUS_BEFORE_END = re.compile(r"Corrupt JPEG data: (\d+) extraneous bytes before marker 0xd9")


def _harmless_padding(message: str) -> bool:
    found = _EXTRANEOUS_BEFORE_END.fullmatch(message)
    return found is not None and int(found[1]) <= EXTRANEOUS_BYTES_HARMLESS_MAX


STDERR_FD = 2
"""The file descriptor C libraries write their messages to."""


TOO_LARGE_ADVICE = ": save a smaller copy (up to 24 megapixels shows the cards as well)"
"""What to do with a photo too large to read, said after it."""


def _decode(path: Path) -> np.ndarray | None:
    """`cv2.imread` in colour, None where it cannot decode the file; a `UserError` for a
    picture larger than the commands take, which OpenCV refuses by raising."""
    try:
        with decoder_quiet() as messages:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    except cv2.error as error:
        if "CV_IO_MAX_IMAGE_PIXELS" in str(error):
            raise UserError(
                f"image {path} is larger than {MAX_MEGAPIXELS} megapixels{TOO_LARGE_ADVICE}"
            ) from None
        raise UserError(
            f"cannot read image {path}: {str(error).strip().splitlines()[-1]}"
        ) from None
    if image is not None and damaged_said(messages) and not cut_short(path, image):
        log.warning("image %s %s", path, DAMAGED_SAID.format(damaged_said(messages)))
    return image


DAMAGED_SAID = (
    "is damaged (libjpeg: {}): parts of the picture may be garbled and cards there missed or "
    "misnamed (copy it again)"
)
"""What is said of a photo or back reference whose JPEG data is damaged, after its name."""


def read_photo(path: Path) -> np.ndarray:
    check_photo(path)
    image = _decode(path)
    if image is None:
        raise UserError(f"cannot read image {path} ({undecodable_said(path)})")
    height, width = image.shape[:2]
    if min(height, width) < MIN_SIDE_PX:
        raise UserError(
            f"image {path} is {width} x {height} pixels: too small to show a card "
            f"(at least {MIN_SIDE_PX} each way)"
        )
    if cut_short(path, image):
        raise UserError(f"image {path} {CUT_SHORT_SAID}")
    if height * width > DECODE_PIXELS_MAX:
        raise UserError(
            f"image {path} is {width} x {height} pixels, larger than {MAX_MEGAPIXELS} "
            f"megapixels{TOO_LARGE_ADVICE}"
        )
    pages = _pictures_in(path)
    if pages > 1:  # a multi-page TIFF, an animated GIF: the others would go unread unsaid
        log.warning(
            "image %s holds %d pictures (pages or frames): only the first is read", path, pages
        )
    return image


def _pictures_in(path: Path) -> int:
    """How many pictures a file holds (a TIFF's pages, an animation's frames): 1 where OpenCV
    cannot tell."""
    try:
        with decoder_quiet():
            return int(cv2.imcount(str(path)))
    except cv2.error:
        return 1


COLOURLESS_SPREAD_MAX = 3
"""A picture in which no pixel's three channels lie further apart than this is black and white
(a greyscale file, a camera's mono mode): a converter's rounding may leave a grey pixel's
channels a step or two apart, while a colour photo of grey cards on grey felt still holds
pixels far apart (each of the 424 photos of ../shared/real: 36 and more somewhere)."""
COLOURLESS_SAMPLE_STEP = 4
"""Every this many rows and columns are looked at to tell a picture without colour."""


COLOUR_SHOWN_BRIGHTNESS_MIN = DARK_PHOTO_MEAN_MAX
"""Brightness (0-255) some part of a picture must reach for a lack of colour to tell: a photo
nearly black (a lens cap left on) is too dark, not black and white. Set to the mean below which
a photo is said too dark (`no_card_said`), so that one of the two is always said."""


def without_colour(image: np.ndarray) -> bool:
    """Whether a BGR picture is black and white (`COLOURLESS_SPREAD_MAX`), not merely too dark
    to show colour (`COLOUR_SHOWN_BRIGHTNESS_MIN`)."""
    sample = image[::COLOURLESS_SAMPLE_STEP, ::COLOURLESS_SAMPLE_STEP]
    if int(sample.max(initial=0)) < COLOUR_SHOWN_BRIGHTNESS_MIN:
        return False
    return int(np.ptp(sample, axis=2).max(initial=0)) <= COLOURLESS_SPREAD_MAX


JPEG_MISSING_GREY = 128
"""What libjpeg paints every pixel of a truncated JPEG's missing part (OpenCV only warns)."""
CUT_SHORT_ROWS = 8
"""Bottom rows of exactly that grey, one block high, that mark a JPEG as cut short."""
_NEXT_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")
"""A marker after entropy-coded data: 0xFF then a byte other than a stuffed zero, a restart
marker's or more fill."""
_STANDALONE_MARKERS = {0x01, *range(0xD0, 0xD9)}
"""Markers without a length field (TEM, RST0-7, a stray SOI); EOI is handled apart."""
PROGRESSIVE_FRAMES = {0xC2, 0xC6, 0xCA, 0xCE}
"""Start-of-frame markers of progressive JPEGs: one cut short shows no grey rows (its early
scans cover the whole picture, blurred), only a missing end."""


def cut_short(path: Path, image: np.ndarray) -> bool:
    """A JPEG whose picture ends before its end marker (`_jpeg_end`), with the decoder's grey
    along an edge (its last rows, turned to a side by an orientation tag) or a progressive one;
    a whole photo padded with that grey, or with data after its end (as some cameras append),
    is not taken for one cut short."""
    with path.open("rb") as handle:
        if handle.read(2) != b"\xff\xd8":  # not a JPEG
            return False
    ended, progressive = _jpeg_end(path.read_bytes())
    # The missing part is the picture's end: its bottom, or a side where an orientation tag
    # (a phone held upright) turned the picture as it was read.
    edges = (
        image[-CUT_SHORT_ROWS:],
        image[:CUT_SHORT_ROWS],
        image[:, -CUT_SHORT_ROWS:],
        image[:, :CUT_SHORT_ROWS],
    )
    grey = any(bool((edge == JPEG_MISSING_GREY).all()) for edge in edges)
    return not ended and (grey or progressive)


def _jpeg_end(data: bytes) -> tuple[bool, bool]:
    """Whether the JPEG in `data` reaches its end marker, walking its segments (a thumbnail's
    markers lie inside one; anything after the end is not read), and whether it is
    progressive. A walk that meets what is not a marker judges nothing: ended."""
    position, progressive = 2, False
    while position + 2 <= len(data):
        if data[position] != 0xFF:
            return True, progressive
        marker = data[position + 1]
        if marker == 0xFF:  # fill before a marker
            position += 1
        elif marker == 0xD9:
            return True, progressive
        elif marker in _STANDALONE_MARKERS:
            position += 2
        else:
            progressive |= marker in PROGRESSIVE_FRAMES
            position += 2 + int.from_bytes(data[position + 2 : position + 4], "big")
            if marker == 0xDA:  # a scan: its coded data runs to the next marker
                found = _NEXT_MARKER.search(data, position)
                if found is None:
                    return False, progressive
                position = found.start()
    return False, progressive


def _where_link_leads(path: Path) -> str:
    """Why a path that is a symbolic link names no file, said after it; "" for no link."""
    if not path.is_symlink():
        return ""
    try:
        path.stat()
    except OSError as error:
        if error.errno == errno.ELOOP:
            return " (symbolic links leading round in a loop)"
    return " (a symbolic link leading nowhere)"


PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".heic", ".webp", ".tif", ".tiff", ".bmp"}
"""Names ending so are taken for a photo's where one is given in an option's values."""


def looks_like_a_photo(text: str) -> bool:
    """Whether a word given among an option's NAME=VALUE values is likely a photo put after
    the option: a file's name, or a name ending as a picture's."""
    return names_a_file(text) or Path(text).suffix.lower() in PHOTO_SUFFIXES
