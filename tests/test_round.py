from __future__ import annotations

import re
from dataclasses import replace

import pytest

from referee import game as game_module
from referee.cards import Suit
from referee.errors import EventError, RefereeInputError
from referee.events import (
    Event,
    NertsCall,
    NertsCount,
    OtherEvent,
    PileComplete,
    RoundStart,
    SeatInfo,
)
from referee.game import GameReferee
from referee.options import RuleOptions
from referee.round import RepeatedPlay
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


@pytest.mark.parametrize("seats", [(0, 1), (1, 0)])
def test_king_tie_completes_once_after_both_kings(seats: tuple[int, int]) -> None:
    """In the log's order, whichever seat's King is listed (and judged) first."""
    events = [start()] + [play(i + 1, 0, r + "D") for i, r in enumerate(RANKS[:12])]
    events += [play(20, seat, "KD") for seat in seats]
    out = referee(events)
    assert [e.TYPE for e in out[-3:]] == ["play", "play", "pile_complete"]
    assert sum(isinstance(e, PileComplete) for e in out) == 1
    assert verdicts(out)[-2:] == [f"{seats[0]}:KD:tie", f"{seats[1]}:KD:tie"]


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


def test_a_frame_of_impossible_events_alone_moves_no_round_end() -> None:
    """As a frame of ticks: the round ends at the frame of its last event that counts."""
    out = referee([start(), count(1, 0, 0), call(2, 0), play(3, 7, "AS")])
    assert round_ends(out)[0].frame == 2


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


def test_a_rounds_misreads_not_yet_told_are_told_after_the_next_deal() -> None:
    """A take-back of nothing and a seat not at the table in round 1, not popped before
    round 2 is dealt and judged: still handed over, once."""
    game = GameReferee()
    stray, ghost = take_back(5, 0, "9C"), play(6, 7, "AS")
    game.referee_all([start(), stray, ghost, start(10, round_number=2), play(11, 0, "AS")])
    assert game.pop_unmatched_take_backs() == [stray]
    assert [e.event for e in game.pop_impossible_events()] == [ghost]
    assert game.pop_unmatched_take_backs() == [] and game.pop_impossible_events() == []
