"""The 8-bit models the runtime reads: the classifier keeps its export's classes, window and
readings, the detectors find the cards their exports find."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from models import CARDS_ONNX, CORNERS_ONNX, INDEX_INT8_ONNX, INDEX_ONNX, QUANTIZED
from models.dataset import labelled_crops, read_image
from models.quantize import (
    CALIBRATION_BATCH,
    SOURCE_DIGEST_KEY,
    QuantizeError,
    _detector_float_nodes,
    calibration_inputs,
    calibration_renders,
    detector_calibration_inputs,
    file_digest,
    quantize_classifier,
    quantize_detector,
)
from models.train import main as train
from simulator.backs import default_backs
from simulator.faces import builtin_design
from simulator.training import TrainingSettings, generate_dataset
from vision.geometry import intersection_over_union
from vision.onnx_models import CardDetector, IndexClassifier

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


def _source_digest(model: IndexClassifier | CardDetector) -> str | None:
    return model.session.get_modelmeta().custom_metadata_map.get(SOURCE_DIGEST_KEY)


@pytest.mark.parametrize("export", list(QUANTIZED), ids=lambda path: path.stem)
def test_each_committed_8_bit_model_is_made_from_the_committed_export(export: Path) -> None:
    """Retraining publishes a new export; the runtime reads the 8-bit model, so it must be
    quantized again (`python -m models.train quantize`) before both are committed."""
    quantized = QUANTIZED[export]
    model = IndexClassifier(quantized) if export == INDEX_ONNX else CardDetector(quantized)
    assert _source_digest(model) == file_digest(export)


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
    with calibration_renders(SHARED, 0, seed=0) as renders:
        with pytest.raises(QuantizeError, match="0 renders gave 0 index crops"):
            calibration_inputs(renders, IndexClassifier(INDEX_ONNX), seed=0)
        with pytest.raises(QuantizeError, match="no render to calibrate the detector with"):
            detector_calibration_inputs(renders, CardDetector(CARDS_ONNX))


@pytest.fixture(scope="module")
def table_photos(tmp_path_factory: pytest.TempPathFactory) -> list[np.ndarray]:
    """Three 1280x720 renders of the built-in design: cards face up and down, fanned, piled."""
    renders = tmp_path_factory.mktemp("photos")
    settings = TrainingSettings(size=(1280, 720), val_fraction=0.0)
    generate_dataset(
        renders, 3, 6, [builtin_design()], default_backs(2), settings=settings, progress=False
    )
    return [read_image(path) for path in sorted(renders.glob("images/train/*.jpg"))]


SAME_CARD_IOU = 0.85
"""A card the 8-bit detector finds lies where its export finds it, this closely at least."""
SURE_DETECTION = 0.7
"""Cards the export finds with at least this score the 8-bit model must find too (the
detectors' scores of whole cards in these renders are 0.8-0.9)."""


def _same_cards(export: CardDetector, quantized: CardDetector, photo: np.ndarray) -> None:
    """Every card the export finds surely, the 8-bit model finds too, as face up or down."""
    found = quantized(photo)
    sure = [card for card in export(photo) if card.score >= SURE_DETECTION]
    assert len(sure) >= 3
    for card in sure:
        assert any(
            other.face_up == card.face_up
            and other.index_corner == card.index_corner
            and intersection_over_union(other.quad, card.quad) >= SAME_CARD_IOU
            for other in found
        ), card


@pytest.mark.parametrize("export", [CARDS_ONNX, CORNERS_ONNX], ids=lambda path: path.stem)
def test_the_committed_8_bit_detectors_find_the_cards_their_exports_find(
    export: Path, table_photos: list[np.ndarray]
) -> None:
    float_model, quantized = CardDetector(export), CardDetector(QUANTIZED[export])
    assert quantized.names == float_model.names
    assert (quantized.resizable, quantized.own_side) == (
        float_model.resizable,
        float_model.own_side,
    )
    for photo in table_photos:
        _same_cards(float_model, quantized, photo)


def test_quantizing_a_detector_keeps_its_classes_sizes_and_found_cards(
    table_photos: list[np.ndarray], tmp_path: Path
) -> None:
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    export = CardDetector(CARDS_ONNX)
    calibration = [export.letterbox(photo)[0] for photo in table_photos]
    target = tmp_path / "cards.int8.onnx"
    quantize_detector(CARDS_ONNX, target, calibration)
    quantized = CardDetector(target)
    assert quantized.names == export.names and quantized.resizable
    assert _source_digest(quantized) == file_digest(CARDS_ONNX)
    for photo in table_photos:
        _same_cards(export, quantized, photo)


def test_a_detector_not_exported_by_ultralytics_is_refused() -> None:
    graph = SimpleNamespace(node=[SimpleNamespace(name="conv_1", op_type="Conv")])
    with pytest.raises(QuantizeError, match="not an ultralytics export"):
        _detector_float_nodes(graph)


def test_a_calibration_the_percentile_calibrator_cannot_take_falls_back_to_whole_ranges(
    table_photos: list[np.ndarray], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The percentile calibrator cannot bin a constant activation (as in a briefly trained
    detector, `test_tiny_training`), nor inputs of two sizes: the min-max one takes over."""
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    export = CardDetector(CARDS_ONNX)
    two_sizes = [export.letterbox(table_photos[0], side)[0] for side in (None, 640)]
    target = tmp_path / "cards.int8.onnx"
    quantize_detector(CARDS_ONNX, target, two_sizes)
    assert "Percentile calibration failed" in caplog.text
    _same_cards(export, CardDetector(target), table_photos[0])


def test_quantize_looks_for_every_chosen_export_before_it_makes_any(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / INDEX_ONNX.name).write_bytes(INDEX_ONNX.read_bytes())
    shared = tmp_path / "shared"  # never read: a clone may lie without ../shared beside it
    (shared / "decks").mkdir(parents=True)
    models = ["--models", "classifier", "cards", "--models-dir", str(tmp_path)]
    with pytest.raises(SystemExit) as stopped:
        train(["quantize", *models, "--shared", str(shared)])
    assert str(stopped.value) == (
        f"quantize: model file not found: {tmp_path / CARDS_ONNX.name} (publish the trained "
        "models first: python -m models.train publish --help)"
    )
    assert not (tmp_path / INDEX_INT8_ONNX.name).exists()
