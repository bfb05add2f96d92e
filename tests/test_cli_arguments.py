"""What the commands make of the paths and names they are given: photos and backs in the wrong
place, a path that names no file, a name from another system or too long for one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nerts.cli import main

GOLDEN = Path(__file__).parent / "golden"
RACES = GOLDEN / "races.input.jsonl"


@pytest.mark.parametrize(
    "arguments",
    [
        ["count", "", "--backs", "a=b.png"],
        ["scores", "", "show"],
        ["referee", ""],
        ["--log-file", "", "demo"],
        ["demo", "--log-file", ""],
        ["identify", "table.png", "--annotate", ""],
    ],
)
def test_an_empty_path_is_said_so(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Taken as a path, the empty text is the current folder, which had been said as '.'."""
    with pytest.raises(SystemExit) as stopped:
        main(arguments)
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(": the path is empty")


@pytest.mark.parametrize(
    ("arguments", "option"),
    [
        (["referee", "log.jsonl", "--out", "results/"], "--out"),
        (["scores", "results/", "new", "--players", "Anna", "Ben"], "GAME"),
        (["--log-file", "results/", "demo"], "--log-file"),
    ],
)
def test_a_file_path_ending_in_a_slash_is_refused_not_written_as_a_file(
    arguments: list[str],
    option: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A path drops its last '/': 'results/' would have been written as a file 'results'."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(arguments)
    assert stopped.value.code == 2 and not (tmp_path / "results").exists()
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(
            f"error: argument {option}: 'results/' ends in '/', as a folder does: give a file's "
            "path, e.g. results/FILE"
        )
    )


def test_backs_given_without_backs_are_told_where_they_go(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["count", "centre.jpg", "Anna=a.jpg", "Ben=b b.jpg"])
    assert capsys.readouterr().err.splitlines()[-1] == (
        "nerts count: error: unrecognized arguments: Anna=a.jpg Ben=b b.jpg (backs are given "
        "after --backs: --backs Anna=a.jpg 'Ben=b b.jpg')"
    )
    with pytest.raises(SystemExit):  # --backs=... takes one: the rest go with it
        main(["count", "centre.jpg", "--backs=Anna=a.jpg", "Ben=b.jpg"])
    assert capsys.readouterr().err.splitlines()[-1] == (
        "nerts count: error: unrecognized arguments: Ben=b.jpg (backs are given after --backs: "
        "--backs Anna=a.jpg Ben=b.jpg)"
    )


def _usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The last line argparse says of `nerts ARGV`, a mistake in its arguments."""
    with pytest.raises(SystemExit):
        main(list(argv))
    return capsys.readouterr().err.splitlines()[-1]


def test_values_of_an_unknown_option_are_not_taken_for_backs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # identify has no --left: its value is no back
    assert _usage_error(
        capsys, "identify", "x.jpg", "--backs", "Anna=a.jpg", "--left", "Anna=3"
    ) == ("nerts identify: error: unrecognized arguments: --left Anna=3")


def test_a_second_photo_to_count_is_told_to_be_counted_by_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b.jpg").write_bytes(b"")
    assert _usage_error(capsys, "count", "a.jpg", "b.jpg", "--backs", "Anna=a.png") == (
        "nerts count: error: unrecognized arguments: b.jpg (count reads one photo: run it once "
        "for each)"
    )


def test_backs_among_identify_photos_are_told_where_they_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spread.jpg").write_bytes(b"")
    (tmp_path / "Cy=c.png").write_bytes(b"")  # a file of that name is a photo, not a back
    assert main(["identify", "spread.jpg", "Cy=c.png", "Anna=a.jpg", "--backs", "Ben=b.jpg"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "nerts identify: error: image not found: Anna=a.jpg (backs are given after --backs: "
        "--backs Ben=b.jpg Anna=a.jpg)"
    )


def test_a_file_whose_name_starts_with_a_dash_is_told_how_to_give_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-photo.jpg").write_bytes(b"")
    with pytest.raises(SystemExit):
        main(["identify", "-photo.jpg"])
    assert capsys.readouterr().err.splitlines()[-1] == (
        "nerts identify: error: unrecognized arguments: -photo.jpg (-photo.jpg is a file: give it "
        "as ./-photo.jpg)"
    )
    (tmp_path / "-club.jsonl").write_bytes(b"")
    with pytest.raises(SystemExit):  # taken for an option, the sheet is missing
        main(["scores", "-club.jsonl"])
    assert capsys.readouterr().err.splitlines()[-2:] == [
        "nerts scores: error: the following arguments are required: GAME",
        "nerts: -club.jsonl is a file: give it as ./-club.jsonl",
    ]
    with pytest.raises(SystemExit):  # before the command, no place for a file
        main(["-photo.jpg", "identify"])
    assert capsys.readouterr().err.splitlines()[-1] == (
        "nerts: error: unrecognized arguments: -photo.jpg"
    )
    with pytest.raises(SystemExit):  # too long to be a file's name: had ended in a traceback
        main(["identify", "-" + "a" * 300])
    assert capsys.readouterr().err.endswith("unrecognized arguments: -" + "a" * 300 + "\n")


def test_a_name_from_another_system_is_told_with_its_bytes_escaped(tmp_path: Path) -> None:
    """'bad\\xe9.jsonl', as `shown_name` says it, not Python's '\\udce9' in its place."""
    log = tmp_path / os.fsdecode(b"bad\xe9.jsonl")
    log.write_text('{"frame": 1, "t": 0, "type": "play"}\n')
    done = subprocess.run(
        [sys.executable, "-m", "nerts", "referee", str(log)],
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert done.returncode == 2
    assert done.stderr.endswith(
        os.fsencode(tmp_path) + b"/bad\\xe9.jsonl:1: play: 'seat' is missing; it must be an "
        b"integer from 0 to 999999999\n"
    )


TOO_LONG = "a" * 300


@pytest.mark.parametrize(
    "arguments",
    [
        ["referee", TOO_LONG],
        ["scores", TOO_LONG, "show"],
        ["identify", f"{TOO_LONG}.png"],
        ["simulate", "--out", f"{TOO_LONG}/run", "--seconds", "1", "--no-video"],
    ],
)
def test_a_name_too_long_for_a_file_is_told_in_one_line(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        status = main(arguments)
    except SystemExit as stopped:  # argparse's, for an argument it checks
        status = int(str(stopped.code))
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert err.splitlines()[-1].endswith(
        f"'{'a' * 40}...': a name longer than files may have (255 bytes): shorten it"
    )
