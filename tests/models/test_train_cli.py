"""models.train's command line: sizes it refuses, the seeds `all` passes on, run metrics."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from models import inputs, runs, train_all
from models.runs import CLOCK_BEFORE_RESUMING, final_metrics
from models.train import main
from simulator.training import frame_size


def test_a_frame_size_is_width_x_height() -> None:
    assert frame_size("960x540") == (960, 540)
    assert frame_size("1280X720") == (1280, 720)
    for text in ("1280", "960x", "x540", "0x540", "960x-540", "960x540x2"):
        with pytest.raises(argparse.ArgumentTypeError, match=f"e.g. 960x540, got '{text}'"):
            frame_size(text)
    assert frame_size("2160x3840") == (2160, 3840)  # a camera turned upright
    with pytest.raises(argparse.ArgumentTypeError, match="at most 3840 x 2160 pixels in all"):
        frame_size("3840x2162")  # 99999x99999 had asked for 75 GB of memory


def test_a_bad_size_stops_with_usage_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["data", "--out", str(tmp_path / "r"), "--size", "1280"])
    assert stopped.value.code == 2
    assert "expected WIDTHxHEIGHT, e.g. 960x540, got '1280'" in capsys.readouterr().err


@pytest.mark.parametrize("step", [["data", "--out", "r"], ["quantize"], ["edje", "--out", "e"]])
def test_a_missing_shared_folder_stops_with_usage_not_a_traceback(
    step: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(SystemExit) as stopped:
        main([*step, "--shared", str(missing)])
    assert stopped.value.code == 2
    assert f"--shared {missing}: no such folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (["cards", "--data", "{missing}"], "--data {missing}: no such file or folder"),
        (["classifier", "--data", "{missing}"], "--data {missing}: no such file or folder"),
        (["cards", "--data", "{here}", "--init", "{missing}"], "--init {missing}: no such file"),
        (["publish", "cards", "--run", "{missing}"], "--run {missing}: no such folder"),
        (["publish", "cards", "--run", "{here}"], "--run {here}: no weights/best.pt in it"),
        (
            ["crops", "--renders", "{missing}", "--out", "{here}/c"],
            "--renders {missing}: no such folder",
        ),
        (
            ["crops", "--renders", "{here}", "--out", "{here}/c", "--detector", "{missing}"],
            "--detector {missing}: no such file",
        ),
        (["data", "--out", "{here}/r", "--count", "-1"], "--count must be at least 1, not -1"),
        (["data", "--out", "{here}/r", "--truetype", "501"], "--truetype 501: at most 500 (more"),
        (["cards", "--data", "{here}", "--epochs", "0"], "--epochs must be at least 1, not 0"),
        (["cards", "--data", "{here}"], "--data {here}: give a data.yaml, as 'data' or 'mix'"),
        (["corners", "--data", "{here}"], "give a data.yaml, as 'mix --index-corners' writes"),
        # A render folder's images/ and labels/ would be taken for two classes.
        (["classifier", "--data", "{here}"], "--data {here}: no crops in train/ or val/: give"),
        (["faces", "--data", "{here}"], "a crop folder as 'face-crops' writes"),
    ],
)
def test_a_missing_input_or_a_count_under_1_stops_with_usage_not_a_traceback(
    step: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    places = {"missing": str(tmp_path / "nowhere"), "here": str(tmp_path)}
    with pytest.raises(SystemExit) as stopped:
        main([part.format(**places) for part in step])
    assert stopped.value.code == 2
    assert message.format(**places) in capsys.readouterr().err


def test_crops_without_a_val_split_are_refused_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "train" / "AS").mkdir(parents=True)
    (tmp_path / "train" / "AS" / "0.png").write_bytes(b"crop")
    (tmp_path / "val").mkdir()
    with pytest.raises(SystemExit):
        main(["classifier", "--data", str(tmp_path)])
    assert f"--data {tmp_path}: no crops in val/: give" in capsys.readouterr().err


def test_a_step_done_with_other_settings_is_named_not_skipped(tmp_path: Path) -> None:
    done = tmp_path / "cards.done"
    done.write_text(json.dumps({"settings": {"epochs": "1", "imgsz": "416"}}))
    train_all._check_same_settings(done, {"epochs": "1", "imgsz": "416"}, tmp_path)
    with pytest.raises(SystemExit, match=r"cards was done in .* \(epochs 1 -> 60\)"):
        train_all._check_same_settings(done, {"epochs": "60", "imgsz": "416"}, tmp_path)
    done.write_text("2026-11-01 10:00:00\n")  # written before settings were kept: skipped
    train_all._check_same_settings(done, {"epochs": "60"}, tmp_path)


TRAINED = ("cards", "corners", "crops", "classifier", "quantize", "face_crops", "faces")
"""The steps of `all` that cut, train or calibrate at its own seed."""


def _seeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *seed: str) -> dict[str, int]:
    """The seed each seeded step of `all` is given, with every step's work left out (none
    may publish into the repository's models/, where `all` publishes by default)."""
    seeds: dict[str, int] = {}

    def record(name: str) -> Callable[[argparse.Namespace], None]:
        def handler(args: argparse.Namespace) -> None:
            if hasattr(args, "seed"):
                seeds[name] = args.seed
            if name == "data":
                assert args.size == (960, 540)

        return handler

    for name in ("data", "edje", "mix", "cards", "corners", "crops", "classifier", "quantize"):
        monkeypatch.setattr(train_all, f"command_{name}", record(name))
    monkeypatch.setattr(train_all, "command_face_crops", record("face_crops"))
    monkeypatch.setattr(train_all, "command_faces", record("faces"))
    # A folder shaped as shared/ (it holds decks/): no step reads it here.
    (tmp_path / "decks").mkdir(exist_ok=True)
    main(["all", "--work", str(tmp_path / "all"), "--shared", str(tmp_path), *seed])
    return seeds


def test_all_renders_at_seed_1_and_cuts_and_trains_at_seed_0_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trained = dict.fromkeys(TRAINED, 0)
    assert _seeds(tmp_path, monkeypatch) == {"data": 1} | trained


def test_all_passes_its_seed_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trained = dict.fromkeys(TRAINED, 7)
    assert _seeds(tmp_path, monkeypatch, "--seed", "7") == {"data": 8} | trained


def test_a_run_without_results_has_run_no_epochs(tmp_path: Path) -> None:
    args = argparse.Namespace(imgsz=64, data="crops")
    assert final_metrics(tmp_path, 0, args)["epochs_run"] == 0
    (tmp_path / "results.csv").write_text("epoch,loss\n1,0.5\n2,0.4\n")
    assert final_metrics(tmp_path, 0, args)["epochs_run"] == 2


def test_all_again_on_a_gpu_or_with_a_folder_named_otherwise_skips_what_is_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _seeds(tmp_path, monkeypatch, "--models-dir", str(tmp_path / "published"))
    assert first  # every step ran and wrote its .done
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(inputs, "_check_device", lambda parser, device: None)  # a GPU machine
    again = ["--device", "0", "--models-dir", "published"]  # relative this time
    assert _seeds(tmp_path, monkeypatch, *again) == {}  # nothing ran again
    with pytest.raises(SystemExit, match=r"renders was done in .* \(seed 1 -> 4\)"):
        _seeds(tmp_path, monkeypatch, *again, "--seed", "3")


@pytest.mark.parametrize(
    ("missing", "said"),
    [
        ("torch", "cards: needs torch, which is not installed: pip install -e '.[train]'"),
        ("ultralytics.engine", "cards: needs ultralytics, which is not installed: pip install"),
    ],
)
def test_a_step_without_the_train_extra_says_so_in_one_line(
    missing: str, said: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def needs_it(args: argparse.Namespace) -> None:
        raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)

    monkeypatch.setattr("models.steps.command_cards", needs_it)
    with pytest.raises(SystemExit) as stopped:
        main(["cards", "--data", str(_data_yaml(tmp_path))])
    assert str(stopped.value.code).startswith(said)


def test_a_step_stopped_by_ctrl_c_says_how_to_go_on_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def stopped(args: argparse.Namespace) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("models.steps.command_cards", stopped)
    with pytest.raises(SystemExit) as exited:
        main(["cards", "--data", str(_data_yaml(tmp_path))])
    assert exited.value.code == 130
    assert capsys.readouterr().err.startswith(
        "python -m models.train cards: interrupted: run the same command again to go on"
    )


def test_another_missing_module_is_not_taken_for_the_train_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(args: argparse.Namespace) -> None:
        raise ModuleNotFoundError("No module named 'models.gone'", name="models.gone")

    monkeypatch.setattr("models.steps.command_cards", broken)
    with pytest.raises(ModuleNotFoundError):
        main(["cards", "--data", str(_data_yaml(tmp_path))])


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--hand-fans", "-1"], "argument --hand-fans: expected a number >= 0, got '-1'"),
        (["--count-spreads", "2"], "argument --count-spreads: expected a share from 0 to 1"),
        (["--cast-shadows", "nan"], "argument --cast-shadows: expected a share from 0 to 1"),
        (["--procedural", "-2"], "argument --procedural: expected a whole number >= 0"),
        (["--seed", "-1"], "argument --seed: expected a whole number >= 0, got '-1'"),
    ],
)
def test_render_settings_out_of_range_stop_with_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], said: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["data", "--out", str(tmp_path / "r"), *arguments])
    assert stopped.value.code == 2
    assert said in capsys.readouterr().err


def test_the_decks_folder_given_for_shared_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decks = tmp_path / "decks"
    (decks / "train").mkdir(parents=True)
    with pytest.raises(SystemExit):
        main(["data", "--out", str(tmp_path / "r"), "--shared", str(decks)])
    assert f"--shared {decks}: no decks/ or real/ in it" in capsys.readouterr().err


def _data_yaml(folder: Path) -> Path:
    data = folder / "data.yaml"
    data.write_text("path: .\n")
    return data


@pytest.mark.parametrize("step", ["crops", "face-crops"])
def test_crops_from_a_folder_that_holds_no_renders_stop_in_one_line(
    tmp_path: Path, step: str
) -> None:
    (tmp_path / "images").mkdir()  # what a user may give: the renders' own images folder
    with pytest.raises(SystemExit, match=rf"^{step}: --renders .* holds no renders"):
        main([step, "--renders", str(tmp_path / "images"), "--out", str(tmp_path / "c")])
    assert not (tmp_path / "c").exists()


def test_crops_never_empty_a_folder_of_card_designs(tmp_path: Path) -> None:
    """'crops --out' aimed at shared/decks: its train/ and val/ are designs, not crops."""
    renders = tmp_path / "renders"
    (renders / "meta" / "train").mkdir(parents=True)
    decks = tmp_path / "decks"
    (decks / "train" / "kde").mkdir(parents=True)
    (decks / "train" / "kde" / "AS.png").write_bytes(b"a design")
    with pytest.raises(SystemExit, match=r"^crops: --out .* already holds train/, which no"):
        main(["crops", "--renders", str(renders), "--out", str(decks)])
    assert (decks / "train" / "kde" / "AS.png").read_bytes() == b"a design"


def test_data_refuses_a_count_that_leaves_no_val_frame(tmp_path: Path) -> None:
    (tmp_path / "decks").mkdir()
    with pytest.raises(SystemExit, match=r"^data: --count 1 leaves the val split empty"):
        main(["data", "--out", str(tmp_path / "r"), "--count", "1", "--shared", str(tmp_path)])


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["crops", "--renders", "{here}", "--out", "{here}/c", "--window-mm", "-1", "0"],
         "argument --window-mm: expected a number > 0, got '-1'"),
        (["cards", "--data", "{here}", "--fraction", "5"],
         "argument --fraction: expected a share above 0, at most 1, got '5'"),
        (["cards", "--data", "{here}", "--fraction", "0"],
         "argument --fraction: expected a share above 0, at most 1, got '0'"),
        (["cards", "--data", "{here}", "--hours", "-1"],
         "argument --hours: expected a number > 0, got '-1'"),
        (["cards", "--data", "{here}", "--lr0", "0"],
         "argument --lr0: expected a number > 0, got '0'"),
        (["cards", "--data", "{here}", "--warmup-epochs", "nan"],
         "argument --warmup-epochs: expected a number >= 0, got 'nan'"),
        (["cards", "--data", "{here}", "--workers", "-4"],
         "argument --workers: expected a whole number >= 0, got '-4'"),
    ],
)  # fmt: skip
def test_training_numbers_out_of_range_stop_with_usage(
    arguments: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([part.format(here=tmp_path) for part in arguments])
    assert stopped.value.code == 2
    assert said in capsys.readouterr().err


def test_an_out_folder_that_cannot_be_made_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Under a file: no traceback, the path and the reason."""
    (tmp_path / "decks").mkdir()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(SystemExit) as stopped:
        main(["data", "--out", str(blocker / "r"), "--count", "2", "--shared", str(tmp_path)])
    assert stopped.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("python -m models.train data: error: ") and "Not a directory" in err


def test_a_device_this_machine_lacks_stops_with_usage_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = pytest.importorskip("torch", reason="the train extra is not installed")
    count = torch.cuda.device_count()
    with pytest.raises(SystemExit) as stopped:
        main(["all", "--device", str(count), "--work", str(tmp_path / "w")])
    assert stopped.value.code == 2 and not (tmp_path / "w").exists()
    assert f"--device {count}: this machine has " in capsys.readouterr().err


def test_a_resumed_run_counts_the_time_of_every_epoch(tmp_path: Path) -> None:
    """ultralytics' own clock starts again in the process that resumed a run."""
    args = argparse.Namespace(imgsz=64, data="crops")
    results = tmp_path / "results.csv"
    results.write_text("epoch,time,loss\n1,40.2,0.5\n2,81.7,0.4\n")
    assert final_metrics(tmp_path, 3.0, args)["train_seconds"] == 82
    results.write_text(results.read_text() + "3,39.0,0.3\n4,80.3,0.2\n")  # resumed after 2
    assert final_metrics(tmp_path, 3.0, args)["train_seconds"] == 162
    results.write_text("epoch,loss\n1,0.5\n")  # no clock: this process's own
    assert final_metrics(tmp_path, 3.0, args)["train_seconds"] == 3
    # Noted where it resumed: a resumed process's first epoch may outlast the earlier ones.
    results.write_text("epoch,time\n1,40.2\n2,45.0\n3,85.1\n4,\n")  # a row cut short
    (tmp_path / CLOCK_BEFORE_RESUMING).write_text("40.2\n")
    assert final_metrics(tmp_path, 3.0, args)["train_seconds"] == 125


def test_a_run_of_another_kind_of_model_is_not_published(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "runs" / "classifier"
    (run / "weights").mkdir(parents=True)
    (run / "weights" / "best.pt").write_bytes(b"weights")
    (run / "args.yaml").write_text("task: classify\nimgsz: 64\ndata: crops\n")
    with pytest.raises(SystemExit, match="trained a classify model, and cards is a pose model"):
        main(["publish", "cards", "--run", str(run), "--models-dir", str(tmp_path / "m")])
    assert not (tmp_path / "m").exists()


def test_the_clock_is_noted_each_time_a_run_is_resumed(tmp_path: Path) -> None:
    (tmp_path / "results.csv").write_text("epoch,time\n1,40.2\n")
    runs._note_clock_before_resuming(tmp_path)
    (tmp_path / "results.csv").write_text("epoch,time\n1,40.2\n2,30.5\n")
    runs._note_clock_before_resuming(tmp_path)
    assert (tmp_path / CLOCK_BEFORE_RESUMING).read_text() == "40.2\n30.5\n"
    (tmp_path / "results.csv").write_text("epoch,time\n1,40.2\n2,30.5\n3,20.1\n")
    args = argparse.Namespace(imgsz=64, data="crops")
    assert final_metrics(tmp_path, 3.0, args)["train_seconds"] == 91  # 40.2 + 30.5 + 20.1


@pytest.mark.parametrize(
    ("device", "gpus", "refused"),
    [("CPU", 0, False), ("cuda", 1, False), ("-1", 2, False), ("0,1", 2, False),
     ("cuda:1", 1, True), ("cuda", 0, True), ("gpu", 1, True)],
)  # fmt: skip
def test_a_device_is_read_as_ultralytics_reads_it(
    device: str,
    gpus: int,
    refused: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    torch = pytest.importorskip("torch", reason="the train extra is not installed")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: gpus)
    parser = argparse.ArgumentParser(prog="python -m models.train all")
    args = argparse.Namespace(step="all", device=device)
    if refused:
        with pytest.raises(SystemExit):
            inputs.check_inputs(parser, args)
        assert f"--device {device.lower()}: this machine has" in capsys.readouterr().err
    else:
        inputs.check_inputs(parser, args)
