"""`nerts referee` on a log's deals: a round dealt again under its number, and seats dealt one
back, warned of by their lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.command_line import GOLDEN, run


def test_a_round_dealt_again_under_its_number_is_warned_of_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (GOLDEN / "races.input.jsonl").read_text().splitlines()
    again = lines[0].replace('"frame": 0, "t": 0.0', '"frame": 100, "t": 3.3333')
    log = tmp_path / "restarted.jsonl"
    log.write_text("\n".join([*lines[:8], again, *lines[8:]]) + "\n")
    status, out, err = run(capsys, "referee", str(log))
    assert status == 0 and out.count("Round 1 (") == 2
    assert [line for line in err.splitlines() if line.startswith("warning: ")] == [
        f"warning: {log}:9: round 1 is dealt after round 1 of the same game (a logger "
        "restarted?): refereed as a round of its own"
    ]
    # After the log's own game end, a round 1 begins a new game, whatever --target says.
    game_end = '{"frame": 95, "t": 3.1667, "type": "game_end", "winner": 0, "totals": {"0": 5}}'
    log.write_text("\n".join([*lines[:8], game_end, again, *lines[8:]]) + "\n")
    assert "is dealt after" not in run(capsys, "referee", str(log))[2]
    # The bundled example deals rounds 1 to 4 in turn: no warning.
    example = Path(__file__).parents[1] / "nerts" / "data" / "example_game.jsonl"
    assert "is dealt after" not in run(capsys, "referee", str(example))[2]


def test_seats_dealt_the_same_back_are_warned_of_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seats = [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}, {"seat": 2, "back": "red"}]
    deal = {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "nerts_pile": 13}
    log = tmp_path / "same.jsonl"
    log.write_text(json.dumps(deal | {"seats": seats}) + "\n")
    status, _, err = run(capsys, "referee", str(log))
    assert status == 0 and err == (
        f"warning: {log}:1: seats 0 and 2 are dealt the same back 'red': counted by back, their "
        "cards cannot be told apart (each deck's back must differ)\n"
    )
    log.write_text(json.dumps(deal | {"seats": seats[:2]}) + "\n")
    assert run(capsys, "referee", str(log))[2] == ""
