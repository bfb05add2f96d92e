"""`identify` and `count` on bad input: exit status 2 and a last line naming the file, no
traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

import nerts.commands.identify as identify_command
from models import CARDS_INT8_ONNX, INDEX_INT8_ONNX
from models.dataset import read_image
from nerts.cli import main
from nerts.photos import (
    read_photo,
)
from tests.vision.conftest import png_header
from vision.backs import BackMatcher, read_reference
from vision.onnx_models import (
    CardDetector,
    IndexClassifier,
    ModelFileError,
    _class_names_of_kind,
    _input_size,
    _window_mm,
)

CASES = {
    "missing photo": (["identify", "{folder}/gone.jpg"], "image not found: {folder}/gone.jpg"),
    "a folder": (
        ["identify", "{folder}"],
        # a pattern for each ending of the photos there, the commonest first
        "{folder} is a folder: give the photos in it, e.g. {folder}/*.png {folder}/*.jpg",
    ),
    "a folder to count": (
        ["count", "{folder}", "--backs", "a={back}"],
        "{folder} is a folder: give one photo in it, e.g. {folder}/spread.jpg",
    ),
    "not a picture": (["identify", "{text}"], "cannot read image {text}"),
    "a JPEG cut short": (["identify", "{cut}"], "image {cut} is cut short"),
    "a photo and a note": (
        ["identify", "{photo}", "{text}"],
        "1 of 2 photos could not be read and is left out (named above): {text}",
    ),
    "a strip of pixels": (["identify", "{strip}"], "image {strip} is 5000 x 1 pixels: too small"),
    "count, not a picture": (
        ["count", "{text}", "--backs", "a={back}"],
        "cannot read image {text}",
    ),
    "back without a name": (["count", "{photo}", "--backs", "{back}"], "--backs takes NAME=IMAGE"),
    "back name with a tab": (
        ["identify", "{photo}", "--backs", "an\tna={back}"],
        "back name 'an\\tna' holds the control character \\t",
    ),
    "missing reference": (
        ["count", "{photo}", "--backs", "a={folder}/gone.png"],
        "back 'a': reference image not found: {folder}/gone.png",
    ),
    "annotation not a picture": (
        ["identify", "{photo}", "--annotate", "{folder}/found.xyz"],
        "cannot write a picture to '{folder}/found.xyz': name a .png or .jpg",
    ),
    "annotation a folder": (
        ["count", "{photo}", "--backs", "a={back}", "--annotate", "{shots}"],
        "{shots} is a folder: name a picture in it, e.g. {shots}/found.png",
    ),
    "annotation a folder without an extension": (
        ["identify", "{photo}", "--annotate", "{folder}"],
        "{folder} is a folder: name a picture in it, e.g. {folder}/found.png",
    ),
    "annotation inside a file": (
        ["count", "{photo}", "--backs", "a={back}", "--annotate", "{photo}/found.png"],
        "cannot write {photo}/found.png: {photo} is a file",
    ),
    "reference a folder": (
        ["count", "{photo}", "--backs", "a={folder}"],
        "back 'a': not a picture file: {folder}",
    ),
    "reference a pixel wide": (
        ["count", "{photo}", "--backs", "a={strip}"],
        "back 'a': {strip} shows a back 5000 x 1 pixels; give a picture of the whole back",
    ),
    "reference a speck on a large canvas": (
        ["count", "{photo}", "--backs", "a={speck}"],
        "back 'a': {speck} shows a back 10 x 14 pixels; give a picture of the whole back",
    ),
    "two backs named alike but for case": (
        ["count", "{photo}", "--backs", "anna={back}", "Anna={back}"],
        "back 'Anna' is given twice (as 'anna': one name, written another way)",
    ),
    "two backs named alike but for how an accent is encoded": (
        ["count", "{photo}", "--backs", "zo\u00eb={back}", "zoe\u0308={folder}/other.png"],
        "back 'zoe\u0308' is given twice (as 'zo\u00eb': one name, written another way)",
    ),
    "two backs named alike but for a space": (
        ["count", "{photo}", "--backs", "ben={back}", "ben ={folder}/other.png"],
        "back 'ben' is given twice",
    ),
    "a back named by spaces alone": (
        ["count", "{photo}", "--backs", " ={back}"],
        "--backs takes NAME=IMAGE, e.g. anna=back.jpg; got ' ={back}'",
    ),
    "a second photo after --backs": (
        ["identify", "{photo}", "--backs", "a={back}", "{photo}"],
        "--backs takes NAME=IMAGE, e.g. anna=back.jpg; got '{photo}' (a photo? photos go before "
        "--backs)",
    ),
    "a word that is no photo after --backs": (
        ["identify", "{photo}", "--backs", "a={back}", "anna"],
        "--backs takes NAME=IMAGE, e.g. anna=back.jpg; got 'anna'",
    ),
    "one image for two backs": (
        ["count", "{photo}", "--backs", "anna={back}", "ben={back}"],
        "backs 'anna' and 'ben' are given the same image {back}: give each player's back its "
        "own image",
    ),
    "cards left, not a plain number": (
        ["count", "{photo}", "--backs", "a={back}", "--left", "a=\u00b2"],
        "--left takes NAME=N, N from 0 to 52; got 'a=\u00b2'",
    ),
    "reference a JPEG cut short": (
        ["count", "{photo}", "--backs", "a={cut}"],
        "back 'a': image {cut} is cut short: the file ends before the picture does",
    ),
    "identify, reference a JPEG cut short": (
        ["identify", "{photo}", "--backs", "a={cut}"],
        "back 'a': image {cut} is cut short",
    ),
    "reference not a picture": (
        ["count", "{photo}", "--backs", "a={text}"],
        "back 'a': cannot read image {text} (not a picture OpenCV can decode)",
    ),
    "reference an empty file": (
        ["count", "{photo}", "--backs", "a={empty}"],
        "back 'a': cannot read image {empty} (the file is empty)",
    ),
    "reference a video": (
        ["count", "{photo}", "--backs", "a={video}"],
        "back 'a': cannot read image {video} (a video, not a photo",
    ),
    "an AVIF photo": (
        ["identify", "{avif}"],
        "cannot read image {avif} (an AVIF picture, which this OpenCV cannot decode: save it as "
        "JPEG or PNG)",
    ),
    "identify, back given twice": (
        ["identify", "{photo}", "--backs", "a={back}", "a={back}"],
        "back 'a' is given twice",
    ),
    "identify, reference not a picture": (
        ["identify", "{photo}", "--backs", "a={text}"],
        "cannot read image {text}",
    ),
    "an empty path": (["identify", "{photo}", ""], "an image path is empty"),
    "reference over the pixel limit": (
        ["count", "{photo}", "--backs", "a={giga}"],
        "back 'a': image {giga} is larger than 64 megapixels: save a smaller copy",
    ),
    "annotation over the photo": (
        ["identify", "{photo}", "--annotate", "{photo}"],
        "--annotate would write {photo} over an input; name another file",
    ),
    "annotation over a reference": (
        ["count", "{photo}", "--backs", "a={back}", "--annotate", "{back}"],
        "--annotate would write {back} over an input",
    ),
    "count without backs": (
        ["count", "{photo}"],
        "name each player's back: --backs NAME=REF ..., REF a photo of one card's back or the "
        "design file (e.g. nerts count {photo} --backs anna=anna.jpg ben=ben.jpg)",
    ),
    "a HEIC photo": (
        ["identify", "{heic}"],
        "cannot read image {heic} (a HEIC photo, an iPhone's format, which OpenCV cannot "
        "decode: export it as JPEG, or set the iPhone's Settings > Camera > Formats to Most "
        "Compatible)",
    ),
    "a video": (
        ["identify", "{video}"],
        "cannot read image {video} (a video, not a photo: save a still of it (a frame) as JPEG "
        "or PNG)",
    ),
    "an empty file": (
        ["count", "{empty}", "--backs", "a={back}"],
        "cannot read image {empty} (the file is empty)",
    ),
    "a HEIC back": (
        ["count", "{photo}", "--backs", "a={heic}"],
        "back 'a': cannot read image {heic} (a HEIC photo",
    ),
    "annotation in a format without the mark": (
        ["identify", "{photo}", "--annotate", "found.webp"],
        "cannot write a picture to 'found.webp': name a .png or .jpg",
    ),
    "annotation named only by its extension": (
        ["identify", "{photo}", "--annotate", ".png"],
        "cannot write a picture to '.png': name a .png or .jpg",
    ),
    "count, the photo after --backs": (
        ["count", "--backs", "a={back}", "{photo}"],
        "no IMAGE: '{photo}' was read as a --backs value; give the photo before --backs",
    ),
    "count, the photo after --left": (
        ["count", "--left", "a=3", "{photo}", "--backs", "a={back}"],
        "no IMAGE: '{photo}' was read as a --left value; give the photo before --left",
    ),
    "count, the photo after --bonus": (
        ["count", "--backs", "a={back}", "--bonus", "a=10", "{photo}"],
        "no IMAGE: '{photo}' was read as a --bonus value; give the photo before --bonus",
    ),
    "identify, the photo after --backs": (
        ["identify", "--backs", "a={back}", "{photo}"],
        "no IMAGE: '{photo}' was read as a --backs value; give the photo before --backs "
        "(nerts identify IMAGE... [--backs NAME=REF ...])",
    ),
    "identify, no photo": (
        ["identify", "--json"],
        "give the photo: nerts identify IMAGE... [--backs NAME=REF ...]",
    ),
}


def exit_status(arguments: list[str]) -> int | str | None:
    """`nerts ARGUMENTS`' exit status, also where argparse exits on a bad argument."""
    try:
        return main(arguments)
    except SystemExit as exit:
        return exit.code


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_line_naming_it(
    case: str, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    arguments, message = CASES[case]
    assert exit_status([argument.format(**files) for argument in arguments]) == 2
    error = capsys.readouterr().err
    # Argument mistakes come after argparse's usage lines; the error itself is one line.
    assert message.format(**files) in error.splitlines()[-1]
    assert "Traceback" not in error


def test_a_folder_or_a_typo_among_photos_is_named_without_the_pattern_hint(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    for wrong, message in (
        (files["shots"], f"{files['shots']} is a folder: give the photos in it, e.g. "),
        (files["folder"] / "gone.jpg", f"image not found: {files['folder'] / 'gone.jpg'}"),
    ):
        assert exit_status(["identify", str(files["photo"]), str(wrong)]) == 2
        last = capsys.readouterr().err.splitlines()[-1]
        assert message in last and "no photo was read" not in last


def test_a_missing_or_broken_model_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match=f"model file not found: {tmp_path / 'gone.onnx'}"):
        CardDetector(tmp_path / "gone.onnx")
    # An 8-bit model is made again from its export: no training.
    with pytest.raises(ModelFileError, match=r"make it from its export with 'python -m models"):
        CardDetector(tmp_path / "gone.int8.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(ModelFileError, match=f"cannot load model {broken}"):
        IndexClassifier(broken)


def test_a_model_of_another_kind_in_a_models_place_is_named() -> None:
    """A classifier copied over the card detector had ended `identify` in an IndexError."""
    said = (
        f"{INDEX_INT8_ONNX} is no card detector (a classifier with input ['batch', 3, 'height', "
        "'width'], output ['batch', 53], classes 53): a model file of another kind in its place? "
        "The one to use is committed in models/"
    )
    with pytest.raises(ModelFileError) as refused:
        CardDetector(INDEX_INT8_ONNX)
    assert str(refused.value) == said
    with pytest.raises(ModelFileError, match=f"{CARDS_INT8_ONNX} is no classifier"):
        IndexClassifier(CARDS_INT8_ONNX)


@pytest.mark.parametrize(
    ("metadata", "said"),
    [
        ({"names": "{0: 'card'", "task": "pose"}, "its class names cannot be read"),
        ({"names": "{0: 'card'}", "kpt_shape": "[4]", "task": "pose"}, "its keypoint shape"),
        ({"names": "{0: 'card'}", "kpt_shape": "four", "task": "pose"}, "its keypoint shape"),
        ({"names": "{0: 'card'}", "kpt_shape": "[1e999, 3]", "task": "pose"}, "its keypoint"),
    ],
)
def test_an_export_whose_metadata_cannot_be_read_is_named(
    metadata: dict[str, str], said: str
) -> None:
    shape = SimpleNamespace(shape=["batch", 17, "anchors"])
    session = SimpleNamespace(
        get_modelmeta=lambda: SimpleNamespace(custom_metadata_map=metadata),
        get_inputs=lambda: [shape],
        get_outputs=lambda: [shape],
    )
    with pytest.raises(ModelFileError, match=f"^odd.onnx: {said}"):
        _class_names_of_kind(session, Path("odd.onnx"), "pose")


@pytest.mark.parametrize(
    ("metadata", "read", "said"),
    [
        ({"index_window_mm": "26"}, _window_mm, r"its index window \(index_window_mm '26'\)"),
        ({"index_window_mm": "26,x"}, _window_mm, "its index window"),
        ({}, _input_size, "its input size cannot be read"),
        ({"imgsz": "[]"}, _input_size, "its input size cannot be read"),
        ({"imgsz": "[1e400]"}, _input_size, "its input size cannot be read"),
        ({"imgsz": "[0, 0]"}, _input_size, "its input size cannot be read"),
    ],
)
def test_an_export_whose_window_or_size_cannot_be_read_is_named(
    metadata: dict[str, str], read: Callable[[object, Path], object], said: str
) -> None:
    session = SimpleNamespace(
        get_modelmeta=lambda: SimpleNamespace(custom_metadata_map=metadata),
        get_inputs=lambda: [SimpleNamespace(shape=["batch", 3, "height", "width"])],
    )
    with pytest.raises(ModelFileError, match=f"^odd.onnx: {said}"):
        read(session, Path("odd.onnx"))


def test_identify_reports_a_missing_model_as_a_user_error(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_model() -> None:
        raise ModelFileError("model file not found: models/cards.onnx (it is committed in models/)")

    monkeypatch.setattr(identify_command, "CardReader", no_model)
    assert main(["identify", str(files["photo"])]) == 2
    assert "model file not found: models/cards.onnx" in capsys.readouterr().err


def test_a_16_bit_back_reference_reads_as_its_8_bit_twin(files: dict[str, Path]) -> None:
    back = read_image(files["back"])
    deep = files["folder"] / "back16.png"
    cv2.imwrite(str(deep), back.astype(np.uint16) * 257)
    references = {"eight": files["back"], "sixteen": deep}
    matcher = BackMatcher({name: read_reference(name, path) for name, path in references.items()})
    assert matcher.features["eight"].distance(matcher.features["sixteen"]) == 0


def test_a_greyscale_back_reference_is_used_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    grey, colour = tmp_path / "grey.png", tmp_path / "colour.png"
    cv2.imwrite(str(grey), np.full((176, 126), 120, np.uint8))
    cv2.imwrite(str(colour), np.full((176, 126, 3), 120, np.uint8))  # grey ink, colour file
    assert read_reference("anna", colour).shape == (176, 126, 3)
    assert not caplog.records
    assert read_reference("anna", grey).shape == (176, 126, 3)
    assert caplog.messages == [
        f"back 'anna': {grey} is a greyscale picture, but backs are told apart by colour as "
        "well as pattern, so the cards of a coloured back may not be matched to it; give a "
        "colour photo or design file"
    ]


@pytest.mark.parametrize("count", [1, 2])
def test_identify_json_prints_nothing_when_no_photo_could_be_read(
    count: int, files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    broken = [files["folder"] / f"broken-{n}.jpg" for n in range(count)]
    for path in broken:
        path.write_bytes(b"\xff\xd8\xff\xe0" + bytes(100))  # a JPEG only by its first bytes
    assert exit_status(["identify", *map(str, broken), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # not `{}`, which a script would take for a table with no card
    assert str(broken[-1]) in err


def test_identify_keys_photos_as_given_and_skips_those_it_cannot_read(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    broken = [files["folder"] / f"broken-{n}.png" for n in range(5)]
    for path in broken:
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))  # a PNG only by its first bytes
    given = f"{files['folder']}/./table.png"
    photos = [given, str(broken[0]), given, str(files["strip"]), *map(str, broken[1:])]
    assert exit_status(["identify", *photos, "--json"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out) == {given: []}
    # The fixture's table is a small blank picture: said so (once, as the photo is read once).
    small = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(small) == 1 and "it is only 128 x 72 pixels" in small[0]
    said = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert said[:2] == [
        f"error: cannot read image {broken[0]} (not a picture OpenCV can decode): skipped",
        f"error: image {files['strip']} is 5000 x 1 pixels: too small "
        "to show a card (at least 32 each way): skipped",
    ]
    assert len(said) == 7 and "Traceback" not in err
    assert said[-1] == (
        "nerts identify: error: 6 of 7 photos could not be read and are left out (named "
        f"above): {broken[0]}, {files['strip']}, {broken[1]} and 3 more"
    )


def test_the_command_refuses_a_picture_over_its_pixel_limit_from_the_header(
    files: dict[str, Path],
) -> None:
    # In a process of its own: the limit is handed to OpenCV before it loads (here in the
    # tests OpenCV is loaded already, with its own far larger limit).
    huge = files["folder"] / "huge.png"
    huge.write_bytes(png_header(10_000, 10_000))  # 100 megapixels, 109 bytes
    command = [sys.executable, "-m", "nerts", "identify", str(huge)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith(
        f"image {huge} is larger than 64 megapixels: save a smaller copy (up to 24 megapixels "
        "shows the cards as well)"
    )


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("broken", "cannot read image {photo} (not a picture OpenCV can decode)"),
        (
            "cut",
            "image {photo} is cut short: the file ends before the picture does (copy it again)",
        ),
    ],
)
def test_a_broken_photo_is_told_in_one_line_without_the_decoders_own_words(
    kind: str, said: str, files: dict[str, Path]
) -> None:
    """Not OpenCV's log ("readHeader IHDR chunk shall be first"), nor libjpeg's ("Premature
    end of JPEG file"), which it writes to standard error itself."""
    photo = files["cut"]
    if kind == "broken":
        photo = files["folder"] / "broken.png"
        photo.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    command = [sys.executable, "-m", "nerts", "identify", str(photo)]
    environment = {k: v for k, v in os.environ.items() if k != "OPENCV_LOG_LEVEL"}
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=False, env=environment
    )
    assert done.returncode == 2
    assert done.stderr == f"nerts identify: error: {said.format(photo=photo)}\n"


def test_a_photo_holding_several_pictures_says_only_the_first_is_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pages = tmp_path / "scans.tiff"
    felt = np.full((72, 128, 3), (60, 120, 40), np.uint8)
    assert cv2.imwritemulti(str(pages), [felt, felt[::-1].copy(), felt])
    assert read_photo(pages).shape == (72, 128, 3)
    assert caplog.messages == [
        f"image {pages} holds 3 pictures (pages or frames): only the first is read"
    ]


def test_a_photo_without_cards_says_why_none_may_be_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    felt, dark = tmp_path / "felt.png", tmp_path / "dark.png"
    cv2.imwrite(str(felt), np.full((720, 1280, 3), (60, 120, 40), np.uint8))
    cv2.imwrite(str(dark), np.full((720, 1280, 3), (6, 12, 40), np.uint8))
    assert exit_status(["identify", str(felt), str(dark)]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "no card found" in line]
    assert said == [
        f"warning: no card found in {felt}: a photo of cards on a table is asked for, taken "
        "from above in good light",
        f"warning: no card found in {dark}: it is very dark (mean brightness 20 of 255): light "
        "the table and take it again",
    ]


def test_a_folder_of_phone_photos_is_given_with_their_own_endings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A phone names its photos IMG_0001.JPG, which *.jpg does not match."""
    for name in ("IMG_0001.JPG", "IMG_0002.JPG", "scan.jpg", "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    assert main(["identify", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"nerts identify: error: {tmp_path} is a folder: give the photos in it, e.g. "
        f"{tmp_path}/*.JPG {tmp_path}/*.jpg\n"
    )
