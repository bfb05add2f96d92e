"""The models in 8 bits: what the runtime reads (`models.QUANTIZED`).

    python -m models.train quantize   # index_classifier, cards, index_corners -> .int8.onnx

Reading index windows is most of `identify`'s time on photos of many small cards (hundreds of
crops a photo). Static quantization (weights per channel, activations calibrated on crops of
renders of decks/train) runs the same network in about 0.6 of the time with the same names on
the tuning renders (`index_classifier.md`, session 25). The two detectors, calibrated on the
same renders as `identify` gives them photos, run in about 0.7 of the time with the same
figures on the tuning renders (`cards.md`, session 42). Needs the `train` extra (onnx).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from models.dataset import labelled_crops, read_image, render_dataset
from vision.onnx_models import TELEMETRY_SWITCH, CardDetector, IndexClassifier

log = logging.getLogger(__name__)

QDQ_OPSET = 13
"""Quantize/dequantize pairs with a per-channel axis need opset 13; the classifier is exported
at 12 (`models.runs.publish_weights`), so it is converted first."""
CALIBRATION_RENDERS = 24
"""Renders of the train decks whose index crops (the classifier's) or photos (the detectors')
calibrate the activations' ranges."""
CALIBRATION_RENDER_SIZE = (1280, 720)
"""The photo size `identify` is measured at."""
CALIBRATION_MIN_CARD_PX = 40.0
"""Cards this long and longer are cut for calibration: the runtime reads small cards too."""
CALIBRATION_CROPS = 2000
"""At most this many crops, drawn at random: ranges settle long before."""
CALIBRATION_BATCH = 40
"""Crops per calibration batch; the histogram calibrator needs batches of one size."""


CALIBRATION_METHODS = ("Percentile", "MinMax")
"""onnxruntime's calibrators, tried in turn: activation ranges that leave out the rarest
0.001% of values, else the whole ranges seen."""

SOURCE_DIGEST_KEY = "quantized_from_sha256"
"""Metadata of the 8-bit model: the SHA-256 of the export it was made from, so that one left
stale by a retrained export is caught (tests/models/test_quantize.py)."""


class QuantizeError(RuntimeError):
    """Quantization cannot proceed; the message says why and with which files."""


@contextmanager
def calibration_renders(shared: Path, renders: int, seed: int) -> Iterator[Path]:
    """A folder of `renders` renders of decks/train at `CALIBRATION_RENDER_SIZE`, removed
    after: every model of one `quantize` run is calibrated on the same renders, made once."""
    with tempfile.TemporaryDirectory() as folder:
        render_dataset(Path(folder), renders, seed, shared, CALIBRATION_RENDER_SIZE)
        yield Path(folder)


def _photos(renders: Path) -> list[Path]:
    return sorted(renders.glob("images/*/*.jpg"))


def calibration_inputs(renders: Path, classifier: IndexClassifier, seed: int) -> np.ndarray:
    """The classifier's input for up to `CALIBRATION_CROPS` index crops (and covered corners,
    its `none` class) of the `calibration_renders`, cut at jittered true corners as its
    training crops were: whole batches of `CALIBRATION_BATCH`."""
    rng = np.random.default_rng(seed)
    crops = [
        crop
        for split in ("train", "val")
        for _, crop in labelled_crops(
            renders, split, rng, min_card_length_px=CALIBRATION_MIN_CARD_PX
        )
    ]
    usable = min(len(crops), CALIBRATION_CROPS) // CALIBRATION_BATCH * CALIBRATION_BATCH
    if not usable:
        raise QuantizeError(
            f"{len(_photos(renders))} renders gave {len(crops)} index crops; calibration needs "
            f"at least {CALIBRATION_BATCH}: make more renders"
        )
    chosen = rng.choice(len(crops), size=usable, replace=False)
    return classifier.tensor([crops[index] for index in chosen])


def detector_calibration_inputs(renders: Path, detector: CardDetector) -> list[np.ndarray]:
    """The detector's input for the photos of the `calibration_renders`, as `identify` gives
    it a photo at its own size: one tensor each. Not also at the closer look's size, which the
    card detector takes too (`vision.reading_settings.CLOSE_LOOK_SIDE`): the percentile calibrator's
    histograms take inputs of one size, and with them the card detector counted the tuning
    spreads as its float export did, where min-max ranges from both sizes counted one of 30
    wrong (`cards.md`, session 42)."""
    inputs = [detector.letterbox(read_image(path))[0] for path in _photos(renders)]
    if not inputs:
        raise QuantizeError("no render to calibrate the detector with: make more renders")
    return inputs


def quantize_classifier(source: Path, target: Path, calibration: np.ndarray) -> None:
    """Writes `source` (a float classifier export) to `target` with int8 weights and uint8
    activations in quantize/dequantize pairs, ranges from `calibration` (its input batches).
    The stem convolution and the head stay in floats (`_classifier_float_nodes`); the metadata
    (class names, index window) is kept, and `source`'s digest added (`SOURCE_DIGEST_KEY`)."""
    batches = np.split(calibration, len(calibration) // CALIBRATION_BATCH)
    _quantize(source, target, batches, _classifier_float_nodes, detector=False)


def quantize_detector(source: Path, target: Path, calibration: list[np.ndarray]) -> None:
    """As `quantize_classifier`, for a detector export (YOLOv8 pose): its stem and its whole
    head stay in floats (`_detector_float_nodes`), ranges from `calibration` (one photo's input
    each, all of one size)."""
    _quantize(source, target, calibration, _detector_float_nodes, detector=True)


def _quantize(
    source: Path,
    target: Path,
    batches: list[np.ndarray],
    float_nodes: Callable[[Any], list[str]],
    detector: bool,
) -> None:
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
        # The card detector's input size is free: symbolic shapes cannot all be inferred.
        quant_pre_process(str(upgraded), str(prepared), skip_symbolic_shape=detector)
        graph = onnx.load(str(prepared)).graph
        for method in CALIBRATION_METHODS:
            try:
                quantize_static(
                    str(prepared),
                    str(target),
                    _Batches(graph.input[0].name, batches),
                    quant_format=QuantFormat.QDQ,
                    per_channel=True,
                    activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8,
                    nodes_to_exclude=float_nodes(graph),
                    calibrate_method=getattr(CalibrationMethod, method),
                )
                break
            except ValueError as error:
                # The percentile calibrator cannot bin an activation that never changes (in a
                # briefly trained model), nor take inputs of two sizes; min-max ranges can.
                if method == CALIBRATION_METHODS[-1]:
                    raise
                log.warning(
                    "%s: %s calibration failed (%s); trying the next", source, method, error
                )
    quantized = onnx.load(str(target))
    quantized.metadata_props.add(key=SOURCE_DIGEST_KEY, value=file_digest(source))
    onnx.save(quantized, str(target))
    log.info("quantized %s -> %s (%d calibration batches)", source, target, len(batches))


def file_digest(path: Path) -> str:
    """SHA-256 of a file, hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _classifier_float_nodes(graph) -> list[str]:  # type: ignore[no-untyped-def]
    """Nodes left unquantized: the first convolution, which sees the photo's own pixels, and
    the head (the linear layer and softmax), whose probabilities in 8 bits would be steps of
    1/255: the runtime's geometric mean of a window's cuts needs the small ones (with them
    quantized, 80 tuning renders gave 26 more wrong names)."""
    convolutions = [node.name for node in graph.node if node.op_type == "Conv"]
    head = [node.name for node in graph.node if node.op_type in ("Gemm", "Softmax")]
    return convolutions[:1] + head


LAYER_NAME = re.compile(r"^/model\.(\d+)/")
"""How an ultralytics export names a node of its N-th layer: `/model.N/...`."""


def _detector_float_nodes(graph) -> list[str]:  # type: ignore[no-untyped-def]
    """Nodes left unquantized: the first convolution, and every node of the last layer, the
    pose head, whose output holds box sides and corners in pixels beside scores from 0 to 1:
    in one 8-bit range the scores all fall to nothing (quantized too, the card detector found
    no card in a photo of 58). Its convolutions quantized as well ran no faster."""
    convolutions = [node.name for node in graph.node if node.op_type == "Conv"]
    layers = [int(match[1]) for node in graph.node if (match := LAYER_NAME.match(node.name))]
    if not layers:
        raise QuantizeError(
            "the detector's layers are not named /model.N/: not an ultralytics export"
        )
    head = f"/model.{max(layers)}/"
    return convolutions[:1] + [node.name for node in graph.node if node.name.startswith(head)]


class _Batches:
    """onnxruntime's calibration data reader over `batches`, one at a time."""

    def __init__(self, input_name: str, batches: list[np.ndarray]) -> None:
        self._batches: Iterator[np.ndarray] = iter(batches)
        self.input_name = input_name

    def get_next(self) -> dict[str, np.ndarray] | None:
        batch = next(self._batches, None)
        return None if batch is None else {self.input_name: batch}
