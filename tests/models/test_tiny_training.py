"""A tiny training run (a few renders, one epoch) proves the training code works offline.

Needs the `train` extra (torch, ultralytics); CI installs it, a plain `make test` skips this.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ultralytics", reason="the train extra (torch, ultralytics) is not installed")

import torch  # the train extra, checked above

from models.dataset import write_crops
from models.index_corners import CORNER_CLASSES
from models.train import main as train
from simulator.backs import default_backs
from simulator.faces import builtin_design
from simulator.training import TrainingSettings, generate_dataset
from vision.onnx_models import CardDetector, IndexClassifier


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YOLO_OFFLINE", "1")
    monkeypatch.setenv("YOLO_CONFIG_DIR", str(tmp_path / "yolo"))
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mpl"))


def test_tiny_training_runs_and_exports(tmp_path: Path, offline: None) -> None:
    renders = tmp_path / "renders"
    settings = TrainingSettings(size=(320, 192), val_fraction=0.5, card_length_px=(60, 120))
    generate_dataset(
        renders, 4, 0, [builtin_design()], default_backs(2), settings=settings, progress=False
    )
    write_crops([renders], tmp_path / "crops", seed=0, none_keep=1.0, window_mm=(24.0, 30.0))
    common = [
        "--epochs",
        "1",
        "--runs",
        str(tmp_path / "runs"),
        "--models-dir",
        str(tmp_path / "published"),
    ]
    train(["cards", "--data", str(renders / "data.yaml"), "--imgsz", "96", "--batch", "2", *common])
    published = tmp_path / "published"
    assert (published / "cards.onnx").stat().st_size > 100_000
    # Exported resizable: the runtime looks closer at small cards at a larger size.
    assert CardDetector(published / "cards.onnx").resizable
    # The index-corner detector, on the same renders labelled with their index windows.
    corners = tmp_path / "mix" / "data.yaml"
    train(["mix", "--out", str(corners), "--renders", str(renders), "--index-corners"])
    # Trained where nothing can be exported (a borrowed GPU machine), published afterwards.
    only = ["--imgsz", "96", "--batch", "2", "--train-only", *common]
    train(["corners", "--data", str(corners), *only])
    assert not (published / "index_corners.onnx").exists()
    run = tmp_path / "runs" / "corners"
    train(["publish", "corners", "--run", str(run), "--models-dir", str(published)])
    index_corners = CardDetector(published / "index_corners.onnx")
    assert index_corners.names == list(CORNER_CLASSES) and not index_corners.resizable
    assert index_corners.own_side == 96  # published at the size it was trained at
    # A finished run resumed (its export cut short, say) goes on to publish; it does not start
    # ultralytics' own default training.
    rows = (run / "results.csv").read_text()
    resumed = ["corners", "--data", str(corners), "--resume", "--imgsz", "96", *common]
    train(resumed)
    assert (run / "results.csv").read_text() == rows
    assert not (tmp_path / "runs" / "pose").exists()
    # Asked for more epochs than it had, it says so rather than publish it as such.
    with pytest.raises(SystemExit, match=r"finished training otherwise \(epochs 1 -> 2\)"):
        train([*resumed, "--epochs", "2"])
    # A run stopped part way (its checkpoint still holds the optimizer): started again without
    # --resume it would be overwritten, and resumed it goes on as it was started.
    last = run / "weights" / "last.pt"
    finished = last.read_bytes()
    checkpoint = torch.load(last, weights_only=False)
    torch.save({**checkpoint, "epoch": 0, "optimizer": {"state": {}}}, last)
    with pytest.raises(SystemExit, match=r"holds a training stopped after epoch 1: add --resume"):
        train(["corners", "--data", str(corners), "--imgsz", "96", *common])
    with pytest.raises(SystemExit, match=r"was started otherwise \(epochs 1 -> 2\)"):
        train([*resumed, "--epochs", "2"])
    last.write_bytes(finished)
    # Crops cut also where both detectors put the cards.
    found = tmp_path / "crops_found"
    detectors = ["--detector", str(published / "cards.onnx")]
    detectors += ["--corners", str(published / "index_corners.onnx")]
    train(["crops", "--renders", str(renders), "--out", str(found), *detectors])
    assert any(found.glob("train/*/*.png")) and (found / "index_window.json").is_file()
    metrics = json.loads((published / "cards.metrics.json").read_text())
    assert metrics["epochs_run"] == 1 and metrics["imgsz"] == 96
    # ultralytics' own clock, which a resumed run's epochs all count on.
    timed = (tmp_path / "runs" / "cards" / "results.csv").read_text().splitlines()
    column = [name.strip() for name in timed[0].split(",")].index("time")
    assert metrics["train_seconds"] == round(float(timed[-1].split(",")[column]))
    train(
        ["classifier", "--data", str(tmp_path / "crops"), "--imgsz", "32", "--batch", "8", *common]
    )
    assert (published / "index_classifier.onnx").stat().st_size > 100_000
    # Exported with a dynamic batch: every index corner of a photo is read in one run.
    classifier = IndexClassifier(published / "index_classifier.onnx")
    assert classifier.batched and classifier.size == 32
    # The crops' window travels with the model, so the runtime cuts what it was trained on.
    assert classifier.window_mm == (24.0, 30.0)
    published_metrics = json.loads((published / "index_classifier.metrics.json").read_text())
    assert published_metrics["index_window_mm"] == "24,30"
    readings = classifier.probabilities([np.zeros((64, 64, 3), np.uint8)] * 3)
    assert readings.shape == (3, len(classifier.names))
    assert np.allclose(readings.sum(axis=1), 1.0, atol=1e-3)
    # The face classifier: whole cards, cut also where the detector puts them.
    faces = tmp_path / "faces"
    train(["face-crops", "--renders", str(renders), "--out", str(faces), *detectors[:2]])
    # At 64 px: ultralytics refuses a last batch of one crop under that size.
    train(["faces", "--data", str(faces), "--batch", "8", *common])
    face_reader = IndexClassifier(published / "card_faces.onnx")
    assert face_reader.batched and face_reader.size == 64
    assert all(name == "none" or name[-1] in "CDHS" for name in face_reader.names)


SHARED = Path(__file__).resolve().parents[3] / "shared"


@pytest.mark.skipif(not (SHARED / "decks").is_dir(), reason="needs ../shared/decks")
def test_the_one_command_pipeline_publishes_and_skips_what_is_done(
    tmp_path: Path, offline: None
) -> None:
    command = [
        "all",
        "--work",
        str(tmp_path / "work"),
        "--images",
        "8",
        "--procedural",
        "2",
        "--card-epochs",
        "1",
        "--classifier-epochs",
        "1",
        "--calibration-renders",
        "2",
        "--models-dir",
        str(tmp_path / "published"),
        "--shared",
        str(SHARED),
    ]
    train(command)
    steps = ["renders", "edje", "mix", "cards", "corners-mix", "corners", "quantize-detectors"]
    steps += ["crops", "classifier", "quantize", "face-crops", "faces"]
    assert all((tmp_path / "work" / f"{step}.done").is_file() for step in steps)
    published = {p.name for p in (tmp_path / "published").iterdir()}
    assert {"cards.onnx", "index_corners.onnx", "index_classifier.onnx"} <= published
    assert {"index_classifier.int8.onnx", "cards.int8.onnx", "index_corners.int8.onnx"} <= published
    assert "card_faces.onnx" in published
    stamp = (tmp_path / "published" / "cards.onnx").stat().st_mtime_ns
    train(command)  # everything done: nothing is trained or published again
    assert (tmp_path / "published" / "cards.onnx").stat().st_mtime_ns == stamp
    # Asked for more, it says what was done otherwise instead of keeping it silently.
    more = [*command]
    more[more.index("--card-epochs") + 1] = "3"
    with pytest.raises(
        SystemExit, match=r"cards was done in .* with other settings .*epochs 1 -> 3"
    ):
        train(more)
