"""The index classifier in 8 bits: what the runtime reads (`models.INDEX_INT8_ONNX`).

    python -m models.train quantize          # models/index_classifier.onnx -> .int8.onnx

Reading index windows is most of `identify`'s time on photos of many small cards (hundreds of
crops a photo). Static quantization (weights per channel, activations calibrated on crops of
renders of decks/train) runs the same network in about 0.6 of the time with the same names on
the tuning renders (`index_classifier.md`, session 25). Needs the `train` extra (onnx).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from models.dataset import labelled_crops, render_dataset
from vision.onnx_models import TELEMETRY_SWITCH, IndexClassifier

log = logging.getLogger(__name__)

QDQ_OPSET = 13
"""Quantize/dequantize pairs with a per-channel axis need opset 13; the classifier is exported
at 12 (`models.runs.publish_weights`), so it is converted first."""
CALIBRATION_RENDERS = 24
"""Renders of the train decks whose index crops calibrate the activations' ranges."""
CALIBRATION_RENDER_SIZE = (1280, 720)
"""The photo size `identify` is measured at."""
CALIBRATION_MIN_CARD_PX = 40.0
"""Cards this long and longer are cut for calibration: the runtime reads small cards too."""
CALIBRATION_CROPS = 2000
"""At most this many crops, drawn at random: ranges settle long before."""
CALIBRATION_BATCH = 40
"""Crops per calibration batch; the histogram calibrator needs batches of one size."""


SOURCE_DIGEST_KEY = "quantized_from_sha256"
"""Metadata of the 8-bit model: the SHA-256 of the export it was made from, so that one left
stale by a retrained export is caught (tests/models/test_quantize.py)."""


class QuantizeError(RuntimeError):
    """Quantization cannot proceed; the message says why and with which files."""


def calibration_inputs(
    shared: Path, classifier: IndexClassifier, renders: int, seed: int
) -> np.ndarray:
    """The classifier's input for up to `CALIBRATION_CROPS` index crops (and covered corners,
    its `none` class) of `renders` renders of decks/train, cut at jittered true corners as its
    training crops were: whole batches of `CALIBRATION_BATCH`."""
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as folder:
        render_dataset(Path(folder), renders, seed, shared, CALIBRATION_RENDER_SIZE)
        crops = [
            crop
            for split in ("train", "val")
            for _, crop in labelled_crops(
                Path(folder), split, rng, min_card_length_px=CALIBRATION_MIN_CARD_PX
            )
        ]
    usable = min(len(crops), CALIBRATION_CROPS) // CALIBRATION_BATCH * CALIBRATION_BATCH
    if not usable:
        raise QuantizeError(
            f"{renders} renders gave {len(crops)} index crops; calibration needs at least "
            f"{CALIBRATION_BATCH}: make more renders"
        )
    chosen = rng.choice(len(crops), size=usable, replace=False)
    return classifier.tensor([crops[index] for index in chosen])


def quantize_classifier(source: Path, target: Path, calibration: np.ndarray) -> None:
    """Writes `source` (a float classifier export) to `target` with int8 weights and uint8
    activations in quantize/dequantize pairs, ranges from `calibration` (its input batches).
    The stem convolution and the head stay in floats (`_float_nodes`); the metadata (class
    names, index window) is kept, and `source`'s digest added (`SOURCE_DIGEST_KEY`)."""
    import onnx  # noqa: PLC0415  (the train extra)
    from onnx import version_converter  # noqa: PLC0415

    os.environ.setdefault(TELEMETRY_SWITCH, "1")
    from onnxruntime.quantization import (  # noqa: PLC0415
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as folder:
        upgraded, prepared = Path(folder) / "upgraded.onnx", Path(folder) / "prepared.onnx"
        onnx.save(version_converter.convert_version(onnx.load(str(source)), QDQ_OPSET), upgraded)
        quant_pre_process(str(upgraded), str(prepared))
        graph = onnx.load(str(prepared)).graph
        quantize_static(
            str(prepared),
            str(target),
            _Batches(graph.input[0].name, calibration),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            nodes_to_exclude=_float_nodes(graph),
            calibrate_method=CalibrationMethod.Percentile,
        )
    quantized = onnx.load(str(target))
    quantized.metadata_props.add(key=SOURCE_DIGEST_KEY, value=file_digest(source))
    onnx.save(quantized, str(target))
    log.info("quantized %s -> %s (%d calibration crops)", source, target, len(calibration))


def file_digest(path: Path) -> str:
    """SHA-256 of a file, hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _float_nodes(graph) -> list[str]:  # type: ignore[no-untyped-def]
    """Nodes left unquantized: the first convolution, which sees the photo's own pixels, and
    the head (the linear layer and softmax), whose probabilities in 8 bits would be steps of
    1/255: the runtime's geometric mean of a window's cuts needs the small ones (with them
    quantized, 80 tuning renders gave 26 more wrong names)."""
    convolutions = [node.name for node in graph.node if node.op_type == "Conv"]
    head = [node.name for node in graph.node if node.op_type in ("Gemm", "Softmax")]
    return convolutions[:1] + head


class _Batches:
    """onnxruntime's calibration data reader over `calibration`, `CALIBRATION_BATCH` at a time."""

    def __init__(self, input_name: str, calibration: np.ndarray) -> None:
        self._batches: Iterator[np.ndarray] = iter(
            np.split(calibration, len(calibration) // CALIBRATION_BATCH)
        )
        self.input_name = input_name

    def get_next(self) -> dict[str, np.ndarray] | None:
        batch = next(self._batches, None)
        return None if batch is None else {self.input_name: batch}
