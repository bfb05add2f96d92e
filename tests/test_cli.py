"""The `nerts` command end to end, in process: help, options, demo and the errors users see."""

from __future__ import annotations

import argparse
import errno
import io
import logging
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import cv2
import numpy as np
import pytest
from tqdm import tqdm

import nerts.cli as cli_module
from nerts.cli import (
    BROKEN_PIPE_STATUS,
    COMMANDS,
    ConsoleFormatter,
    ConsoleHandler,
    build_parser,
    main,
    verbosity_of,
)
from nerts.commands import count as count_command
from nerts.commands import demo, simulate
from nerts.commands import referee as referee_command
from nerts.eventlog import read_events
from referee.events import RoundEnd, RoundStart, SeatInfo
from referee.game import GameReferee
from referee.options import RuleOptions
from simulator.backs import default_backs
from tests.command_line import GOLDEN, run


def test_bad_option_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "referee", str(GOLDEN / "races.input.jsonl"), "--target", "0")
    assert status == 2 and "target score must be positive" in err
    status, _, err = run(capsys, "referee", str(GOLDEN / "races.input.jsonl"), "--target", "10001")
    assert status == 2 and "target score must be at most 10000 (a typo?), got 10001" in err
    for grace in ("-1", "nan", "inf"):
        status, _, err = run(
            capsys, "referee", str(GOLDEN / "races.input.jsonl"), "--in-air-grace", grace
        )
        assert status == 2 and "in-air grace must be a finite number of seconds" in err
    for bonus in ("-1", "101", "99999999999999999999"):
        status, _, err = run(
            capsys, "referee", str(GOLDEN / "races.input.jsonl"), "--caller-bonus", bonus
        )
        assert status == 2 and err.endswith(
            f"caller bonus must be 0 to 100 points (a house rule gives 10), got {bonus}\n"
        )


@pytest.mark.parametrize(
    ("arguments", "usage", "unknown"),
    [
        (["identify", "x.jpg", "--bogus"], "usage: nerts identify ", "--bogus"),
        (["scores", "club.jsonl", "add", "Anna=3", "--frob"], "usage: nerts scores ", "--frob"),
        (
            ["box", "send", "--port", "socket://h:1", "BEEP", "--wat"],
            "usage: nerts box send ",
            "--wat",
        ),
        # Typed before the command, the option is nerts' own: told with nerts' usage.
        (["--bogus", "demo"], "usage: nerts [-h]", "--bogus"),
        (["--log-file", "demo", "demo", "--zz"], "usage: nerts demo ", "--zz"),
        # The command's name given first as the log file's name is not where the command is.
        (["--log-file", "demo", "--zz", "demo"], "usage: nerts [-h]", "--zz"),
        (["--log-f", "demo", "--zz", "demo"], "usage: nerts [-h]", "--zz"),  # abbreviated
    ],
)
def test_an_unknown_option_is_told_with_the_usage_of_where_it_was_typed(
    arguments: list[str], usage: str, unknown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(arguments)
    err = capsys.readouterr().err
    assert exit.value.code == 2 and err.startswith(usage)
    assert err.splitlines()[-1].endswith(f"error: unrecognized arguments: {unknown}")


def test_demo_runs_on_built_in_material(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, stdout, _ = run(capsys, "demo", "--example", "--out", str(tmp_path))
    assert status == 0 and "GAME OVER" in stdout
    assert (tmp_path / "events.jsonl").read_text() == (
        GOLDEN / "game_to_target.expected.jsonl"
    ).read_text()


def test_demo_films_a_round_and_referees_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What 'make demo' runs, on a short round filmed small (the whole round takes a minute)."""
    defaults = simulate.build_parser_defaults

    def short(**overrides: object) -> argparse.Namespace:
        return defaults(**overrides, seconds=8.0, size="160x90")

    monkeypatch.setattr(simulate, "build_parser_defaults", short)
    status, stdout, _ = run(capsys, "demo", "--out", str(tmp_path))
    assert status == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "events.jsonl",
        "truth.jsonl",
        "video.mp4",
    ]
    video = cv2.VideoCapture(str(tmp_path / "video.mp4"))
    assert int(video.get(cv2.CAP_PROP_FRAME_COUNT)) == 240
    truth = list(read_events(tmp_path / "truth.jsonl"))
    refereed = list(read_events(tmp_path / "events.jsonl"))
    assert refereed == GameReferee(RuleOptions()).referee_all(truth)
    assert stdout.startswith("Simulating a filmed four-player round")
    assert stdout.endswith(f"refereed events written to {tmp_path / 'events.jsonl'}\n")


def test_the_example_has_its_own_default_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not the simulated round's folder: its events would sit beside another round's video.
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "demo", "--example")[0] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["nerts-demo-example"]
    assert (tmp_path / "nerts-demo-example" / "events.jsonl").is_file()


def test_the_example_is_not_written_beside_a_simulated_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "truth.jsonl").write_text("")
    status, _, err = run(capsys, "demo", "--example", "--out", str(tmp_path))
    assert status == 2 and not (tmp_path / "events.jsonl").exists()
    assert err.endswith(
        f"{tmp_path} holds a simulated round (truth.jsonl): the example's events would lie "
        "beside footage they do not describe; give another --out (the example's own is "
        "nerts-demo-example)\n"
    )


def test_help_teaches(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    commands = ["demo", "referee", "scores", "simulate", "identify", "count", "box", "box-emulator"]
    # Each command listed on a line of its own with what it does, and examples after them.
    listed = [
        line.split()[0] for line in text.splitlines() if line.startswith("    ") and line.split()
    ]
    assert [name for name in listed if name in commands] == commands
    assert text.index("examples:") > text.index("box-emulator")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"nerts {project['project']['version']}\n"


def test_nerts_alone_shows_what_it_can_do(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    text = capsys.readouterr().err
    assert text.startswith("usage: nerts") and "count" in text and "examples:" in text
    assert "required" not in text


def test_files_that_cannot_be_written_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.write_text("")
    races = str(GOLDEN / "races.input.jsonl")
    status, _, err = run(capsys, "--log-file", str(plain / "x.log"), "referee", races)
    assert status == 2 and f"cannot make folder {plain}: {plain} is a file" in err
    status, _, err = run(capsys, "--log-file", str(tmp_path), "referee", races)
    assert status == 2 and f"cannot write {tmp_path}: Is a directory" in err
    status, _, err = run(capsys, "referee", races, "--out", str(plain / "events.jsonl"))
    assert status == 2 and f"{plain} is a file" in err and "Traceback" not in err
    status, _, _ = run(capsys, "--log-file", str(tmp_path / "new" / "x.log"), "referee", races)
    assert status == 0 and (tmp_path / "new" / "x.log").is_file()


@pytest.mark.parametrize(
    ("arguments", "verbose", "log_file"),
    [
        (["scores", "g.jsonl"], 0, None),
        (["-v", "scores", "g.jsonl"], 1, None),
        (["scores", "g.jsonl", "-vv"], 2, None),
        (["-vv", "scores", "g.jsonl", "-v"], 3, None),
        (["--log-file", "a.log", "scores", "g.jsonl", "-v"], 1, Path("a.log")),
        (["-vv", "scores", "g.jsonl", "--log-file", "b.log"], 2, Path("b.log")),
        (["box", "send", "ping", "--port", "loop://", "-v"], 1, None),
    ],
)
def test_logging_options_go_before_or_after_the_command(
    arguments: list[str], verbose: int, log_file: Path | None
) -> None:
    args = build_parser().parse_args(arguments)
    assert (verbosity_of(args), args.log_file) == (verbose, log_file)


def test_a_reader_that_stops_early_ends_the_command_quietly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """'nerts demo --example | head': the pipe closes under the command's output."""

    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

        def fileno(self) -> int:
            return spare.fileno()

    with (tmp_path / "spare").open("w") as spare:
        monkeypatch.setattr(sys, "stdout", ClosedPipe())
        assert main(["referee", str(GOLDEN / "races.input.jsonl")]) == BROKEN_PIPE_STATUS
    assert "Traceback" not in capsys.readouterr().err


def test_commands_suggested_in_errors_can_be_pasted_with_spaces_in_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "club night.jsonl"
    assert main(["scores", str(sheet)]) == 2
    assert f"(start one: nerts scores '{sheet}' new --players" in capsys.readouterr().err
    assert main(["scores", "new", str(sheet), "--players", "Anna Maria", "Ben"]) == 2
    err = capsys.readouterr().err
    assert f"the sheet comes first, then the action: nerts scores '{sheet}' new ..." in err


def test_a_full_disk_under_the_output_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """'nerts scores game.jsonl > /dev/full'."""

    class FullDisk(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def fileno(self) -> int:
            return spare.fileno()

    with (tmp_path / "spare").open("w") as spare:
        monkeypatch.setattr(sys, "stdout", FullDisk())
        assert main(["referee", str(GOLDEN / "races.input.jsonl")]) == 1
    err = capsys.readouterr().err
    assert err == "nerts referee: error: cannot write the output: No space left on device\n"


NOT_UTF8 = os.fsdecode(b"caf\xe9.png")


@pytest.mark.parametrize(
    "arguments",
    [
        ["identify", NOT_UTF8],
        ["count", NOT_UTF8, "--backs", "a={ref}"],
        ["count", "{ref}", "--backs", f"a={NOT_UTF8}"],
        ["simulate", "--out", NOT_UTF8, "--seconds", "1"],
        ["simulate", "--out", "{tmp}", "--players", "2", "--backs", "red", NOT_UTF8],
    ],
)
def test_a_name_that_is_not_utf8_is_refused_before_opencv_sees_it(
    arguments: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # OpenCV ended the process with a segmentation fault on such a name.
    monkeypatch.chdir(tmp_path)  # were the refusal missed, what is written lands here
    ref = tmp_path / "ref.png"
    ref.write_bytes(b"")
    given = [a.format(ref=ref, tmp=tmp_path / "sim") for a in arguments]
    assert main(given) == 2
    assert capsys.readouterr().err.endswith(
        "error: 'caf\\xe9.png' is not UTF-8 text (a name from another system?), which the "
        "image library cannot open: rename it\n"
    )


def test_a_photo_so_named_among_others_is_named_alike_where_skipped_and_at_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cv2.imwrite("felt.png", np.full((72, 128, 3), (60, 120, 40), np.uint8))
    Path(NOT_UTF8).write_bytes(Path("felt.png").read_bytes())
    assert main(["identify", "felt.png", NOT_UTF8, "--json"]) == 2
    said = [line for line in capsys.readouterr().err.splitlines() if "caf" in line]
    assert said == [
        "error: 'caf\\xe9.png' is not UTF-8 text (a name from another system?), which the image "
        "library cannot open: rename it: skipped",
        "nerts identify: error: 1 of 2 photos could not be read and is left out (named above): "
        "caf\\xe9.png",
    ]


def test_an_annotation_named_so_is_refused_and_a_log_so_named_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["identify", "photo.png", "--annotate", NOT_UTF8])
    assert "is not UTF-8 text" in capsys.readouterr().err
    log = tmp_path / NOT_UTF8.replace(".png", ".jsonl")
    shutil.copy(GOLDEN / "races.input.jsonl", log)
    assert main(["referee", str(log)]) == 0  # no OpenCV: Python reads any name


@pytest.mark.parametrize(
    ("arguments", "option", "values"),
    [
        (
            ["count", "s.png", "--backs", "A=a.png", "--backs", "B=b.png", "C=c.png"],
            "backs",
            ["A=a.png", "B=b.png", "C=c.png"],
        ),
        (
            ["count", "s.png", "--backs", "A=a.png", "--left", "A=2", "--left", "B=1"],
            "left",
            ["A=2", "B=1"],
        ),
        (
            ["count", "s.png", "--backs", "A=a.png", "--bonus", "A=10", "--bonus", "B=5"],
            "bonus",
            ["A=10", "B=5"],
        ),
        (
            ["identify", "p.png", "--backs", "A=a.png", "--backs", "B=b.png"],
            "backs",
            ["A=a.png", "B=b.png"],
        ),
        (["simulate", "--out", "v", "--backs", "red", "--backs", "blue"], "backs", ["red", "blue"]),
        (
            ["scores", "g.jsonl", "new", "--players", "Ann", "--players", "Bo"],
            "players",
            ["Ann", "Bo"],
        ),
    ],
)
def test_an_option_given_twice_keeps_both_values_not_the_last(
    arguments: list[str], option: str, values: list[str]
) -> None:
    # Keeping only the last '--left' scored a player's cards left as none, without a word.
    assert getattr(build_parser().parse_args(arguments), option) == values


def test_warnings_say_warning_and_with_verbose_which_part_said_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "typo.jsonl"
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()
    log.write_text("\n".join([lines[0], lines[1].replace('"play"', '"plya"'), *lines[2:]]) + "\n")
    said = f"{log}:2: event type 'plya' is not one the referee knows"
    assert f"\nwarning: {said}" in "\n" + run(capsys, "referee", str(log))[2]
    assert f"\nWARNING nerts.eventlog: {said}" in "\n" + run(capsys, "-v", "referee", str(log))[2]


def test_a_warning_is_written_under_a_progress_bar_not_onto_it() -> None:
    stream = io.StringIO()
    handler = ConsoleHandler(stream)
    handler.setFormatter(ConsoleFormatter(0))
    with tqdm(total=10, file=stream, desc="refereeing", leave=False, mininterval=0) as bar:
        bar.update(3)
        drawn = stream.getvalue()
        record = logging.LogRecord("x", logging.WARNING, __file__, 1, "a card misread", (), None)
        handler.emit(record)
        said = stream.getvalue()[len(drawn) :]
    assert "3/10" in drawn
    cleared, _, rest = said.partition("warning: a card misread\n")
    assert cleared.startswith("\r") and not cleared.strip()  # the bar's line wiped first
    assert "refereeing" in rest  # and drawn again under the message


def test_a_live_games_verdicts_stop_printing_when_their_reader_goes_but_refereeing_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """'... | nerts referee - --out ev.jsonl | head -1': the display went away after its
    first line; the game's events are still all decided and written."""
    log = GOLDEN / "races.input.jsonl"

    class ClosingPipe(io.StringIO):
        def write(self, text: str) -> int:
            if self.getvalue():
                raise BrokenPipeError
            return super().write(text)

        def fileno(self) -> int:
            return spare.fileno()

    out = tmp_path / "events.jsonl"
    with (tmp_path / "spare").open("w") as spare:
        monkeypatch.setattr(sys, "stdout", ClosingPipe())
        monkeypatch.setattr(referee_command, "STANDARD_INPUT", log)  # '-' reads the log,
        monkeypatch.setattr(referee_command, "streamed", lambda _path: True)  # as played
        assert main(["referee", "-", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "the output's reader went away at frame" in err and "Traceback" not in err
    expected = GameReferee().referee_all(read_events(log))
    assert list(read_events(out)) == expected


def test_a_closed_standard_output_is_no_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    """'nerts referee LOG >&-': Python gives the command no standard output at all."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdout", None)
        assert main(["referee", str(GOLDEN / "races.input.jsonl")]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_the_demo_counts_its_round_by_back_from_a_photo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The round's foundation cards, face down and spread, are photographed and counted by
    `nerts count` against the backs' designs; the count is said beside the referee's."""
    seats = tuple(SeatInfo(seat, back.name) for seat, back in enumerate(default_backs(4)))
    deal = RoundStart(0, 0.0, 1, seats, 13)
    foundation, left = {0: 5, 1: 3, 2: 0, 3: 4}, {0: 2, 1: 0, 2: 7, 3: 1}
    scores = {seat: foundation[seat] - 2 * left[seat] for seat in foundation}
    end = RoundEnd(90, 3.0, 1, scores, foundation, left)
    assert demo._count_by_back(tmp_path, [deal, end]) == 0
    out = capsys.readouterr().out
    assert (
        f"--left red=2 blue=0 green=7 black=1 --annotate {tmp_path / 'count-annotated.png'}" in out
    )
    assert out.splitlines()[-8:] == [
        "back   cards  left  points",
        "red        5     2      +1",
        "blue       3     0      +3",
        "green      0     7     -14",
        "black      4     1      +2",
        "total     12",
        f"drawn in {tmp_path / 'count-annotated.png'}",
        "The photo's count agrees with the referee's, back by back.",
    ]
    written = {p.name for p in tmp_path.iterdir()}
    assert written == {"count.png", "count-annotated.png"} | {
        f"back-{back}.png" for back in ("red", "blue", "green", "black")
    }

    def miscounted(args: argparse.Namespace) -> count_command.CountOutcome:
        return count_command.CountOutcome(0, {"red": 5, "blue": 2, "green": 1, "black": 4})

    monkeypatch.setattr(count_command, "count_round", miscounted)
    assert demo._count_by_back(tmp_path, [deal, end]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        "The photo's count differs from the referee's: blue: 2 in the photo, 3 on the "
        "foundations; green: 1 in the photo, 0 on the foundations"
    )


def test_every_command_is_registered_by_the_module_named_for_it() -> None:
    parser = build_parser()
    (subparsers,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(subparsers.choices) == list(COMMANDS)
    for command in COMMANDS:  # given first, a command is parsed with its own module alone
        actions = build_parser(command)._actions
        (alone,) = [a for a in actions if isinstance(a, argparse._SubParsersAction)]
        assert list(alone.choices) == [command]


@pytest.mark.parametrize(
    ("arguments", "light"),
    [(["scores", "GAME", "show"], True), (["-v", "referee", "LOG"], True), (["count", "X"], False)],
)
def test_the_score_and_referee_commands_start_without_opencv(
    arguments: list[str], light: bool
) -> None:
    """On a Raspberry Pi, loading OpenCV and numpy for a score sheet took seconds."""
    check = (
        "import sys; from nerts.cli import _command_given, build_parser; "
        f"build_parser(_command_given({arguments!r})); print('cv2' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == str(not light)


def test_ctrl_c_while_the_commands_are_loaded_is_said_in_a_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first half second, OpenCV and the simulator imported: a traceback was printed."""

    def loading(named: str | None = None) -> argparse.ArgumentParser:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_module, "build_parser", loading)
    assert main(["simulate", "--out", "x"]) == 128 + 2
    assert capsys.readouterr().err == "nerts: interrupted\n"
