"""The 8-bit index classifier the runtime reads: the export's classes, window and readings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models import INDEX_INT8_ONNX, INDEX_ONNX
from models.dataset import labelled_crops
from models.quantize import (
    CALIBRATION_BATCH,
    SOURCE_DIGEST_KEY,
    QuantizeError,
    calibration_inputs,
    file_digest,
    quantize_classifier,
)
from simulator.backs import default_backs
from simulator.faces import builtin_design
from simulator.training import TrainingSettings, generate_dataset
from vision.onnx_models import IndexClassifier

SHARED = Path(__file__).resolve().parents[3] / "shared"
SURE = 0.9
"""Crops the float export reads at least this surely must read the same in 8 bits."""


@pytest.fixture(scope="module")
def index_crops(tmp_path_factory: pytest.TempPathFactory) -> list[np.ndarray]:
    """Index crops (and covered corners) of four renders of the built-in design."""
    renders = tmp_path_factory.mktemp("renders")
    settings = TrainingSettings(size=(960, 540), val_fraction=0.0)
    generate_dataset(
        renders, 4, 5, [builtin_design()], default_backs(2), settings=settings, progress=False
    )
    rng = np.random.default_rng(0)
    crops = [crop for _, crop in labelled_crops(renders, "train", rng, min_card_length_px=40)]
    assert len(crops) >= 30
    return crops


def _same_sure_names(
    export: IndexClassifier, quantized: IndexClassifier, crops: list[np.ndarray]
) -> None:
    float_readings, int8_readings = export.probabilities(crops), quantized.probabilities(crops)
    sure = float_readings.max(axis=1) >= SURE
    assert sure.sum() >= 10
    assert np.array_equal(float_readings[sure].argmax(axis=1), int8_readings[sure].argmax(axis=1))
    assert np.allclose(int8_readings.sum(axis=1), 1.0, atol=1e-3)


def _source_digest(classifier: IndexClassifier) -> str | None:
    return classifier.session.get_modelmeta().custom_metadata_map.get(SOURCE_DIGEST_KEY)


def test_the_committed_8_bit_classifier_is_made_from_the_committed_export() -> None:
    """Retraining publishes a new export; the runtime reads the 8-bit model, so it must be
    quantized again (`python -m models.train quantize`) before both are committed."""
    assert _source_digest(IndexClassifier(INDEX_INT8_ONNX)) == file_digest(INDEX_ONNX)


def test_the_committed_8_bit_classifier_reads_as_its_export(index_crops: list[np.ndarray]) -> None:
    export, quantized = IndexClassifier(INDEX_ONNX), IndexClassifier(INDEX_INT8_ONNX)
    assert quantized.names == export.names
    assert quantized.window_mm == export.window_mm
    assert (quantized.size, quantized.batched) == (export.size, export.batched)
    _same_sure_names(export, quantized, index_crops)


def test_quantizing_keeps_the_classes_the_window_and_the_sure_names(
    index_crops: list[np.ndarray], tmp_path: Path
) -> None:
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    export = IndexClassifier(INDEX_ONNX)
    # Whole batches, as the calibration takes them: the crops again where they run out.
    calibration = export.tensor((index_crops * 3)[: CALIBRATION_BATCH * 2])
    target = tmp_path / "int8.onnx"
    quantize_classifier(INDEX_ONNX, target, calibration)
    quantized = IndexClassifier(target)
    assert quantized.names == export.names and quantized.window_mm == export.window_mm
    assert _source_digest(quantized) == file_digest(INDEX_ONNX)
    # Readings come from the float head: not rounded to steps of 1/255.
    readings = quantized.probabilities(index_crops[:20])
    steps = readings * 255
    assert not np.allclose(steps, np.round(steps), atol=1e-4)
    _same_sure_names(export, quantized, index_crops)


@pytest.mark.skipif(not (SHARED / "decks").is_dir(), reason="needs ../shared/decks")
def test_too_few_renders_to_calibrate_is_a_clear_error() -> None:
    with pytest.raises(QuantizeError, match="0 renders gave 0 index crops"):
        calibration_inputs(SHARED, IndexClassifier(INDEX_ONNX), 0, seed=0)
