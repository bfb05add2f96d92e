"""The rounds of a refereed log as a sheet takes them (`nerts.logged_rounds`)."""

from __future__ import annotations

import json
from pathlib import Path
from shlex import quote

import pytest

from nerts.errors import UserError
from nerts.logged_rounds import (
    LoggedGame,
    logged_points,
    not_yet_scored,
    read_logged_games,
    rounds_of_game,
)
from nerts.sheets import source_name
from referee.scoresheet import RoundOrigin, Scoresheet

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


def _written(tmp_path: Path, lines: list[dict[str, object]]) -> Path:
    log = tmp_path / "evening.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return log


def _refusal(log: Path) -> str:
    with pytest.raises(UserError) as raised:
        read_logged_games(log)
    return str(raised.value)


def _again(log: Path) -> str:
    return (
        f"nothing added. Referee the log again: nerts referee {quote(str(log))} --out EVENTS.jsonl"
    )


def test_a_bonus_to_two_seats_is_refused_though_both_went_out(tmp_path: Path) -> None:
    """Both seats emptied their Nerts piles, so each might have called; only one wins."""
    end = {"frame": 12, "t": 1.2, "type": "round_end", "round": 1, "caller": 0,
           "scores": {"0": 10, "1": 5}, "foundation": {"0": 10, "1": 5},
           "nerts_left": {"0": 0, "1": 0}, "bonus": {"0": 10, "1": 10}}  # fmt: skip
    log = _written(tmp_path, [end])
    assert _refusal(log) == (
        f"{log}:1: round 1 gives a bonus to seat 0 (10), seat 1 (10), but only its Nerts "
        "caller (a seat that called with no Nerts card left) earns one, and no less than "
        f"nothing; {_again(log)}"
    )


def test_a_bonus_of_minus_one_is_refused(tmp_path: Path) -> None:
    """The smallest negative bonus: no house rule takes points from the caller."""
    log = _written(tmp_path, [{**_end(12, 30, caller=0), "bonus": {"0": -1}}])
    assert _refusal(log) == (
        f"{log}:1: round 1 gives a bonus to seat 0 (-1), but only its Nerts caller (a seat "
        f"that called with no Nerts card left) earns one, and no less than nothing; {_again(log)}"
    )


def test_a_rounds_points_with_the_bonus_may_not_pass_1000(tmp_path: Path) -> None:
    """990 centre cards is a typo the sheet must not take: with a bonus of 50, 1040 points."""
    log = _written(tmp_path, [{**_end(12, 990, caller=0), "bonus": {"0": 50}}])
    assert _refusal(log) == (
        f"{log}:1: round 1 gives seat 0 1040 points, beyond -1000 to 1000; {_again(log)}"
    )
    _written(tmp_path, [{**_end(12, 990, caller=0), "bonus": {"0": 10}}])
    games, _, _ = read_logged_games(log)
    assert [logged_points(logged.end) for logged in games[0].rounds] == [{0: 1000, 1: -26}]


def test_a_log_of_two_games_needs_one_named() -> None:
    games = [LoggedGame([], 7), LoggedGame([], None)]
    with pytest.raises(UserError) as raised:
        rounds_of_game(games, Path("night.jsonl"), None)
    assert str(raised.value) == (
        "night.jsonl holds 2 games (game_end on line 7), and a sheet keeps one: give --game 1 "
        "to --game 2, each to a sheet of its own"
    )


def test_a_game_number_past_the_logs_last_game_is_refused() -> None:
    games = [LoggedGame([], 7), LoggedGame([], None)]
    with pytest.raises(UserError) as raised:
        rounds_of_game(games, Path("night.jsonl"), 3)
    assert str(raised.value) == "--game 3: night.jsonl holds 2 games"


def test_rounds_on_the_sheet_with_their_identity_are_not_warned_of_as_unknown(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The log, grown by a round since its first was added: that round is left out as the same
    one, and not said to be of unknown identity (as a round added before sheets kept it is)."""
    deal = {"frame": 2, "t": 0.2, "type": "round_start", "round": 1, "seats": SEATS,
            "nerts_pile": 13}  # fmt: skip
    first = [deal, _end(12, 30, caller=0)]
    log = _written(tmp_path, first)
    (added,) = read_logged_games(log)[0][0].rounds
    sheet = Scoresheet({0: "Ann", 1: "Ben"})
    sheet.add_round(logged_points(added.end), RoundOrigin("f1", source_name(log), added.identity))
    _written(tmp_path, [*first, {**deal, "frame": 20, "round": 2}, {**_end(40, 5), "round": 2}])
    rounds = read_logged_games(log)[0][0].rounds
    assert not_yet_scored(sheet, Path("sheet.jsonl"), log, rounds) == rounds[1:]
    assert caplog.messages == [
        f"sheet.jsonl: round 1 (as round 1) of {log} is on the sheet already (the same "
        "rounds): left out"
    ]
