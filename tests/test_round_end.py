"""How a round ends and is scored: Nerts calls and their grace, stucks, counts, and games to
a target."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.event_parsing import event_from_dict
from referee.events import (
    Event,
    GameEnd,
    NertsCall,
    NertsCount,
    RoundEnd,
    RoundEndCause,
    Stuck,
)
from referee.game import GameReferee
from referee.round import TIME_ROUNDING_S
from tests.helpers import (
    call,
    count,
    play,
    referee,
    round_ends,
    start,
    stuck,
    take_back,
    verdicts,
)

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def test_false_call_is_reported_and_play_goes_on() -> None:
    out = referee([start(), count(1, 0, 1), call(2, 0), play(3, 0, "AH"), count(4, 0, 0)])
    calls = [e for e in out if isinstance(e, NertsCall)]
    assert [c.valid for c in calls] == [False]
    assert round_ends(out) == []
    assert verdicts(out) == ["0:AH:accepted"]


def test_valid_call_ends_round_with_cards_in_the_air() -> None:
    events = [
        start(),
        play(1, 0, "AH"),
        count(2, 0, 0),
        call(30, 0),
        play(40, 1, "2H"),  # 0.33 s after the call: still in the air, counts
        play(60, 1, "3H"),
    ]  # 1 s after: the round is over
    out = referee(events)
    assert verdicts(out) == ["0:AH:accepted", "1:2H:accepted", "1:3H:late"]
    (end,) = round_ends(out)
    assert (end.frame, end.foundation, end.nerts_left) == (40, {0: 1, 1: 1}, {0: 0, 1: 13})
    assert end.scores == {0: 1, 1: 1 - 26}


@pytest.mark.parametrize("call_frame", range(100, 130))
def test_a_card_landing_on_the_graces_very_end_counts_in_every_frame(call_frame: int) -> None:
    """Timestamps written to 4 places, as a camera log may: 3.8333 + 0.5 fell below 4.3333 in
    binary, so the card at the grace's end counted after some calls and not after others."""

    def at(event: Event, frame: int) -> Event:
        return replace(event, t=round(frame / 30, 4))

    end = call_frame + 15  # 0.5 s at 30 fps
    events = [
        start(),
        count(1, 0, 0),
        at(call(call_frame, 0), call_frame),
        at(play(end, 1, "AS"), end),
        at(play(end + 1, 1, "2S"), end + 1),
    ]
    assert verdicts(referee(events)) == ["1:AS:accepted", "1:2S:late"]


def test_score_identity_with_caller_bonus_kept_apart() -> None:
    out = referee([start(), play(1, 0, "AH"), count(2, 0, 0), call(3, 0)], caller_bonus=10)
    (end,) = round_ends(out)
    assert end.scores == {0: 1, 1: -26} and end.bonus == {0: 10, 1: 0}
    assert end.to_dict()["bonus"] == {"0": 10, "1": 0}


def test_stuck_twice_without_progress_ends_the_round() -> None:
    out = referee([start(), stuck(10), play(11, 0, "AS"), stuck(20), stuck(30), play(31, 0, "2S")])
    assert [e.frame for e in round_ends(out)] == [30]
    assert verdicts(out)[-1] == "0:2S:late"


def test_a_round_a_stuck_ends_is_ended_after_the_whole_frame_it_counted() -> None:
    """A call listed after the stuck in its frame is judged first (here a false one): it is
    written before the end, as a reader going line by line must see it."""
    events = [start(), play(3, 0, "AH"), stuck(5), stuck(9), call(9, 1)]
    out = referee(events, caller_bonus=10)
    assert [e.TYPE for e in out[-3:]] == ["stuck", "nerts_call", "round_end"]
    (end,) = round_ends(out)
    assert (end.frame, end.ended_by, end.bonus) == (9, RoundEndCause.STUCK, {})


@pytest.mark.parametrize("stuck_frame", [9, 12])
def test_a_stuck_after_a_valid_call_neither_ends_the_round_nor_cuts_the_grace(
    stuck_frame: int,
) -> None:
    """The call ended the round but for the cards in the air (RULES.md): the AH landing 0.4 s
    after it counts, whether the second stuck came in the call's frame or after it."""
    events = [start(), count(4, 0, 0), stuck(5), call(9, 0), stuck(stuck_frame), play(21, 1, "AH")]
    out = referee(sorted(events, key=lambda e: e.frame), caller_bonus=10)
    assert verdicts(out) == ["1:AH:accepted"]
    (end,) = round_ends(out)
    assert (end.frame, end.ended_by, end.caller) == (21, RoundEndCause.NERTS_CALL, 0)
    assert end.scores == {0: 0, 1: 1 - 2 * 13} and end.bonus == {0: 10, 1: 0}


def test_a_take_back_of_nothing_after_the_call_leaves_the_rounds_end_at_the_call() -> None:
    """Ignored as the impossible events are (it took back nothing): the round's end keeps the
    frame of the last event that counts."""
    events = [start(), count(1, 0, 0), call(2, 0), take_back(3, 1, "5H", "zz")]
    (end,) = round_ends(referee(events))
    assert (end.frame, end.t) == (2, 2 / 30)


def test_a_round_no_one_called_reads_back_as_it_was_written() -> None:
    (end,) = round_ends(referee([start(), stuck(5), stuck(9)], caller_bonus=10))
    assert end.bonus == {} and event_from_dict(end.to_dict()) == end


def test_nerts_count_progress_resets_stuck() -> None:
    out = referee([start(), stuck(10), count(15, 1, 12), stuck(20)])
    assert round_ends(out) == []


def test_a_call_after_the_rounds_end_is_not_valid_even_with_an_empty_pile() -> None:
    """Valid only while there is a round to end: the box then leaves the scores showing."""
    out = referee([start(), count(1, 0, 0), call(2, 0), play(40, 1, "AS"), call(41, 0)])
    calls = [(e.frame, e.valid) for e in out if isinstance(e, NertsCall)]
    assert calls == [(2, True), (41, False)]
    assert [e.frame for e in round_ends(out)] == [2]  # the last frame seen in the grace
    assert verdicts(out) == ["1:AS:late"]


def scored_round(number: int, frame: int, cards_by_seat: list[int]) -> list[Event]:
    """A round in which each seat plays its own suit's first cards, then seat 0 calls Nerts."""
    events: list[Event] = [start(frame, round_number=number)]
    for seat, cards in enumerate(cards_by_seat):
        pile = f"R{number}S{seat}"
        events += [
            play(frame + 1 + 5 * seat + i, seat, RANKS[i] + "SHDC"[seat], pile)
            for i in range(cards)
        ]
    events += [count(frame + 20, seat, 0) for seat in range(len(cards_by_seat))]
    return [*events, call(frame + 21, 0)]


def test_game_to_target_and_tie_at_the_top_plays_on() -> None:
    events = scored_round(1, 0, [3, 3]) + scored_round(2, 100, [1, 0])
    out = referee(events, target_score=3)
    assert [e.scores for e in round_ends(out)] == [{0: 3, 1: 3}, {0: 1, 1: 0}]
    games = [e for e in out if isinstance(e, GameEnd)]
    # After round 1 both have 3: level at the top, so play goes on; round 2 decides.
    assert [(g.frame, g.winner, dict(g.totals)) for g in games] == [(121, 0, {0: 4, 1: 3})]


def test_a_new_game_starts_after_game_end() -> None:
    events = scored_round(1, 0, [2, 0]) + scored_round(2, 100, [0, 1])
    out = referee(events, target_score=2)
    games = [e for e in out if isinstance(e, GameEnd)]
    assert [(g.winner, dict(g.totals)) for g in games] == [(0, {0: 2, 1: 0})]


def test_round_start_ends_an_unfinished_round() -> None:
    out = referee([start(), play(1, 0, "AH"), start(50, round_number=2)])
    ends = [e for e in out if isinstance(e, RoundEnd)]
    assert [(e.round, e.frame, e.scores) for e in ends] == [(1, 1, {0: 1 - 26, 1: -26})]


def test_a_seats_two_counts_in_one_frame_end_at_the_smaller() -> None:
    """The camera saw the pile at 1 and at 0 in one frame: it emptied, so the call is valid."""
    out = referee([start(), count(5, 0, 0), count(5, 0, 1), call(6, 0)])
    assert [e.valid for e in out if isinstance(e, NertsCall)] == [True]


def test_a_count_that_does_not_go_down_is_no_progress_between_stucks() -> None:
    out = referee([start(), count(1, 0, 5), stuck(2), count(3, 0, 5), stuck(4)])
    assert [end.frame for end in round_ends(out)] == [4]


def test_a_count_of_the_whole_pile_is_possible_and_one_more_is_not() -> None:
    game = GameReferee()
    out = game.referee_all([start(pile=8), count(1, 0, 8), count(2, 1, 9)])
    assert [e.frame for e in out if isinstance(e, NertsCount)] == [1]
    assert [e.event.frame for e in game.pop_impossible_events()] == [2]


@pytest.mark.parametrize("log_order", ["call first", "count first"])
def test_a_count_emptying_the_pile_and_a_call_in_one_frame_make_a_valid_call(
    log_order: str,
) -> None:
    """The camera saw the pile empty and heard the call at once: the count is judged first,
    whatever the log's order, so the call is valid and ends the round."""
    both = [call(5, 0), count(5, 0, 0)]
    if log_order == "count first":
        both.reverse()
    out = referee([start(), play(1, 0, "AH"), *both])
    assert [e.valid for e in out if isinstance(e, NertsCall)] == [True]
    (end,) = round_ends(out)
    assert (end.frame, end.caller, end.nerts_left) == (5, 0, {0: 0, 1: 13})


def test_a_stuck_after_a_stuck_end_does_not_end_the_round_again() -> None:
    out = referee([start(), stuck(5), stuck(9), stuck(12), stuck(15)])
    assert [e.frame for e in round_ends(out)] == [9]
    assert [e.frame for e in out if isinstance(e, Stuck)] == [5, 9, 12, 15]


def test_a_second_valid_call_in_the_grace_neither_takes_the_call_nor_extends_it() -> None:
    """Seat 1 empties its pile and calls 8 frames after seat 0 did: seat 0 called first, and
    the grace for cards in the air still runs from seat 0's call (15 frames at 30 fps)."""
    events = [start(), count(1, 0, 0), call(2, 0), count(9, 1, 0), call(10, 1), play(20, 1, "AS")]
    out = referee(events, caller_bonus=10)
    assert [(e.seat, e.valid) for e in out if isinstance(e, NertsCall)] == [(0, True), (1, True)]
    assert verdicts(out) == ["1:AS:late"]
    (end,) = round_ends(out)
    assert (end.frame, end.caller, end.bonus) == (10, 0, {0: 10, 1: 0})


def test_a_card_landing_within_the_time_rounding_past_the_grace_counts() -> None:
    """The grace ends 0.5 s after the call, give or take TIME_ROUNDING_S: a card at exactly
    that allowance past it is still in the air, not late."""
    deadline = call(30, 0).t + 0.5
    edge = replace(play(45, 1, "AS"), t=deadline + TIME_ROUNDING_S)
    out = referee([start(), count(1, 0, 0), call(30, 0), edge])
    assert verdicts(out) == ["1:AS:accepted"]


def test_a_called_round_without_a_caller_bonus_reads_back_as_it_was_written() -> None:
    """No bonus house rule: the round_end carries no bonus, as one read back without it."""
    (end,) = round_ends(referee([start(), play(1, 0, "AH"), count(2, 0, 0), call(3, 0)]))
    assert end.caller == 0 and end.bonus == {}
    assert event_from_dict(end.to_dict()) == end


def test_the_caller_bonus_counts_toward_the_game_total() -> None:
    """Seat 0's 1 point alone is far from 50; with the caller's 100 it wins the game."""
    events = [start(), play(1, 0, "AH"), count(2, 0, 0), call(3, 0)]
    out = referee(events, caller_bonus=100, target_score=50)
    games = [e for e in out if isinstance(e, GameEnd)]
    assert [(g.frame, g.winner, dict(g.totals)) for g in games] == [(3, 0, {0: 101, 1: -26})]
