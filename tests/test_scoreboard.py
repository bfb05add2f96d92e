"""The printed scoreboard: how each round ended, and a round the log leaves unfinished."""

from __future__ import annotations

from collections import Counter
from typing import Any

from nerts.scoreboard import (
    _level_at_the_top,
    _round_summary,
    as_it_happens,
    format_scoreboard,
)
from referee.event_parsing import event_from_dict
from referee.events import Event, GameEnd
from referee.game import GameReferee
from referee.options import RuleOptions

SEATS = [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}]


def refereed(*events: dict[str, object]) -> list[Event]:
    return GameReferee().referee_all(event_from_dict(event) for event in events)


def start(frame: int, number: int) -> dict[str, object]:
    return {"frame": frame, "t": frame / 10, "type": "round_start", "round": number,
            "seats": SEATS, "nerts_pile": 13}  # fmt: skip


def test_a_round_cut_short_by_the_next_and_one_left_in_play() -> None:
    board = format_scoreboard(
        refereed(
            start(0, 1),
            {"frame": 5, "t": 0.5, "type": "play", "seat": 0, "card": "AH", "pile": "p1"},
            {"frame": 9, "t": 0.9, "type": "nerts_call", "seat": 0, "valid": True},
            start(20, 2),
            {"frame": 25, "t": 2.5, "type": "play", "seat": 1, "card": "AS", "pile": "p1"},
        )
    )
    assert board.splitlines() == [
        "Round 1 (no Nerts call: the next round started; ended at frame 9, 0.9 s)",
        "  seat  back       centre nerts bonus round total",
        "     0  red             1    13     0   -25   -25",
        "     1  blue            0    13     0   -26   -26",
        "  plays: 1 accepted, 0 tie, 0 late, 0 illegal, 1 false Nerts call",
        "",
        "Round 2 (not scored: no valid Nerts call and no final stuck by the log's end, "
        "frame 25, 2.5 s)",
        "  plays: 1 accepted, 0 tie, 0 late, 0 illegal",
    ]


def test_a_round_ended_by_everyone_stuck() -> None:
    board = format_scoreboard(
        refereed(
            start(0, 1),
            {"frame": 10, "t": 1.0, "type": "stuck"},
            {"frame": 20, "t": 2.0, "type": "stuck"},
        )
    )
    assert board.splitlines()[0] == "Round 1 (everyone stuck; ended at frame 20, 2.0 s)"


def test_a_round_ends_stuck_only_at_a_second_stuck_without_progress() -> None:
    """One stuck only rotates the stocks: a round whose last event it was, ended by the next
    deal, had been said to end with everyone stuck."""
    play = {"frame": 15, "t": 1.5, "type": "play", "seat": 0, "card": "AH", "pile": "p1"}
    count = {"frame": 15, "t": 1.5, "type": "nerts_count", "seat": 1, "remaining": 12}
    for between in ([], [play], [count]):
        board = format_scoreboard(
            refereed(
                start(0, 1),
                {"frame": 10, "t": 1.0, "type": "stuck"},
                *between,
                {"frame": 20, "t": 2.0, "type": "stuck"},
                start(30, 2),
            )
        )
        how = "everyone stuck" if not between else "no Nerts call: the next round started"
        assert board.splitlines()[0] == f"Round 1 ({how}; ended at frame 20, 2.0 s)"
    board = format_scoreboard(
        refereed(start(0, 1), {"frame": 10, "t": 1.0, "type": "stuck"}, start(30, 2))
    )
    assert board.splitlines()[0] == (
        "Round 1 (no Nerts call: the next round started; ended at frame 10, 1.0 s)"
    )


def test_progress_logged_after_a_stuck_of_its_frame_came_before_it() -> None:
    """The referee judges a frame's play before its stuck (`judging_key`), whatever the log's
    order: the stuck of frame 15 is the first without progress, and frame 20's ends the round."""
    board = format_scoreboard(
        refereed(
            start(0, 1),
            {"frame": 10, "t": 1.0, "type": "stuck"},
            {"frame": 15, "t": 1.5, "type": "stuck"},
            {"frame": 15, "t": 1.5, "type": "play", "seat": 0, "card": "AH", "pile": "p1"},
            {"frame": 20, "t": 2.0, "type": "stuck"},
            start(30, 2),
        )
    )
    assert board.splitlines()[0] == "Round 1 (everyone stuck; ended at frame 20, 2.0 s)"


def test_back_names_are_printed_without_their_control_characters() -> None:
    seats = [{"seat": 0, "back": "red\x1b[2J\r"}, {"seat": 1, "back": "blue\tdots"}]
    deal = {**start(0, 1), "seats": seats}
    stucks: list[dict[str, object]] = [{"frame": f, "t": f / 10, "type": "stuck"} for f in (10, 20)]
    board = format_scoreboard(refereed(deal, *stucks)).splitlines()
    assert board[2].split() == ["0", "red\\x1b[2J\\r", "0", "13", "0", "-26", "-26"]
    assert board[3].split() == ["1", "blue\\tdots", "0", "13", "0", "-26", "-26"]


def test_a_log_without_rounds() -> None:
    assert format_scoreboard([]).startswith("No round ended in this log")


def test_a_called_round_says_when_it_was_called_and_when_it_ended() -> None:
    board = format_scoreboard(
        refereed(
            start(0, 1),
            {"frame": 5, "t": 0.5, "type": "nerts_count", "seat": 0, "remaining": 0},
            {"frame": 9, "t": 0.9, "type": "nerts_call", "seat": 0},
            {"frame": 12, "t": 1.2, "type": "play", "seat": 1, "card": "AS", "pile": "p1"},
            {"frame": 30, "t": 3.0, "type": "stuck"},
        )
    )
    assert board.splitlines()[0] == (
        "Round 1 (Nerts! called by seat 0 at frame 9; ended at frame 12, 1.2 s)"
    )


def test_plays_and_calls_after_a_rounds_end_are_in_its_summary() -> None:
    """The cards that came too late after the call are the ones players argue about."""
    after_the_end = [
        {"frame": 20, "t": 2.0, "type": "play", "seat": 1, "card": "AS", "pile": "p1"},
        {"frame": 21, "t": 2.1, "type": "play", "seat": 1, "card": "3C", "pile": "p2"},
        {"frame": 22, "t": 2.2, "type": "nerts_call", "seat": 0},
    ]
    for then in ([], [start(40, 2)]):
        board = format_scoreboard(
            refereed(
                start(0, 1),
                {"frame": 5, "t": 0.5, "type": "nerts_count", "seat": 0, "remaining": 0},
                {"frame": 9, "t": 0.9, "type": "nerts_call", "seat": 0},
                *after_the_end,
                *then,
            )
        )
        assert board.splitlines()[4] == (
            "  plays: 0 accepted, 0 tie, 1 late, 1 illegal, 1 false Nerts call"
        )


def test_back_names_are_shown_whole_and_lined_up_in_any_script() -> None:
    seats = [{"seat": 0, "back": "kde-nicu-white__back_c1"}, {"seat": 1, "back": "美咲の赤"}]
    opening = {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "seats": seats}
    board = format_scoreboard(
        refereed(
            {**opening, "nerts_pile": 13},
            {"frame": 10, "t": 1.0, "type": "stuck"},
            {"frame": 20, "t": 2.0, "type": "stuck"},
        )
    )
    assert board.splitlines()[1:4] == [
        "  seat  back                    centre nerts bonus round total",
        "     0  kde-nicu-white__back_c1      0    13     0   -26   -26",
        "     1  美咲の赤                     0    13     0   -26   -26",
    ]


def test_of_two_valid_calls_the_first_is_the_callers() -> None:
    board = format_scoreboard(
        refereed(
            start(0, 1),
            {"frame": 5, "t": 0.5, "type": "nerts_count", "seat": 0, "remaining": 0},
            {"frame": 5, "t": 0.5, "type": "nerts_count", "seat": 1, "remaining": 0},
            {"frame": 6, "t": 0.6, "type": "nerts_call", "seat": 0},
            {"frame": 7, "t": 0.7, "type": "nerts_call", "seat": 1},
        )
    )
    assert board.splitlines()[0].startswith("Round 1 (Nerts! called by seat 0 at frame 6;")
    assert board.count("Nerts!") == 2  # the heading's and the caller's mark in the table


def test_of_two_valid_calls_in_one_frame_the_one_judged_first_is_the_callers() -> None:
    """The log lists seat 1's call first; the referee judges one frame's calls by seat."""
    events = refereed(
        start(0, 1),
        {"frame": 5, "t": 0.5, "type": "nerts_count", "seat": 0, "remaining": 0},
        {"frame": 5, "t": 0.5, "type": "nerts_count", "seat": 1, "remaining": 0},
        {"frame": 6, "t": 0.6, "type": "nerts_call", "seat": 1},
        {"frame": 6, "t": 0.6, "type": "nerts_call", "seat": 0},
    )
    board = format_scoreboard(events)
    assert board.splitlines()[0].startswith("Round 1 (Nerts! called by seat 0 at frame 6;")
    caller_rows = [line for line in board.splitlines() if "<- Nerts!" in line]
    assert len(caller_rows) == 1 and "red" in caller_rows[0]


def test_false_calls_are_counted_in_words() -> None:
    assert _round_summary(Counter(), 1, 0).endswith(", 1 false Nerts call")
    assert _round_summary(Counter(), 2, 3).endswith(", 2 false Nerts calls, stuck 3x")


def test_what_a_live_game_hears_at_once() -> None:
    events: list[dict[str, Any]] = [
        {"type": "play", "seat": 1, "card": "5C", "pile": "F2", "verdict": "illegal",
         "reason": "wrong_suit"},
        {"type": "play", "seat": 0, "card": "AS", "pile": "F3", "verdict": "accepted"},
        {"type": "nerts_call", "seat": 2, "valid": False},
        {"type": "round_end", "round": 3, "scores": {"0": 8, "1": -4}, "foundation": {"0": 8,
         "1": 0}, "nerts_left": {"0": 0, "1": 2}, "bonus": {"0": 10}},
        {"type": "game_end", "totals": {"0": 104, "1": 40}, "winner": 0},
        {"type": "stuck"},
    ]  # fmt: skip
    said = [as_it_happens(event_from_dict({"frame": 1234, "t": 41.13, **e})) for e in events]
    assert said == [
        "   41.1 s  frame   1234: seat 1's 5C on F2: illegal (wrong suit)",
        None,
        "   41.1 s  frame   1234: seat 2 calls Nerts: not valid",
        "   41.1 s  frame   1234: round 3 ends: seat 0 +18, seat 1 -4",
        "   41.1 s  frame   1234: GAME OVER: seat 0 wins with 104 points",
        None,
    ]


def test_seats_level_at_the_top_past_the_target_are_told_to_play_on() -> None:
    log = [
        start(0, 1),
        {"frame": 5, "t": 0.5, "type": "play", "seat": 0, "card": "AH", "pile": "p1"},
        {"frame": 6, "t": 0.6, "type": "play", "seat": 1, "card": "AS", "pile": "p2"},
        {"frame": 7, "t": 0.7, "type": "nerts_count", "seat": 0, "remaining": 0},
        {"frame": 7, "t": 0.7, "type": "nerts_count", "seat": 1, "remaining": 0},
        {"frame": 9, "t": 0.9, "type": "nerts_call", "seat": 0, "valid": True},
    ]
    decided = GameReferee(RuleOptions(target_score=1)).referee_all(map(event_from_dict, log))
    assert not any(isinstance(event, GameEnd) for event in decided)
    lines = format_scoreboard(decided, target=1).splitlines()
    assert lines[4] == "  seats 0 and 1 are level at 1, at or past the target 1: play on"
    assert lines[5].startswith("  plays: 2 accepted")
    assert "level" not in format_scoreboard(decided, target=2)
    assert "level" not in format_scoreboard(decided)


def test_a_lone_leader_or_a_level_top_under_the_target_is_not_told_to_play_on() -> None:
    assert _level_at_the_top(Counter({0: 25, 1: 25, 2: 3}), 20) == [
        "  seats 0 and 1 are level at 25, at or past the target 20: play on"
    ]
    assert _level_at_the_top(Counter({0: 25, 1: 24}), 20) == []  # a winner
    assert _level_at_the_top(Counter({0: 15, 1: 15}), 20) == []  # short of the target


def test_a_seat_calling_validly_twice_is_told_called_at_its_first_call() -> None:
    """The referee judges both calls valid (the round ends only once the cards in the air are
    down): the heading names the call that won the round, not the one repeated after it."""
    board = format_scoreboard(
        refereed(
            start(0, 1),
            {"frame": 5, "t": 0.5, "type": "nerts_count", "seat": 0, "remaining": 0},
            {"frame": 9, "t": 0.9, "type": "nerts_call", "seat": 0},
            {"frame": 10, "t": 1.0, "type": "nerts_call", "seat": 0},
            {"frame": 12, "t": 1.2, "type": "play", "seat": 1, "card": "AS", "pile": "p1"},
        )
    )
    assert board.splitlines()[0] == (
        "Round 1 (Nerts! called by seat 0 at frame 9; ended at frame 12, 1.2 s)"
    )


def test_a_new_games_total_column_starts_from_nothing() -> None:
    """Game 1 (to 1 point) ends at seat 0's call; game 2's first round must not carry its
    points (seat 0's total is -26, not 1 - 26)."""
    log = [
        start(0, 1),
        {"frame": 5, "t": 0.5, "type": "play", "seat": 0, "card": "AH", "pile": "p1"},
        {"frame": 7, "t": 0.7, "type": "nerts_count", "seat": 0, "remaining": 0},
        {"frame": 9, "t": 0.9, "type": "nerts_call", "seat": 0},
        start(20, 2),
        {"frame": 30, "t": 3.0, "type": "stuck"},
        {"frame": 40, "t": 4.0, "type": "stuck"},
    ]
    decided = GameReferee(RuleOptions(target_score=1)).referee_all(map(event_from_dict, log))
    assert format_scoreboard(decided, target=1).splitlines() == [
        "Round 1 (Nerts! called by seat 0 at frame 9; ended at frame 9, 0.9 s)",
        "  seat  back       centre nerts bonus round total",
        "     0  red             1     0     0     1     1  <- Nerts!",
        "     1  blue            0    13     0   -26   -26",
        "  plays: 1 accepted, 0 tie, 0 late, 0 illegal",
        "",
        "GAME OVER: seat 0 (red) wins with 1 point.",
        "",
        "Round 2 (everyone stuck; ended at frame 40, 4.0 s)",
        "  seat  back       centre nerts bonus round total",
        "     0  red             0    13     0   -26   -26",
        "     1  blue            0    13     0   -26   -26",
        "  plays: 0 accepted, 0 tie, 0 late, 0 illegal, stuck 2x",
    ]
