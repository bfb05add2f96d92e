"""Properties over random logs: the rules' invariants hold whatever the table does."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace
from itertools import groupby, pairwise
from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.events import Event, OtherEvent, Play, RoundEnd, RoundStart
from tests.helpers import FPS, call, count, play, referee, round_ends, start

SEATS = 3
RANKS = ["A", "2", "3", "4", "5"]


@st.composite
def random_logs(draw: st.DrawFn) -> list[Event]:
    """A round of random plays (legal or not), Nerts counts and calls, in frame order. A deck
    holds each card once: a seat's card played again is a joker standing for it."""
    events: list[Event] = [start(seats=SEATS)]
    played: set[tuple[int, str]] = set()
    frame = 1
    steps = draw(st.integers(0, 40))
    # Sometimes a second round is dealt, perhaps in a frame with other events.
    second_deal = draw(st.one_of(st.none(), st.integers(0, steps)))
    for step in range(steps):
        frame += draw(st.integers(0, 2))
        if step == second_deal:
            events.append(start(frame, seats=SEATS, round_number=2))
            # The deal is down before its frame's plays, wherever the log lists them.
            played = {
                (e.seat, str(e.card)) for e in events if isinstance(e, Play) and e.frame == frame
            }
        seat = draw(st.integers(0, SEATS - 1))
        kind = draw(st.sampled_from(["play", "play", "play", "count", "call"]))
        if kind == "play":
            card = draw(st.sampled_from(RANKS)) + draw(st.sampled_from("SH"))
            once = play(frame, seat, card, draw(st.sampled_from(["F0", "F1", "F2"])))
            events.append(replace(once, joker=(seat, card) in played))
            played.add((seat, card))
        elif kind == "count":
            events.append(count(frame, seat, draw(st.integers(0, 13))))
        else:
            events.append(call(frame, seat))
    return events


@given(random_logs())
@settings(max_examples=300, deadline=None)
def test_score_identity_and_foundation_counts(events: list[Event]) -> None:
    out = referee(events, in_air_grace_s=0.0)
    staying: dict[int, int] = defaultdict(int)
    for event in out:
        if isinstance(event, RoundStart):
            staying.clear()
        if isinstance(event, Play) and event.verdict is not None and event.verdict.stays:
            staying[event.seat] += 1
        if isinstance(event, RoundEnd):
            for seat in range(SEATS):
                assert event.scores[seat] == event.foundation[seat] - 2 * event.nerts_left[seat]
                assert event.foundation[seat] == staying[seat]


@given(random_logs())
@settings(max_examples=300, deadline=None)
def test_staying_cards_form_foundations(events: list[Event]) -> None:
    piles: dict[tuple[int, str], list[Play]] = defaultdict(list)
    deal = 0
    for event in referee(events):  # a round_start comes out before the events of its frame
        deal += isinstance(event, RoundStart)
        if isinstance(event, Play) and event.verdict is not None and event.verdict.stays:
            piles[deal, event.pile].append(event)
    for landed in piles.values():
        # In the order they landed: by frame, and within one by rank (a log's order says nothing).
        cards = sorted(landed, key=lambda play: (play.frame, play.card.rank))
        assert cards[0].card.rank == 1
        for below, above in pairwise(cards):
            assert above.card.suit == below.card.suit
            if above.card.rank == below.card.rank:  # only a same-frame tie shares a place
                assert above.frame == below.frame
            else:
                assert above.card.rank == below.card.rank + 1


@given(random_logs())
@settings(max_examples=200, deadline=None)
def test_same_log_same_events_and_own_output_is_a_fixed_point(events: list[Event]) -> None:
    first = referee(events)
    assert referee(events) == first
    assert referee(first) == first


def with_ticks(events: list[Event], rng: Random) -> list[Event]:
    """`events` with a live log's tick (a type the referee does not know) in random frames
    among theirs and after them, each after the frame's own events."""
    ticked: list[Event] = []
    last = events[-1].frame
    by_frame = {frame: list(batch) for frame, batch in groupby(events, key=lambda e: e.frame)}
    for frame in range(last + 40):  # past the grace of a call in the last frame
        ticked += by_frame.get(frame, [])
        if rng.random() < 0.5:
            ticked.append(OtherEvent(frame, frame / FPS, type="tick"))
    return ticked


@given(random_logs(), st.randoms())
@settings(max_examples=200, deadline=None)
def test_ticks_change_no_verdict_nor_end_and_come_out_in_frame_order(
    events: list[Event], rng: Random
) -> None:
    """A live log's writer sends a line every frame: the ends of rounds keep the frame of their
    last event that counts, and the ticks come out after them (they had come before)."""
    out = referee(with_ticks(events, rng))
    assert [event.frame for event in out] == sorted(event.frame for event in out)
    assert [event for event in out if not isinstance(event, OtherEvent)] == referee(events)
    assert referee(out) == out


@given(random_logs(), st.randoms())
@settings(max_examples=200, deadline=None)
def test_the_order_of_a_frames_events_says_nothing(events: list[Event], rng: Random) -> None:
    """The camera sees a frame's events at once: shuffled within their frames, the same events
    get the same verdicts and the round the same end."""
    shuffled = events[:1]
    for _, same_frame in groupby(events[1:], key=lambda event: event.frame):
        batch = list(same_frame)
        rng.shuffle(batch)
        shuffled += batch
    assert Counter(map(str, referee(shuffled))) == Counter(map(str, referee(events)))


@given(st.permutations(list(range(SEATS))), st.lists(st.integers(1, 3), min_size=13, max_size=13))
def test_a_legal_suit_sequence_is_all_accepted(owners: list[int], gaps: list[int]) -> None:
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    frames = [sum(gaps[: i + 1]) for i in range(13)]
    events: list[Event] = [start(seats=SEATS)]
    events += [
        play(f, owners[i % SEATS], r + "C")
        for i, (f, r) in enumerate(zip(frames, ranks, strict=True))
    ]
    events += [count(frames[-1] + 1, 0, 0), call(frames[-1] + 2, 0)]
    out = referee(events)
    assert [e.verdict.value for e in out if isinstance(e, Play) and e.verdict] == ["accepted"] * 13
    (end,) = round_ends(out)
    assert sum(end.foundation.values()) == 13
