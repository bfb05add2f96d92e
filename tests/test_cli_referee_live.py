"""`nerts referee` on a live log (piped in or a FIFO, a tick a frame): frames decided as they
come, --out followed as it is written, Ctrl-C keeping what was decided, and an evening's ticks
not held in memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nerts.commands.referee import referee_log
from nerts.eventlog import read_numbered_events
from nerts.scoreboard import format_scoreboard
from referee.event_parsing import event_from_dict
from referee.events import Event, OtherEvent
from referee.game import GameReferee
from referee.options import RuleOptions
from tests.command_line import GOLDEN, run


def test_ctrl_c_while_a_live_log_is_read_keeps_the_rounds_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import nerts.commands.referee as referee_command  # noqa: PLC0415  (patched where it reads)

    example = Path(__file__).parents[1] / "nerts" / "data" / "example_game.jsonl"
    lines = example.read_text().splitlines()
    second = [n for n, line in enumerate(lines, start=1) if '"round_start"' in line][1]

    def interrupted(path: Path) -> Iterator[tuple[int, Event]]:
        # The player presses Ctrl-C while the second round is played.
        for number, event in read_numbered_events(path):
            if number > second + 10:
                raise KeyboardInterrupt
            yield number, event

    monkeypatch.setattr(referee_command, "read_numbered_events", interrupted)
    out_path = tmp_path / "refereed.jsonl"
    status, out, err = run(capsys, "referee", str(example), "--out", str(out_path))
    assert status == 130 and err.endswith("nerts: interrupted\n")
    stopped = "Round 2 (not scored: no valid Nerts call and no final stuck when refereeing was"
    assert out.startswith("Round 1 (") and f"{stopped} stopped, frame " in out
    assert out.endswith(f"refereed events written to {out_path}\n")
    written = out_path.read_text().splitlines()
    assert '"round_end"' in "".join(written) and len(written) > second + 5


def test_a_tick_of_a_later_frame_decides_a_live_log_frame_without_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As `referee --help` advises a live log's writer: a line of its own type each frame."""
    referee = GameReferee()
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()[:2]  # the deal, then AH
    for line in lines:
        assert not [
            e for e in referee.feed(event_from_dict(json.loads(line))) if e.type_name == "play"
        ]
    tick = '{"frame": 31, "t": 1.0333, "type": "tick"}'
    decided = referee.feed(event_from_dict(json.loads(tick)))
    assert [e.to_dict()["verdict"] for e in decided if e.type_name == "play"] == ["accepted"]
    log = tmp_path / "ticks.jsonl"
    log.write_text("\n".join([*lines, tick]) + "\n")
    status, _, err = run(capsys, "referee", str(log))
    assert status == 0 and "warning" not in err


def test_ctrl_c_while_a_frame_is_judged_keeps_what_was_decided(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    example = Path(__file__).parents[1] / "nerts" / "data" / "example_game.jsonl"
    feed = GameReferee.feed
    fed = []

    def judging(self: GameReferee, event: Event) -> list[Event]:
        fed.append(event)
        if len(fed) == 60:  # the player presses Ctrl-C as a frame is judged
            raise KeyboardInterrupt
        return feed(self, event)

    monkeypatch.setattr(GameReferee, "feed", judging)
    status, out, err = run(capsys, "referee", str(example))
    assert status == 130 and err.endswith("nerts: interrupted\n")
    assert out.startswith("Round 1 (") and "(not scored" in out


def test_ticks_are_not_held_in_memory_but_the_last_one(tmp_path: Path) -> None:
    """A camera's tick a frame, over an evening, was 60 MB an hour kept for the scoreboard,
    which needs only the last event's frame and time."""
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()
    times = {json.loads(line)["frame"]: json.loads(line)["t"] for line in lines}  # a frame's own
    last = max(times)
    ticks = [
        {"frame": frame, "t": times.get(frame, round(frame / 30, 4)), "type": "tick"}
        for frame in range(last + 60)
    ]
    log = tmp_path / "live.jsonl"
    log.write_text(
        "\n".join(
            sorted(
                lines + [json.dumps(tick) for tick in ticks],
                key=lambda line: json.loads(line)["frame"],
            )
        )
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    decided = referee_log(log, out, RuleOptions())
    written = [event_from_dict(json.loads(line)) for line in out.read_text().splitlines()]
    assert sum(isinstance(event, OtherEvent) for event in written) == len(ticks)
    assert decided == [event for event in written if not isinstance(event, OtherEvent)] + [
        written[-1]
    ]
    assert decided[-1].to_dict() == ticks[-1]


FOLLOWED_WITHIN_S = 30.0
"""How long a decided frame may take to reach --out on a busy test machine (it takes
milliseconds; a block of kilobytes of a FIFO read without flushing took minutes)."""


def test_a_fifo_is_refereed_as_it_is_played(tmp_path: Path) -> None:
    """A camera tool writing a FIFO: each frame reaches --out once decided (a tool follows
    it), not in blocks of kilobytes seconds late, and the verdicts are told as they come."""
    fifo, out = tmp_path / "live.jsonl", tmp_path / "out.jsonl"
    os.mkfifo(fifo)
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines(keepends=True)
    late = next(n for n, line in enumerate(lines) if '"2H"' in line and '"seat": 2' in line)
    command = [sys.executable, "-m", "nerts", "referee", str(fifo), "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        with fifo.open("w") as writer:  # opened once the referee opens it to read
            writer.writelines(lines[: late + 2])  # the late 2H's frame, then a later one
            writer.flush()
            waited = 0.0
            while '"verdict": "late"' not in (out.read_text() if out.exists() else ""):
                assert waited < FOLLOWED_WITHIN_S, "--out did not follow the FIFO"
                time.sleep(0.1)
                waited += 0.1
            writer.writelines(lines[late + 2 :])
        stdout, _ = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0
    assert stdout.splitlines()[0] == "    2.1 s  frame     62: seat 2's 2H on F0: late"


def test_the_scoreboard_names_the_last_event_whatever_its_type(tmp_path: Path) -> None:
    """A tick, then a play: the round is not scored by the play's frame, not the tick's."""
    log = tmp_path / "short.jsonl"
    deal = {"frame": 0, "t": 0.0, "type": "round_start", "round": 1,
            "seats": [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}],
            "nerts_pile": 13}  # fmt: skip
    tick = {"frame": 5, "t": 0.5, "type": "tick"}
    play = {"frame": 10, "t": 1.0, "type": "play", "seat": 0, "card": "AH", "pile": "F0"}
    log.write_text("".join(json.dumps(event) + "\n" for event in (deal, tick, play)))
    decided = referee_log(log, None, RuleOptions())
    assert [event.frame for event in decided] == [0, 10]
    assert "by the log's end, frame 10, 1.0 s)" in format_scoreboard(decided)
