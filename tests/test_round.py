from __future__ import annotations

import re
from dataclasses import replace

import pytest

from referee import game as game_module
from referee.cards import Suit
from referee.errors import EventError, RefereeInputError
from referee.event_parsing import event_from_dict
from referee.events import (
    Event,
    GameEnd,
    NertsCall,
    NertsCount,
    OtherEvent,
    PileComplete,
    RoundEnd,
    RoundStart,
    SeatInfo,
    Stuck,
)
from referee.game import GameReferee
from referee.options import RuleOptions
from referee.round import TIME_ROUNDING_S, RepeatedPlay
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


def test_ace_starts_a_pile_and_builds_by_suit() -> None:
    out = referee([start(), play(1, 0, "AH"), play(2, 1, "2H"), play(3, 0, "3H")])
    assert verdicts(out) == ["0:AH:accepted", "1:2H:accepted", "0:3H:accepted"]


@pytest.mark.parametrize(
    ("cards", "last"),
    [
        (["5D"], "0:5D:illegal:not_an_ace"),
        (["AD", "2C"], "0:2C:illegal:wrong_suit"),
        (["AD", "3D"], "0:3D:illegal:wrong_rank"),
        (["AD", "AS"], "0:AS:illegal:wrong_suit"),
    ],
)
def test_illegal_reasons(cards: list[str], last: str) -> None:
    out = referee([start(), *(play(i + 1, 0, c) for i, c in enumerate(cards))])
    assert verdicts(out)[-1] == last


def test_earlier_frame_wins_later_is_late() -> None:
    out = referee([start(), play(1, 0, "AS"), play(5, 1, "2S"), play(6, 0, "2S"), play(9, 0, "3S")])
    assert verdicts(out) == ["0:AS:accepted", "1:2S:accepted", "0:2S:late", "0:3S:accepted"]


def test_same_frame_is_a_tie_and_both_score() -> None:
    events = [
        start(seats=3),
        play(1, 0, "AS"),
        play(5, 1, "2S"),
        play(5, 2, "2S"),
        play(5, 0, "2S"),
        play(8, 0, "3S"),
        count(9, 0, 0),
        call(10, 0),
    ]
    out = referee(events)
    assert verdicts(out) == ["0:AS:accepted", "1:2S:tie", "2:2S:tie", "0:2S:tie", "0:3S:accepted"]
    (end,) = round_ends(out)
    assert end.foundation == {0: 3, 1: 1, 2: 1}


def test_a_late_ace_on_a_taken_new_pile_place() -> None:
    out = referee([start(), play(1, 0, "AC", "F3"), play(2, 1, "AC", "F3")])
    assert verdicts(out) == ["0:AC:accepted", "1:AC:late"]


def test_same_frame_aces_on_different_piles_both_start_piles() -> None:
    out = referee([start(), play(1, 0, "AC", "F0"), play(1, 1, "AC", "F1")])
    assert verdicts(out) == ["0:AC:accepted", "1:AC:accepted"]


def test_king_completes_pile_once_and_its_place_takes_a_new_pile() -> None:
    events = [start()] + [play(i + 1, i % 2, r + "D") for i, r in enumerate(RANKS)]
    events += [play(14, 1, "KD"), play(20, 0, "2D"), play(21, 1, "AD"), play(22, 0, "2D")]
    out = referee(events)
    completes = [e for e in out if isinstance(e, PileComplete)]
    assert [(c.frame, c.pile, str(c.suit)) for c in completes] == [(13, "F0", "D")]
    assert verdicts(out)[-4:] == [
        "1:KD:late",
        "0:2D:illegal:not_an_ace",
        "1:AD:accepted",
        "0:2D:accepted",
    ]


def test_king_tie_completes_once() -> None:
    events = [start()] + [play(i + 1, 0, r + "D") for i, r in enumerate(RANKS[:12])]
    events += [play(20, 0, "KD"), play(20, 1, "KD")]
    out = referee(events)
    assert sum(isinstance(e, PileComplete) for e in out) == 1
    assert verdicts(out)[-2:] == ["0:KD:tie", "1:KD:tie"]


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


def test_an_unknown_type_out_of_frame_order_is_named() -> None:
    diagnostic = OtherEvent(3, 0.1, type="diag_note")
    with pytest.raises(EventError, match=r"^diag_note at frame 3 comes after frame 5"):
        referee([start(), play(5, 0, "AH"), diagnostic])


def test_a_deal_sharing_its_frame_with_plays_comes_before_them() -> None:
    """The plays of the frame a round is dealt in belong to the new round, however listed."""
    events = [start(), play(1, 0, "AS", "p1"), start(2, round_number=2), play(2, 1, "AH", "p1")]
    swapped = [*events[:2], events[3], events[2]]
    for log in (events, swapped):
        out = referee(log)
        assert verdicts(out) == ["0:AS:accepted", "1:AH:accepted"]
        assert [e.frame for e in round_ends(out)] == [1]


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
    """A call listed after the stuck in its frame is judged first, and the end counts it: it
    is written before the end, as a reader going line by line must see it."""
    events = [start(), play(3, 0, "AH"), count(4, 0, 0), stuck(5), stuck(9), call(9, 0)]
    out = referee(events, caller_bonus=10)
    assert [e.TYPE for e in out[-3:]] == ["stuck", "nerts_call", "round_end"]
    (end,) = round_ends(out)
    assert end.frame == 9 and end.bonus == {0: 10, 1: 0}


def test_a_round_no_one_called_reads_back_as_it_was_written() -> None:
    (end,) = round_ends(referee([start(), stuck(5), stuck(9)], caller_bonus=10))
    assert end.bonus == {} and event_from_dict(end.to_dict()) == end


def test_a_long_pause_is_held_without_being_sorted_again_each_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A live log's idle minutes hold a tick a frame until the round goes on: each must cost
    once (sorted again every frame, 20,000 ticks took 15 s: benchmarks/bench_referee.py)."""
    sorted_lengths: list[int] = []
    by_frame = game_module._by_frame

    def counted(events: list[Event]) -> list[Event]:
        sorted_lengths.append(len(events))
        return by_frame(events)

    monkeypatch.setattr(game_module, "_by_frame", counted)
    game, deal = GameReferee(), start()
    game.feed(deal)
    ticks = [OtherEvent(frame, frame / 30, type="tick") for frame in range(1, 2001)]
    fed = [game.feed(tick) for tick in ticks]
    assert fed[0] == [deal] and fed[1:] == [[]] * 1999  # held: nothing counted since the deal
    out = game.feed(play(2001, 0, "AS")) + game.finish()
    assert out[:-1] == ticks and verdicts(out) == ["0:AS:accepted"]
    assert sum(sorted_lengths) < 10


def test_nerts_count_progress_resets_stuck() -> None:
    out = referee([start(), stuck(10), count(15, 1, 12), stuck(20)])
    assert round_ends(out) == []


def test_a_card_whose_place_the_pile_has_grown_over_is_late_not_the_wrong_rank() -> None:
    """The 5H that lost the race to a 5H and a 6H played on it since lost a race all the
    same: late (red, taken back), not an illegal wrong rank; a card no card of its rank and
    suit came before is still illegal."""
    events = [
        start(seats=3),
        play(1, 0, "AH"),
        play(2, 0, "2H"),
        play(3, 1, "3H"),
        play(4, 0, "4H"),
        play(11, 1, "5H"),
        play(12, 0, "6H"),
        play(13, 2, "5H"),
        play(14, 2, "AH"),
        play(15, 2, "8H"),
        take_back(16, 2, "5H"),
        play(17, 1, "7H"),
    ]
    out = referee(events)
    assert verdicts(out)[-5:] == [
        "0:6H:accepted",
        "2:5H:late",
        "2:AH:late",
        "2:8H:illegal:wrong_rank",
        "1:7H:accepted",
    ]


def test_a_call_after_the_rounds_end_is_not_valid_even_with_an_empty_pile() -> None:
    """Valid only while there is a round to end: the box then leaves the scores showing."""
    out = referee([start(), count(1, 0, 0), call(2, 0), play(40, 1, "AS"), call(41, 0)])
    calls = [(e.frame, e.valid) for e in out if isinstance(e, NertsCall)]
    assert calls == [(2, True), (41, False)]
    assert [e.frame for e in round_ends(out)] == [2]  # the last frame seen in the grace
    assert verdicts(out) == ["1:AS:late"]


def test_handicap_pile_size() -> None:
    handicap = RoundStart(0, 0.0, 1, (SeatInfo(0, "red"), SeatInfo(1, "blue", nerts_pile=8)), 13)
    out = referee([handicap, call(1, 1), count(2, 1, 0), call(3, 1)])
    assert [e.valid for e in out if isinstance(e, NertsCall)] == [False, True]
    assert round_ends(out)[0].nerts_left == {0: 13, 1: 0}
    game = GameReferee()
    out = game.referee_all([handicap, count(1, 1, 9), count(2, 1, 0), call(3, 1)])
    assert [(e.event.frame, e.why) for e in game.pop_impossible_events()] == [
        (1, "seat 1 has 9 cards left of a 8-card Nerts pile")
    ]
    assert [e.frame for e in out if isinstance(e, NertsCount)] == [2]
    assert round_ends(out)[0].nerts_left == {0: 13, 1: 0}


def test_an_event_of_a_seat_not_at_the_table_is_ignored_and_told() -> None:
    """A camera's misread must not end the game's refereeing: the event is left out, the rest
    judged as if it had not come."""
    game = GameReferee()
    events = [start(), play(1, 5, "AH"), take_back(2, 5, "AH"), count(3, 5, 0), call(4, 5)]
    out = game.referee_all([*events, play(5, 0, "AS"), count(6, 0, 0), call(7, 0)])
    why = "seat 5 is not at the table (round 1 has seats 0, 1)"
    assert [(e.event, e.why) for e in game.pop_impossible_events()] == [
        (event, why) for event in events[1:]
    ]
    assert game.pop_impossible_events() == []
    assert verdicts(out) == ["0:AS:accepted"]
    assert not any(getattr(e, "seat", 0) == 5 for e in out)
    assert round_ends(out)[0].frame == 7


def test_events_out_of_frame_order_are_an_input_error() -> None:
    with pytest.raises(EventError, match="frame 3 comes after frame 9"):
        referee([start(), play(9, 0, "AH"), play(3, 1, "AS")])
    # Derived events (made afresh, so dropped) keep their place in the order all the same.
    complete = PileComplete(9, 0.9, "F0", Suit.HEARTS)
    with pytest.raises(EventError, match="pile_complete at frame 3 comes after frame 5"):
        referee([start(), play(5, 0, "AH"), replace(complete, frame=3)])
    with pytest.raises(EventError, match="play at frame 5 comes after frame 9"):
        referee([start(), play(5, 0, "AH"), complete, play(5, 1, "AS")])


def test_time_running_back_or_two_times_in_a_frame_are_input_errors() -> None:
    with pytest.raises(EventError, match=re.escape("frame 9 has t 0.1, before frame 5's 0.5")):
        referee([start(), replace(play(5, 0, "AH"), t=0.5), replace(play(9, 1, "AS"), t=0.1)])
    with pytest.raises(
        EventError, match=re.escape("frame 5 has t 0.6, another event of that frame 0.5")
    ):
        referee([start(), replace(play(5, 0, "AH"), t=0.5), replace(play(5, 1, "AS"), t=0.6)])


def test_a_seats_staying_card_played_again_is_ignored_and_told() -> None:
    """A deck holds each card once: a camera's misread, not a play. The card down stands and
    refereeing goes on (no verdict, no score), the play given back once for a tool to warn of."""
    game = GameReferee()
    again, same_frame = play(4, 0, "AH", "F1"), play(1, 0, "AH")
    out = game.referee_all(
        [start(), play(1, 0, "AH"), same_frame, play(2, 0, "2H"), again, play(5, 1, "AH", "F1")]
    )
    assert verdicts(out) == ["0:AH:accepted", "0:2H:accepted", "1:AH:accepted"]
    assert game.pop_repeated_plays() == [RepeatedPlay(same_frame, "F0"), RepeatedPlay(again, "F0")]
    assert game.pop_repeated_plays() == []
    (end,) = round_ends(game.referee_all([start(9, round_number=2)]))
    assert end.foundation == {0: 2, 1: 1}
    # A joker may stand for it; a card taken back, or one that never stayed, may come again.
    undone = [take_back(2, 0, "AH"), play(3, 0, "AH", "F2")]
    joker = replace(play(4, 0, "AH", "F1"), joker=True)
    out = referee([start(), play(1, 0, "AH"), *undone, joker, play(5, 0, "3S"), play(6, 0, "3S")])
    assert verdicts(out) == [
        "0:AH:accepted",
        "0:AH:accepted",
        "0:AH:accepted",
        "0:3S:illegal:not_an_ace",
        "0:3S:illegal:not_an_ace",
    ]


@pytest.mark.parametrize("ended_by", ["next deal", "Nerts call"])
def test_an_ignored_play_leaves_the_rounds_end_where_its_output_fed_back_puts_it(
    ended_by: str,
) -> None:
    """The repeated play is left out of the output: it must not set the frame the round ends
    in, or feeding the output back would end the round elsewhere."""
    if ended_by == "Nerts call":  # the repeated play within the call's grace
        events = [start(), play(1, 0, "AH"), count(1, 0, 0), call(2, 0), play(3, 0, "AH", "F1")]
    else:
        events = [start(), play(30, 0, "AH"), play(40, 0, "AH", "F1"), start(90, 2, 2)]
    once = referee(events)
    assert referee(once) == once
    assert round_ends(once)[0].frame == (2 if ended_by == "Nerts call" else 30)


def test_a_frames_plays_are_judged_from_the_lowest_rank_whatever_their_order() -> None:
    out = referee([start(), play(1, 0, "AH"), play(2, 0, "3H"), play(2, 0, "2H"), play(2, 1, "2H")])
    assert verdicts(out) == ["0:AH:accepted", "0:3H:accepted", "0:2H:tie", "1:2H:tie"]
    # A card taken back in the frame of a race is taken back after it: the late card stays late.
    race = [play(2, 0, "2H"), take_back(2, 0, "2H"), play(2, 1, "AH")]
    out = referee([start(), play(1, 0, "AH"), *race, play(3, 1, "2H")])
    assert verdicts(out) == ["0:AH:accepted", "0:2H:accepted", "1:AH:late", "1:2H:accepted"]


def test_two_aces_wanting_one_new_pile_in_a_frame_go_by_suit() -> None:
    expected = ["0:AH:illegal:wrong_suit", "1:AS:accepted"]
    assert verdicts(referee([start(), play(1, 0, "AH"), play(1, 1, "AS")])) == expected
    assert verdicts(referee([start(), play(1, 1, "AS"), play(1, 0, "AH")])) == expected[::-1]


def test_play_before_round_start_is_an_input_error() -> None:
    with pytest.raises(EventError, match="before any round_start"):
        referee([play(1, 0, "AH")])


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


@pytest.mark.parametrize(
    "options",
    [
        {"target_score": float("nan")},
        {"target_score": "100"},
        {"caller_bonus": True},
        {"nerts_pile_size": 2.5},
        {"in_air_grace_s": "0.5"},
    ],
)
def test_rule_options_of_the_wrong_kind_are_input_errors(options: dict[str, object]) -> None:
    with pytest.raises(RefereeInputError, match="must be a"):
        RuleOptions(**options)  # type: ignore[arg-type]


def test_a_seats_two_counts_in_one_frame_end_at_the_smaller() -> None:
    """The camera saw the pile at 1 and at 0 in one frame: it emptied, so the call is valid."""
    out = referee([start(), count(5, 0, 0), count(5, 0, 1), call(6, 0)])
    assert [e.valid for e in out if isinstance(e, NertsCall)] == [True]


def test_a_count_that_does_not_go_down_is_no_progress_between_stucks() -> None:
    out = referee([start(), count(1, 0, 5), stuck(2), count(3, 0, 5), stuck(4)])
    assert [end.frame for end in round_ends(out)] == [4]


def test_two_deals_in_one_frame_are_an_input_error() -> None:
    """Which came first would decide which round is which: no camera sees two deals at once."""
    with pytest.raises(EventError, match=r"^round_start at frame 5: a second deal in one frame"):
        referee([start(), play(1, 0, "AS"), start(5, round_number=2), start(5, round_number=3)])


def test_seats_in_play_follow_the_deal_of_the_frame_being_read() -> None:
    referee_ = GameReferee()
    assert referee_.seats_in_play() == ()
    referee_.feed(start(seats=3))  # not judged yet: its frame may hold more events
    assert referee_.seats_in_play() == (0, 1, 2)
    referee_.feed(play(1, 0, "AS"))
    assert referee_.seats_in_play() == (0, 1, 2)
    referee_.feed(start(frame=2, seats=2, round_number=2))
    assert referee_.seats_in_play() == (0, 1)


def test_a_frame_that_cannot_be_judged_leaves_what_came_before_it_to_finish() -> None:
    """Two deals in one frame: told, and the log's end then decides the round called before it
    and what the referee held, as it would had the log ended there."""
    game = GameReferee()
    tick = OtherEvent(3, 0.1, type="tick")
    for event in [start(), count(1, 0, 0), call(2, 0), tick, start(10), start(10, round_number=2)]:
        game.feed(event)
    with pytest.raises(EventError, match="a second deal in one frame"):
        game.feed(play(11, 0, "AS"))
    out = game.finish()
    assert [type(e).__name__ for e in out] == ["RoundEnd", "OtherEvent"]
    assert round_ends(out)[0].caller == 0 and out[1] is tick


def test_a_count_of_the_whole_pile_is_possible_and_one_more_is_not() -> None:
    game = GameReferee()
    out = game.referee_all([start(pile=8), count(1, 0, 8), count(2, 1, 9)])
    assert [e.frame for e in out if isinstance(e, NertsCount)] == [1]
    assert [e.event.frame for e in game.pop_impossible_events()] == [2]


def test_a_frame_of_impossible_events_alone_moves_no_round_end() -> None:
    """As a frame of ticks: the round ends at the frame of its last event that counts."""
    out = referee([start(), count(1, 0, 0), call(2, 0), play(3, 7, "AS")])
    assert round_ends(out)[0].frame == 2


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


def test_a_card_played_again_from_a_set_aside_complete_pile_is_a_repeated_play() -> None:
    """F0's complete hearts were set aside for seat 1's AS: seat 0's 5H lies there still, so
    its 5H played again is a misread, told with the pile it lies on."""
    game = GameReferee()
    hearts = [play(i + 1, 0, rank + "H") for i, rank in enumerate(RANKS)]
    again = play(21, 0, "5H", "F1")
    out = game.referee_all([start(), *hearts, play(20, 1, "AS"), again, stuck(22), stuck(23)])
    assert verdicts(out)[-1] == "1:AS:accepted"
    assert game.pop_repeated_plays() == [RepeatedPlay(again, "F0")]
    assert round_ends(out)[0].foundation == {0: 13, 1: 1}


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


def test_a_rounds_misreads_not_yet_told_are_told_after_the_next_deal() -> None:
    """A take-back of nothing and a seat not at the table in round 1, not popped before
    round 2 is dealt and judged: still handed over, once."""
    game = GameReferee()
    stray, ghost = take_back(5, 0, "9C"), play(6, 7, "AS")
    game.referee_all([start(), stray, ghost, start(10, round_number=2), play(11, 0, "AS")])
    assert game.pop_unmatched_take_backs() == [stray]
    assert [e.event for e in game.pop_impossible_events()] == [ghost]
    assert game.pop_unmatched_take_backs() == [] and game.pop_impossible_events() == []
