"""Take-backs and jokers: a card leaving a foundation undoes what it should and no more, and a
joker stands for its card without taking the real card's place."""

from __future__ import annotations

from dataclasses import replace

from referee.cards import Card, Rank, Suit
from referee.events import (
    Event,
    Play,
)
from referee.foundations import FoundationPile, Placed
from referee.game import GameReferee
from referee.round import RepeatedPlay
from tests.helpers import (
    FPS,
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


def test_take_back_of_a_staying_card_undoes_it() -> None:
    events = [
        start(),
        play(1, 0, "AS"),
        play(2, 1, "2S"),
        take_back(3, 1, "2S"),
        play(4, 0, "2S"),
        count(5, 0, 0),
        call(6, 0),
    ]
    out = referee(events)
    assert verdicts(out)[-1] == "0:2S:accepted"
    assert round_ends(out)[0].foundation == {0: 2, 1: 0}


def test_late_card_take_back_does_not_touch_the_pile() -> None:
    events = [
        start(),
        play(1, 0, "AS"),
        play(2, 1, "AS"),
        take_back(3, 1, "AS"),
        play(4, 1, "2S"),
        count(5, 0, 0),
        call(6, 0),
    ]
    out = referee(events)
    assert verdicts(out) == ["0:AS:accepted", "1:AS:late", "1:2S:accepted"]
    assert round_ends(out)[0].foundation == {0: 1, 1: 1}


def test_a_joker_taken_back_leaves_the_real_card_where_it_lies() -> None:
    joker = replace(play(2, 0, "AH", "F1"), joker=True)
    game = GameReferee()
    again = play(4, 0, "AH", "F2")
    game.referee_all([start(), play(1, 0, "AH"), joker, take_back(3, 0, "AH", "F1"), again])
    assert game.pop_repeated_plays() == [RepeatedPlay(again, "F0")]


def test_a_take_back_leaves_the_card_below_on_top_with_its_own_frame() -> None:
    pile = FoundationPile("F0", Suit.HEARTS, Rank.ACE, 1)
    pile.place(0, Card.parse("AH"), 1)
    pile.place(1, Card.parse("2H"), 2)
    pile.place(0, Card.parse("2H"), 2)
    assert pile.remove(0, Card.parse("2H")) and (pile.top, pile.top_frame) == (Rank.TWO, 2)
    assert pile.remove(1, Card.parse("2H")) and (pile.top, pile.top_frame) == (Rank.ACE, 1)
    assert pile.remove(1, Card.parse("2H")) is None


def test_take_backs_that_take_back_nothing_are_told_once_also_across_a_new_round() -> None:
    game = GameReferee()
    stray = take_back(20, 1, "9C")  # never played
    undone = take_back(40, 0, "AH")  # played and taken back: a normal undo
    gone = take_back(41, 0, "AH")  # the same card again: nothing left to take
    for event in (start(0), play(10, 0, "AH"), stray, undone, gone):
        game.feed(event)
    assert game.pop_unmatched_take_backs() == [stray]  # frame 41 is not decided yet
    game.feed(start(60, round_number=2))  # decides frame 41 and ends round 1
    assert game.pop_unmatched_take_backs() == [gone]
    assert game.pop_unmatched_take_backs() == []


def test_a_card_played_after_the_round_ended_is_taken_back_as_a_late_card_is() -> None:
    """The contract asks that a late card be taken back: doing so is no stray take-back."""
    game = GameReferee()
    events = [start(), count(1, 0, 0), call(2, 0), play(60, 1, "AH"), take_back(63, 1, "AH")]
    for event in [*events, start(90, round_number=2)]:
        game.feed(event)
    assert game.pop_unmatched_take_backs() == []


def hearts_ace_to_five() -> list[Event]:
    """A two-seat deal, then seat 0's AH to 5H on F0, one a frame (frames 1 to 5)."""
    return [start(), *(play(i, 0, f"{rank}H") for i, rank in enumerate("A2345", 1))]


def test_a_card_taken_back_and_put_down_again_in_one_frame_stays() -> None:
    """The take-back undoes the illegal play awaited, not the card put down again with it."""
    events = hearts_ace_to_five()
    events += [play(6, 0, "7H"), play(8, 1, "6H"), take_back(8, 0, "7H"), play(8, 0, "7H")]
    out = referee([*events, stuck(9), stuck(10)])
    assert verdicts(out)[-3:] == ["0:7H:illegal:wrong_rank", "1:6H:accepted", "0:7H:accepted"]
    assert round_ends(out)[0].foundation == {0: 6, 1: 1}


def test_a_card_played_again_was_taken_back_though_the_log_missed_it() -> None:
    """Seat 0's 7H was illegal on F0 and its take-back never logged; seat 0 then plays it on
    its 6H, and takes it back: that take-back undoes this play, not the forgotten one."""
    events = hearts_ace_to_five()
    events += [play(6, 0, "7H"), play(8, 1, "6H"), play(9, 0, "7H"), take_back(12, 0, "7H")]
    game = GameReferee()
    out = game.referee_all([*events, stuck(14), stuck(15)])
    assert verdicts(out)[-2:] == ["1:6H:accepted", "0:7H:accepted"]
    assert round_ends(out)[0].foundation == {0: 5, 1: 1}
    assert game.pop_unmatched_take_backs() == []


def test_a_jokers_take_back_awaited_stays_when_the_card_it_stood_for_is_played() -> None:
    """The joker standing for 7H was illegal on F0; the real 7H later stays there: the take-back
    that follows is the joker's, and the real 7H still counts."""
    events = hearts_ace_to_five()
    joker = Play(6, 6 / FPS, 0, Card.parse("7H"), "F0", joker=True)
    events += [joker, play(7, 0, "6H"), play(8, 0, "7H"), take_back(9, 0, "7H")]
    game = GameReferee()
    out = game.referee_all([*events, stuck(14), stuck(15)])
    assert verdicts(out)[-3:] == ["0:7H:illegal:wrong_rank", "0:6H:accepted", "0:7H:accepted"]
    assert round_ends(out)[0].foundation == {0: 7, 1: 0}
    assert game.pop_unmatched_take_backs() == []


def test_a_card_put_down_wrong_again_as_its_take_back_is_seen_awaits_one_more() -> None:
    """7H illegal on F0; a frame shows it taken back and put down there again, still illegal;
    its next take-back is the one that play awaits, not a stray one."""
    events = hearts_ace_to_five()
    events += [play(6, 0, "7H"), take_back(8, 0, "7H"), play(8, 0, "7H"), take_back(10, 0, "7H")]
    game = GameReferee()
    out = game.referee_all([*events, stuck(14), stuck(15)])
    assert verdicts(out)[-2:] == ["0:7H:illegal:wrong_rank", "0:7H:illegal:wrong_rank"]
    assert round_ends(out)[0].foundation == {0: 5, 1: 0}
    assert game.pop_unmatched_take_backs() == []


def test_a_joker_awaited_in_the_frame_a_card_is_played_again_is_counted_once() -> None:
    """7H illegal on F0, its take-back missed; a frame later the real 7H is illegal on F1 and
    a joker for 7H illegal on F0; both come back; the real 7H then stays on F0 over its 6H,
    and is taken back: seat 0 keeps AH to 6H."""
    events = hearts_ace_to_five()
    joker = Play(8, 8 / FPS, 0, Card.parse("7H"), "F0", joker=True)
    events += [play(6, 0, "7H"), play(8, 0, "7H", "F1"), joker]
    events += [take_back(9, 0, "7H", "F1"), take_back(9, 0, "7H", "F0")]
    events += [play(10, 0, "6H"), play(11, 0, "7H"), take_back(12, 0, "7H")]
    game = GameReferee()
    out = game.referee_all([*events, stuck(14), stuck(15)])
    assert round_ends(out)[0].foundation == {0: 6, 1: 0}
    assert game.pop_unmatched_take_backs() == []


def test_a_take_back_by_another_seat_leaves_the_card() -> None:
    """Only the seat that played a staying card can take it back: seat 1 taking back the AH
    seat 0 played is a misread, ignored and told, and seat 0's AH still counts."""
    game = GameReferee()
    stray = take_back(2, 1, "AH")
    out = game.referee_all([start(), play(1, 0, "AH"), stray, play(3, 0, "2H"), stuck(4), stuck(5)])
    assert verdicts(out) == ["0:AH:accepted", "0:2H:accepted"]
    assert round_ends(out)[0].foundation == {0: 2, 1: 0}
    assert game.pop_unmatched_take_backs() == [stray]


def test_a_take_back_of_a_card_buried_under_the_top_leaves_it() -> None:
    """A card with a card played on it cannot come back first: the take-back of the AH under
    the 2H is ignored and told, and both cards still count."""
    game = GameReferee()
    buried = take_back(3, 0, "AH")
    out = game.referee_all(
        [start(), play(1, 0, "AH"), play(2, 0, "2H"), buried, stuck(4), stuck(5)]
    )
    assert round_ends(out)[0].foundation == {0: 2, 1: 0}
    assert game.pop_unmatched_take_backs() == [buried]


def test_a_take_back_takes_the_seats_card_placed_last() -> None:
    """A seat's real 2H and its joker for 2H tied in one frame: the take-back takes the one
    on top, the joker, and the real 2H stays."""
    pile = FoundationPile("F0", Suit.HEARTS, Rank.ACE, 1)
    pile.place(0, Card.parse("AH"), 1)
    pile.place(0, Card.parse("2H"), 2)
    pile.place(0, Card.parse("2H"), 2, joker=True)
    assert pile.remove(0, Card.parse("2H")) == Placed(0, Card.parse("2H"), 2, True)
    assert pile.cards == [Placed(0, Card.parse("AH"), 1), Placed(0, Card.parse("2H"), 2)]


def test_a_joker_standing_for_a_card_leaves_the_real_card_free_to_play() -> None:
    """A joker stood for the AH; the real AH is another card, and starts a pile of its own."""
    joker = replace(play(1, 0, "AH", "F0"), joker=True)
    game = GameReferee()
    out = game.referee_all([start(), joker, play(2, 0, "AH", "F1"), stuck(3), stuck(4)])
    assert verdicts(out) == ["0:AH:accepted", "0:AH:accepted"]
    assert round_ends(out)[0].foundation == {0: 2, 1: 0}
    assert game.pop_repeated_plays() == []


def test_a_jokers_take_back_leaves_no_await_for_a_later_real_card() -> None:
    """The joker for 7H, illegal on F0, was taken back; then the real 7H is illegal on F0 and
    its take-back missed; it is played again and stays on F0 over the 6H: the take-back that
    follows undoes that 7H (no joker's await is left to swallow it)."""
    events = hearts_ace_to_five()
    joker = Play(6, 6 / FPS, 0, Card.parse("7H"), "F0", joker=True)
    events += [joker, take_back(7, 0, "7H"), play(8, 0, "7H"), play(9, 0, "6H")]
    events += [play(10, 0, "7H"), take_back(11, 0, "7H")]
    game = GameReferee()
    out = game.referee_all([*events, stuck(14), stuck(15)])
    assert verdicts(out)[-4:] == [
        "0:7H:illegal:wrong_rank",
        "0:7H:illegal:wrong_rank",
        "0:6H:accepted",
        "0:7H:accepted",
    ]
    assert round_ends(out)[0].foundation == {0: 6, 1: 0}
    assert game.pop_unmatched_take_backs() == []
