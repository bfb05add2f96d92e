"""The rounds of a refereed log as a sheet takes them (`nerts.logged_rounds`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nerts.errors import UserError
from nerts.logged_rounds import LoggedGame, read_logged_games, rounds_of_game

SEATS = [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}]


def _end(frame: int, foundation: int, caller: int | None = None) -> dict[str, object]:
    scores = {"0": foundation, "1": -26}
    end = {"frame": frame, "t": frame / 10, "type": "round_end", "round": 1, "scores": scores,
           "foundation": {"0": foundation, "1": 0}, "nerts_left": {"0": 0, "1": 13}}  # fmt: skip
    return end if caller is None else {**end, "caller": caller}


def test_a_round_is_known_by_its_deal_and_first_valid_call_and_no_later_round_borrows_them(
    tmp_path: Path,
) -> None:
    """Game 1: dealt at frame 2, a false call at 8, the valid calls at 10 and 11. Game 2's
    deal is missing from the log, and no one calls: it ends at a second stuck."""
    lines = [
        {"frame": 2, "t": 0.2, "type": "round_start", "round": 1, "seats": SEATS, "nerts_pile": 13},
        {"frame": 8, "t": 0.8, "type": "nerts_call", "seat": 1, "valid": False},
        {"frame": 10, "t": 1.0, "type": "nerts_call", "seat": 0, "valid": True},
        {"frame": 11, "t": 1.1, "type": "nerts_call", "seat": 0, "valid": True},
        _end(12, 30, caller=0),
        {"frame": 12, "t": 1.2, "type": "game_end", "totals": {"0": 30, "1": -26}, "winner": 0},
        _end(40, 5),
    ]
    log = tmp_path / "evening.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    games, refereed, read = read_logged_games(log)
    assert (refereed, read) == (True, True)
    identities = [[logged.identity for logged in game.rounds] for game in games]
    assert identities == [
        ["round 1 dealt at frame 2 (0.2 s) to red, blue; called at frame 10 by seat 0"],
        ["round 1 dealt at ?; ended at 40"],
    ]


def test_a_log_of_many_games_names_the_first_few_ends() -> None:
    games = [LoggedGame([], line) for line in range(100, 800, 100)]
    with pytest.raises(UserError) as raised:
        rounds_of_game(games, Path("night.jsonl"), None)
    assert str(raised.value) == (
        "night.jsonl holds 7 games (game_end on lines 100, 200, 300, 400, 500 and 2 more), and a "
        "sheet keeps one: give --game 1 to --game 7, each to a sheet of its own"
    )
