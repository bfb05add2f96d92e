"""`nerts simulate` and `nerts demo` refuse bad options and unusable --out folders in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from nerts.cli import _stop_on_signals, main
from nerts.commands import simulate
from nerts.errors import UserError
from nerts.eventlog import EventWriter
from referee.events import Event
from referee.game import GameReferee
from simulator.render import TableRenderer, VideoSink
from simulator.timeline import FrameState, RoundSimulation

RACES = Path(__file__).parent / "golden" / "races.input.jsonl"
# The smallest, quickest round that still runs the whole command.
FAST = ("--seconds", "1", "--players", "2", "--size", "160x90")


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Runs `nerts ARGV`, expects a user error, and returns its one stderr line."""
    status = main(list(argv))
    err = capsys.readouterr().err
    assert status == 2
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("value", ["nan", "inf", "1e308"])
def test_seconds_must_be_finite_and_at_most_a_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    line = fails(capsys, "simulate", "--out", str(tmp_path / "s"), "--no-video", "--seconds", value)
    expected = f"--seconds must be more than 0 and at most 900, got {float(value):g}"
    assert line == f"nerts simulate: error: {expected}"


@pytest.mark.parametrize("value", ["nan", "inf", "0.001", "1e6"])
def test_fps_must_be_a_camera_frame_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    line = fails(
        capsys, "simulate", "--out", str(tmp_path / "s"), *FAST, "--no-video", "--fps", value
    )
    assert line == f"nerts simulate: error: --fps must be 1 to 240, got {float(value):g}"
    assert not (tmp_path / "s").exists()


def test_run_shorter_than_a_frame_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    line = fails(capsys, "simulate", "--out", str(out), *FAST, "--no-video", "--seconds", "0.01")
    assert line == (
        "nerts simulate: error: --seconds 0.01 at --fps 30 is less than one frame; "
        "give --seconds 0.0333333 or more"
    )


@pytest.mark.parametrize("size", ["100000x100000", "3842x2160", "1280x4320", "²x90"])
def test_size_has_an_upper_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], size: str
) -> None:
    argv = ("--seconds", "1", "--players", "2", "--no-video", "--size", size)
    line = fails(capsys, "simulate", "--out", str(tmp_path / "s"), *argv)
    assert line == (
        "nerts simulate: error: --size must be WIDTHxHEIGHT, even numbers, from 64x64 to "
        f"3840x2160, e.g. 1280x720; got {size!r}"
    )


def test_out_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plainfile"
    plain.write_text("keep me\n")
    line = fails(capsys, "simulate", "--out", str(plain), *FAST, "--no-video")
    assert line == f"nerts simulate: error: cannot make folder {plain}: {plain} is a file"
    line = fails(capsys, "simulate", "--out", str(plain / "x"), *FAST, "--no-video")
    assert line == f"nerts simulate: error: cannot make folder {plain / 'x'}: {plain} is a file"
    assert plain.read_text() == "keep me\n"


@pytest.mark.parametrize(
    ("out", "reason"),
    [("/dev/null", "it is not a folder"), ("/proc/x", "No such file or directory")],
)
def test_out_that_cannot_be_made(capsys: pytest.CaptureFixture[str], out: str, reason: str) -> None:
    if not Path(out).parent.is_dir():
        pytest.skip(f"no {Path(out).parent} here")
    line = fails(capsys, "simulate", "--out", out, *FAST, "--no-video")
    assert line == f"nerts simulate: error: cannot make folder {out}: {reason}"


def test_video_path_that_is_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "video.mp4").mkdir()
    line = fails(capsys, "simulate", "--out", str(tmp_path), *FAST)
    assert line == f"nerts simulate: error: cannot write {tmp_path / 'video.mp4'}: it is a folder"


def test_video_writer_that_will_not_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(sink: VideoSink) -> VideoSink:
        raise OSError(f"cannot open video writer for {sink.path} ({sink.fourcc})")

    monkeypatch.setattr(VideoSink, "__enter__", refuse)
    line = fails(capsys, "simulate", "--out", str(tmp_path), *FAST)
    assert line == (
        f"nerts simulate: error: cannot open video writer for {tmp_path / 'video.mp4'} (mp4v): "
        "try another --size or --fps, or check the folder is writable"
    )


def test_demo_checks_out_before_simulating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(args: object) -> int:
        raise AssertionError("the demo simulated a round into an unusable --out")

    monkeypatch.setattr(simulate, "run", never)
    plain = tmp_path / "plainfile"
    plain.touch()
    for extra in ((), ("--example",)):
        line = fails(capsys, "demo", "--out", str(plain), *extra)
        assert line == f"nerts demo: error: cannot make folder {plain}: {plain} is a file"
    (tmp_path / "sx" / "video.mp4").mkdir(parents=True)
    line = fails(capsys, "demo", "--out", str(tmp_path / "sx"))
    assert (
        line == f"nerts demo: error: cannot write {tmp_path / 'sx' / 'video.mp4'}: it is a folder"
    )


def test_a_round_cut_at_the_cap_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Bots that only ever make mistakes neither call Nerts nor get stuck.
    argv = ["simulate", "--out", str(tmp_path), "--no-video", "--players", "2"]
    assert main([*argv, "--mistake-rate", "1", "--fps", "1"]) == 0
    assert "the round was cut at the 900 s cap" in capsys.readouterr().err
    assert main(argv) == 0
    assert "cap" not in capsys.readouterr().err


def test_a_video_left_from_an_earlier_run_is_pointed_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    assert main(["simulate", "--out", str(out), *FAST]) == 0
    earlier = (out / simulate.VIDEO_FILE).read_bytes()
    capsys.readouterr()
    assert main(["simulate", "--out", str(out), *FAST, "--no-video", "--seed", "1"]) == 0
    assert f"{out / simulate.VIDEO_FILE} is left from an earlier run" in capsys.readouterr().err
    assert (out / simulate.VIDEO_FILE).read_bytes() == earlier


@pytest.mark.parametrize("truth", [None, b"", b"my notes\n"])
def test_footage_not_simulated_here_is_never_filmed_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], truth: bytes | None
) -> None:
    out = tmp_path / "s"
    out.mkdir()
    (out / simulate.VIDEO_FILE).write_bytes(b"a camera's recording")
    if truth is not None:
        (out / simulate.TRUTH_FILE).write_bytes(truth)
    for command in (["simulate", "--out", str(out), *FAST], ["demo", "--out", str(out)]):
        line = fails(capsys, *command)
        beside = (
            "the truth.jsonl beside it is empty, as a run stopped before its first event leaves "
            "it (killed, or on a full disk)"
            if truth == b""
            else "no truth.jsonl of table events beside it"
        )
        assert line.endswith(
            f"{out / simulate.VIDEO_FILE} is not footage of a round simulated here ({beside}): "
            "filming would replace it; give another --out, or remove it first"
        )
        assert (out / simulate.VIDEO_FILE).read_bytes() == b"a camera's recording"
    # Nor is a truth written beside it, which would let the next run film over it.
    line = fails(capsys, "simulate", "--out", str(out), *FAST, "--no-video")
    assert "a truth.jsonl written beside it would make it look so" in line
    truth_now = out / simulate.TRUTH_FILE
    assert (truth_now.read_bytes() if truth_now.exists() else None) == truth


def test_footage_simulated_here_is_filmed_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    assert main(["simulate", "--out", str(out), *FAST]) == 0
    first = (out / simulate.VIDEO_FILE).read_bytes()
    assert main(["simulate", "--out", str(out), *FAST, "--seed", "1"]) == 0
    assert (out / simulate.VIDEO_FILE).read_bytes() != first
    assert "error" not in capsys.readouterr().err


def test_a_negative_seed_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(capsys, "simulate", "--out", str(tmp_path / "s"), *FAST, "--seed", "-1")
    assert line == "nerts simulate: error: --seed must be 0 or more, got -1"


def _stopped_after(
    monkeypatch: pytest.MonkeyPatch, events: int, stop: Callable[[], None]
) -> list[int]:
    """Makes a simulation call `stop` once, when it has yielded `events` events; returns the
    frames of the events it yields, filled as it runs."""
    frames = RoundSimulation.frames
    fed: list[int] = []

    def stopping(self: RoundSimulation, with_scenes: bool = True) -> Iterator[FrameState]:
        stopped = False
        for state in frames(self, with_scenes):
            fed.extend(event.frame for event in state.events)
            yield state
            if len(fed) >= events and not stopped:
                stopped = True
                stop()

    monkeypatch.setattr(RoundSimulation, "frames", stopping)
    return fed


def test_an_interrupted_run_keeps_the_frame_the_referee_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The referee writes a frame's events once the next begins: stopped with Ctrl-C, the truth
    still holds every event of the frames simulated."""

    def ctrl_c() -> None:
        raise KeyboardInterrupt

    fed = _stopped_after(monkeypatch, 12, ctrl_c)
    out = tmp_path / "s"
    assert main(["simulate", "--out", str(out), "--no-video", "--players", "2"]) == 130
    written = (out / simulate.TRUTH_FILE).read_text().splitlines()
    assert len(written) == len(fed) and json.loads(written[-1])["frame"] == fed[-1]
    said = capsys.readouterr().err.splitlines()
    assert said[-2].endswith(f"the round so far is kept in {out / simulate.TRUTH_FILE}")
    assert said[-1] == "nerts: interrupted"


def test_a_failed_write_is_told_once_without_writing_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A full disk stops the run with the file named; the events the referee still holds are
    not written after it (a second failure would have been told in its place)."""
    write = EventWriter.write
    finished: list[bool] = []

    def filling(self: EventWriter, event: Event) -> None:
        if self.count == 5:
            raise UserError(f"cannot write {self.path}: No space left on device")
        write(self, event)

    monkeypatch.setattr(EventWriter, "write", filling)

    def finish(self: GameReferee) -> list[Event]:
        finished.append(True)
        return []

    monkeypatch.setattr(GameReferee, "finish", finish)
    out = tmp_path / "s"
    assert main(["simulate", "--out", str(out), "--players", "2", "--no-video"]) == 2
    said = capsys.readouterr().err.splitlines()
    assert said == [
        f"nerts simulate: error: cannot write {out / simulate.TRUTH_FILE}: No space left on device"
    ]
    assert not finished and len((out / simulate.TRUTH_FILE).read_text().splitlines()) == 5


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
def test_a_run_killed_or_hung_up_on_keeps_what_it_made(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stop: signal.Signals,
) -> None:
    """`kill` or a closed terminal ends a run as Ctrl-C does: the truth written so far and a
    playable video are kept (they had been left empty and unreadable), and the status says
    which signal; the signal's own handling is given back afterwards."""
    fed = _stopped_after(monkeypatch, 12, lambda: os.kill(os.getpid(), stop))

    def ignored(_number: int, _frame: object) -> None:  # not pytest's death, should main not
        return None

    before = signal.signal(stop, ignored)
    try:
        out = tmp_path / "s"
        status = main(["simulate", "--out", str(out), "--players", "2", "--size", "160x90"])
        assert signal.getsignal(stop) is ignored
    finally:
        signal.signal(stop, before)
    assert status == 128 + stop
    assert capsys.readouterr().err.endswith(f"nerts: stopped by {stop.name}\n")
    written = (out / simulate.TRUTH_FILE).read_text().splitlines()
    assert len(written) == len(fed)
    video = cv2.VideoCapture(str(out / simulate.VIDEO_FILE))
    try:
        shown, _ = video.read()
        assert shown and video.get(cv2.CAP_PROP_FRAME_COUNT) > 0
    finally:
        video.release()


def test_a_signal_ignored_already_stays_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`nohup nerts simulate ...`: a closed terminal's SIGHUP does not stop the run."""
    fed = _stopped_after(monkeypatch, 1, lambda: os.kill(os.getpid(), signal.SIGHUP))
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        status = main(["simulate", "--out", str(tmp_path / "s"), *FAST, "--no-video"])
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)
    assert fed and status == 0 and "stopped" not in capsys.readouterr().err


def test_only_the_first_signal_stops_a_run() -> None:
    """A second, while what was made is closed, would cut the closing short."""
    stopped_by: list[int] = []
    replaced = _stop_on_signals(stopped_by)
    try:
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        with pytest.raises(KeyboardInterrupt):
            handler(signal.SIGTERM, None)
        handler(signal.SIGHUP, None)  # noted, no second interrupt
        assert stopped_by == [signal.SIGTERM, signal.SIGHUP]
    finally:
        for number, previous in replaced.items():
            signal.signal(number, previous)


def test_a_run_that_stops_waiting_for_the_box_on_a_signal_says_so() -> None:
    """The referee catches the interrupt to stop waiting for an absent box: the status still
    says the run was stopped (143), not only that the box was not told everything (1)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "nerts", "referee", str(RACES), "--box", "socket://127.0.0.1:1",
         "--box-wait", "60"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    try:
        for line in process.stderr:  # the box is looked for only once the handlers are set
            if "not available" in line:
                break
        process.send_signal(signal.SIGTERM)
        status = process.wait(timeout=30)
        rest = process.stderr.read()
    finally:
        process.kill()
    assert status == 128 + signal.SIGTERM
    assert rest.endswith("nerts: stopped by SIGTERM\n")


def test_options_of_the_video_alone_are_told_unused_without_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    assert main(["simulate", "--out", str(out), *FAST, "--no-video", "--table", "felt"]) == 0
    assert capsys.readouterr().err == (
        "warning: --size, --table change only the video, and --no-video writes none: ignored\n"
    )
    assert main(["simulate", "--out", str(out), "--seconds", "1", "--no-video"]) == 0
    assert capsys.readouterr().err == ""


def test_an_interrupted_film_is_said_to_hold_the_frames_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C just after a frame was filmed, before the next began: the message counts it."""
    write = VideoSink.write

    def stopping(self: VideoSink, frame: np.ndarray) -> None:
        write(self, frame)
        if self.frames_written == 5:
            raise KeyboardInterrupt

    monkeypatch.setattr(VideoSink, "write", stopping)
    out = tmp_path / "s"
    assert main(["simulate", "--out", str(out), "--size", "160x90", "--players", "2"]) == 130
    said = capsys.readouterr().err.splitlines()
    assert said[-2].startswith("warning: stopped after 5 frames: the round so far is kept in ")
    assert int(cv2.VideoCapture(str(out / simulate.VIDEO_FILE)).get(cv2.CAP_PROP_FRAME_COUNT)) == 5


def test_a_frame_stopped_while_drawn_is_left_out_of_the_truth_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C while the first frame with a play is drawn: the video ends before it, and the
    truth, which would have held its play, ends there too."""
    frames, render = RoundSimulation.frames, TableRenderer.render
    with_events: list[int] = []

    def recording(self: RoundSimulation, *args: Any, **kwargs: Any) -> Iterator[FrameState]:
        for state in frames(self, *args, **kwargs):
            if state.events:
                with_events.append(state.frame)
            yield state

    def drawing(self: TableRenderer, scene: Any, frame: int) -> np.ndarray:
        if frame > 0 and with_events[-1] == frame:  # the deal is frame 0's
            raise KeyboardInterrupt
        return render(self, scene, frame)

    monkeypatch.setattr(RoundSimulation, "frames", recording)
    monkeypatch.setattr(TableRenderer, "render", drawing)
    out = tmp_path / "s"
    argv = ["simulate", "--out", str(out), "--size", "160x90", "--players", "2", "--seed", "3"]
    assert main(argv) == 130
    stopped = with_events[-1]
    filmed = int(cv2.VideoCapture(str(out / simulate.VIDEO_FILE)).get(cv2.CAP_PROP_FRAME_COUNT))
    truth = [json.loads(line) for line in (out / simulate.TRUTH_FILE).read_text().splitlines()]
    assert filmed == stopped and [line["frame"] for line in truth] == [0]
    assert capsys.readouterr().err.splitlines()[-2].startswith(f"warning: stopped after {stopped} ")
