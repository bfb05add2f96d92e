"""What the vision tests share: a folder of the files users give by mistake or on purpose, and
readers on the committed models."""

from __future__ import annotations

import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from models import CARDS_INT8_ONNX, CARDS_ONNX, CORNERS_INT8_ONNX, CORNERS_ONNX, INDEX_INT8_ONNX
from vision.identify import CardReader


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    photo, back, text = tmp_path / "table.png", tmp_path / "back.png", tmp_path / "notes.jpg"
    cv2.imwrite(str(photo), np.full((72, 128, 3), (60, 120, 40), np.uint8))  # green felt
    cv2.imwrite(str(back), np.full((88, 63, 3), (200, 40, 40), np.uint8))
    text.write_text("not a picture")
    strip = tmp_path / "strip.png"
    cv2.imwrite(str(strip), np.zeros((1, 5000, 3), np.uint8))
    noise = np.random.default_rng(0).integers(0, 256, (200, 200, 3), np.uint8)
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(cv2.imencode(".jpg", noise)[1].tobytes()[:20_000])  # half a photo
    giga = tmp_path / "giga.png"
    giga.write_bytes(png_header(40_000, 30_000))
    speck = tmp_path / "speck.png"  # a design file on a large canvas, its back a speck
    canvas = np.zeros((400, 400, 4), np.uint8)
    canvas[100:114, 200:210] = 255
    cv2.imwrite(str(speck), canvas)
    shots = tmp_path / "shots.png"  # a folder with a picture's name
    shots.mkdir()
    heic = tmp_path / "IMG_0001.jpg"  # an iPhone's photo, named as a JPEG by some copier
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64))
    video = tmp_path / "round.jpg"  # a phone's video, named as a photo
    video.write_bytes(b"\x00\x00\x00\x18ftypisom\x00\x00\x00\x00mp42isom" + bytes(64))
    avif = tmp_path / "photo.avif"  # an Android phone's photo: this OpenCV lacks AV1
    avif.write_bytes(b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf" + bytes(64))
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    return {
        "heic": heic,
        "avif": avif,
        "video": video,
        "empty": empty,
        "photo": photo,
        "back": back,
        "text": text,
        "strip": strip,
        "cut": cut,
        "giga": giga,
        "speck": speck,
        "shots": shots,
        "folder": tmp_path,
    }


def png_header(width: int, height: int) -> bytes:
    """A PNG that says it is `width` x `height` (8-bit RGB) and holds almost no pixel data:
    OpenCV refuses a picture over its pixel limit from the header alone."""
    fields = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    chunks = [(b"IHDR", fields), (b"IDAT", zlib.compress(bytes(1))), (b"IEND", b"")]
    return b"\x89PNG\r\n\x1a\n" + b"".join(
        len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")
        for kind, data in chunks
    )


@pytest.fixture(scope="module")
def reader() -> CardReader:
    runtime = (CARDS_INT8_ONNX, INDEX_INT8_ONNX, CORNERS_INT8_ONNX)
    if not all(path.is_file() for path in runtime):
        pytest.fail(f"the committed models are missing: {', '.join(map(str, runtime))}")
    return CardReader()


@pytest.fixture(scope="module")
def float_detectors() -> CardReader:
    """A reader on the detectors' float exports. In two fixtures below they miss cards fanned
    under others that the 8-bit detectors the runtime reads find (in another they find one
    the 8-bit ones miss: a different rounding, not a better detector; on the tuning renders
    both find as many), and so show what the other ways of finding a card add."""
    return CardReader(CARDS_ONNX, corners_model=CORNERS_ONNX)
