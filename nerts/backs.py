"""The `--backs NAME=REF ...` option that `count` and `identify` share: each player's back
registered from a picture file, a photo of one card cut down to the card."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import NamedTuple

import numpy as np

from nerts.errors import UserError, refuse_name_not_utf8
from nerts.limits import MAX_MEGAPIXELS
from nerts.photos import (
    CUT_SHORT_SAID,
    DAMAGED_SAID,
    DRAWN_SAID,
    TOO_LARGE_ADVICE,
    cut_short,
    damaged_said,
    decoder_quiet,
    drawn_by_nerts,
    looks_like_a_photo,
    undecodable_said,
)
from referee.scoresheet import control_character, same_name
from vision.back_references import BackImage, ReferenceSource, back_image
from vision.backs import (
    GREYSCALE_REFERENCE_SAID,
    BackMatcher,
    BackReferenceError,
    ReferenceTooLargeError,
    UndecodableReferenceError,
    decode_reference,
)
from vision.identify import CardReader
from vision.onnx_models import RawCard

log = logging.getLogger(__name__)


def back_references(specs: list[str], photo: Path | None = None) -> dict[str, Path]:
    """`NAME=IMAGE` specs as names and files; a `UserError` naming the spec or file. Names
    are told apart ignoring case, as `--left`, `--bonus` and the score sheet match them."""
    references: dict[str, Path] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        # Spaces round a name are a slip ("ben =back.jpg"): kept, "ben " and "ben" were two
        # players, and a blank name a row of nothing.
        name = name.strip()
        if not sep and looks_like_a_photo(spec):
            raise UserError(
                f"--backs takes NAME=IMAGE, e.g. anna=back.jpg; got {spec!r} (a photo? photos "
                "go before --backs)"
            )
        if not sep or not name or not path:
            raise UserError(f"--backs takes NAME=IMAGE, e.g. anna=back.jpg; got {spec!r}")
        control = control_character(name)
        if control is not None:  # a tab or a line break would tear the printed tables
            raise UserError(f"back name {name!r} holds the control character {control}")
        taken = [given for given in references if same_name(given, name)]
        if taken:
            spelt = taken[0]
            also = "" if spelt == name else f" (as {spelt!r}: one name, written another way)"
            raise UserError(f"back {name!r} is given twice{also}")
        refuse_name_not_utf8(Path(path))
        if not Path(path).is_file():
            why = "not a picture file" if Path(path).exists() else "reference image not found"
            raise UserError(f"back {name!r}: {why}: {path}")
        if photo is not None and _same_file(photo, Path(path)):
            raise UserError(
                f"back {name!r}: {path} is the photo being counted, not one card's back: give a "
                "photo of one card of that back, or its design file"
            )
        same_file = [given for given, ref in references.items() if _same_file(ref, Path(path))]
        if same_file:  # two players cannot share one back: surely a mistyped name or path
            raise UserError(
                f"backs {same_file[0]!r} and {name!r} are given the same image {path}: "
                "give each player's back its own image"
            )
        references[name] = Path(path)
    return references


def photo_not_given(options: dict[str, list[str] | None], usage: str) -> UserError:
    """The error for a command given no photo: most likely an option that takes any number of
    NAME=VALUE values (--backs, --left, --bonus) took it, as argparse cannot tell a photo from
    a value; `options` maps each such option to its values."""
    for option, values in options.items():
        swallowed = [value for value in values or [] if "=" not in value]
        if swallowed:
            return UserError(
                f"no IMAGE: {swallowed[-1]!r} was read as a {option} value; give the photo "
                f"before {option} ({usage})"
            )
    return UserError(f"give the photo: {usage}")


class ReferencePictures(NamedTuple):
    images: dict[str, np.ndarray]
    """Each reference's picture, BGR."""
    greyscale: frozenset[str]
    """The references whose files are black and white (warned of)."""


def read_backs(references: dict[str, Path]) -> ReferencePictures:
    """Every reference's picture, read before any model is loaded so that a bad file is
    reported at once."""
    images = {}
    greyscale_names = set()
    for name, path in references.items():
        if drawn_by_nerts(path):
            raise UserError(
                f"back {name!r}: {path} {DRAWN_SAID}: give a photo of one card of that back, "
                "or its design file"
            )
        try:
            with decoder_quiet() as messages:
                images[name], greyscale = decode_reference(name, path)
        except ReferenceTooLargeError:  # the limit the commands set, said as for photos
            raise UserError(
                f"back {name!r}: image {path} is larger than {MAX_MEGAPIXELS} megapixels"
                + TOO_LARGE_ADVICE
            ) from None
        except UndecodableReferenceError as error:  # why, as for a photo
            raise UserError(f"{error} ({undecodable_said(path)})") from None
        except BackReferenceError as error:
            raise UserError(str(error)) from None
        if cut_short(path, images[name]):
            raise UserError(f"back {name!r}: image {path} {CUT_SHORT_SAID}")
        if greyscale:
            log.warning(GREYSCALE_REFERENCE_SAID, name, path)
            greyscale_names.add(name)
        if damaged_said(messages):
            log.warning(
                "back %r: image %s %s", name, path, DAMAGED_SAID.format(damaged_said(messages))
            )
    return ReferencePictures(images, frozenset(greyscale_names))


class RegisteredBacks(NamedTuple):
    backs: dict[str, np.ndarray]
    """Each back as it is matched: a photo of a card cut to the card."""
    matcher: BackMatcher
    faces: dict[str, str]
    """The references that show a card's face, with the card."""
    doubted: frozenset[str]
    """The references warned of as likely not what the back looks like: used as given
    (`ReferenceSource.UNSURE`), washed out to white, or black and white. Many design files
    are used as given, rightly: a count is in doubt only where such a back counts no card."""


def registered_backs(
    references: dict[str, Path], pictures: ReferencePictures, reader: CardReader
) -> RegisteredBacks:
    """The backs of `pictures` as they are matched; warns of references that show a card's
    face, are used as given or washed out to white, and of backs that look the same."""
    cut = {
        name: _back(name, references[name], image, reader)
        for name, image in pictures.images.items()
    }
    backs = {name: back.image for name, back in cut.items()}
    faces = {name: card for name, back in backs.items() if (card := _face_shown(back, reader))}
    for name, card in faces.items():
        log.warning(
            "back %r: %s shows the face of a card (%s), not a back: its cards cannot be "
            "counted; photograph one of that player's cards face down",
            name,
            references[name],
            card,
        )
    matcher = BackMatcher(backs)
    washed_out = matcher.washed_out()
    for name, share in washed_out.items():
        log.warning(
            "back %r: %.0f%% of the back in %s is pure white (a photo too bright, or a design "
            "file with nothing printed on the card itself): its cards can be told from others "
            "only as white cards; photograph the back in softer light",
            name,
            100 * share,
            references[name],
        )
    for first, second in matcher.alike():
        log.warning(
            "backs %r and %r look the same: their cards may be taken for either; give a "
            "reference that shows what tells them apart",
            first,
            second,
        )
    unsure = {name for name, back in cut.items() if back.source is ReferenceSource.UNSURE}
    doubted = frozenset(unsure | set(washed_out) | pictures.greyscale)
    return RegisteredBacks(backs, matcher, faces, doubted)


FACE_REFERENCE_READ_MIN = 0.99
"""How surely a reference must be read as a face-up card to be taken for one: photos of
cards given by mistake read 1.0; of the 229 back designs in ../shared/decks the surest read
is 0.97 (a tiny 57 x 85 px purple lattice taken for a 10D)."""


def _face_shown(back: np.ndarray, reader: CardReader) -> str | None:
    """The card whose face a back reference shows (read as a whole card), or None."""
    height, width = back.shape[:2]
    whole = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    (read,) = reader.name_cards(back, [RawCard(whole, True, 1.0)])
    surely = read.card is not None and read.confidence >= FACE_REFERENCE_READ_MIN
    return read.card if surely else None


def _back(name: str, path: Path, image: np.ndarray, reader: CardReader) -> BackImage:
    """The back of reference `name`: a photo of a card on the table is cut to the card."""
    back = back_image(image, reader.detector)
    if back.source is ReferenceSource.CUT_OUT:
        log.info("back %r: the card found in %s (score %.2f) is used", name, path, back.score)
    elif back.source is ReferenceSource.UNSURE:
        log.warning(
            "back %r: %s is used as given (%s); give a photo with one whole card in it, or "
            "crop it to the card's edges",
            name,
            path,
            back.unsure_why,
        )
    return back


def _same_file(first: Path, second: Path) -> bool:
    """Whether two paths name one file (also through another spelling or a link)."""
    try:
        return first.samefile(second)
    except OSError:
        return False
