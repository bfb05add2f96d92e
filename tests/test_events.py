from __future__ import annotations

from typing import Any

import pytest

from referee.errors import EventError
from referee.event_parsing import event_from_dict, set_aside_keys
from referee.events import OtherEvent, Play, RoundEnd, RoundEndCause, RoundStart, Verdict
from referee.game import GameReferee

PLAY = {"frame": 3, "t": 0.1, "type": "play", "seat": 1, "card": "10H", "pile": "F0"}


def test_play_round_trip() -> None:
    event = event_from_dict({**PLAY, "verdict": "late"})
    assert isinstance(event, Play) and event.verdict is Verdict.LATE
    assert event.to_dict() == {**PLAY, "verdict": "late"}


def test_unknown_type_is_kept_unchanged() -> None:
    data = {"frame": 1, "t": 0.5, "type": "diagnostic", "score": 0.9}
    event = event_from_dict(data)
    assert isinstance(event, OtherEvent)
    assert event.to_dict() == data


def test_unknown_keys_are_kept_and_written_back_but_never_judged() -> None:
    """A tool's diagnostics (the contract lets tools add keys) survive refereeing."""
    noted = event_from_dict({**PLAY, "debug": [1, 2], "track": 7})
    assert noted == event_from_dict(PLAY)
    assert noted.to_dict() == {**PLAY, "debug": [1, 2], "track": 7}
    deal = {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "nerts_pile": 13}
    seats = [{"seat": 0, "back": "red", "player": "Anna"}, {"seat": 1, "back": "blue"}]
    deal |= {"seats": seats, "camera": "c1"}
    ace = {**PLAY, "card": "AH", "track": 7, "verdict": "illegal", "type": "play"}
    out = GameReferee().referee_all([event_from_dict(deal), event_from_dict(ace)])
    assert [event.to_dict() for event in out] == [deal, {**ace, "verdict": "accepted"}]
    plain = {**deal, "seats": [{"seat": 0, "back": "red"}, seats[1]]}
    assert event_from_dict(deal) == event_from_dict(plain)  # a seat's own keys too are not judged


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"frame": -1}, "'frame' must be an integer >= 0"),
        ({"frame": True}, "'frame' must be an integer"),
        ({"frame": 3.0}, "'frame' must be an integer"),
        ({"t": "soon"}, "'t' must be a finite number"),
        ({"t": True}, "'t' must be a finite number"),
        ({"t": float("nan")}, "'t' must be a finite number"),
        ({"t": 10**400}, "'t' must be a finite number"),  # too large for a float
        ({"t": -0.5}, "'t' must be a finite number >= 0"),
        ({"card": "11H"}, "play: 'card': not a card: '11H'"),
        ({"seat": None}, "'seat' must be an integer from 0 to 999999999, got null"),
        # Seats key a round end's scores, where a seat is written in at most 9 digits.
        ({"seat": 10**9}, "'seat' must be an integer from 0 to 999999999, got 1000000000"),
        ({"frame": "1"}, "'frame' must be an integer >= 0, got \"1\""),
        ({"verdict": "maybe"}, "'verdict' must be one of"),
        ({"pile": ""}, "'pile' must be a non-empty string"),
        ({"type": 3}, "'type' must be an event type's name, got 3"),
        ({"type": ""}, "'type' must be an event type's name, got \"\""),
        ({"type": None}, "'type' must be an event type's name, got null"),
    ],
)
def test_bad_events_name_key_and_value(change: dict[str, Any], message: str) -> None:
    with pytest.raises(EventError, match=message.replace("(", r"\(")):
        event_from_dict({**PLAY, **change})


def test_a_missing_key_is_named_missing() -> None:
    without_seat = {key: value for key, value in PLAY.items() if key != "seat"}
    with pytest.raises(
        EventError, match=r"^play: 'seat' is missing; it must be an integer from 0 to 999999999$"
    ):
        event_from_dict(without_seat)


def test_an_event_without_a_type_is_told_so() -> None:
    untyped = {key: value for key, value in PLAY.items() if key != "type"}
    with pytest.raises(EventError, match=r"^event has no 'type': \{\"frame\": 3, "):
        event_from_dict(untyped)


def test_not_an_object() -> None:
    with pytest.raises(EventError, match="JSON object"):
        event_from_dict([1, 2])


def test_round_start_needs_distinct_seats() -> None:
    data = {
        "frame": 0,
        "t": 0,
        "type": "round_start",
        "round": 1,
        "nerts_pile": 13,
        "seats": [{"seat": 0, "back": "red"}, {"seat": 0, "back": "blue"}],
    }
    with pytest.raises(EventError, match="distinct seats"):
        event_from_dict(data)


def test_round_start_seats_need_a_back() -> None:
    data = {"frame": 0, "t": 0, "type": "round_start", "round": 1, "nerts_pile": 13}
    for back in [None, 7, ""]:
        seat = {"seat": 0} if back is None else {"seat": 0, "back": back}
        with pytest.raises(
            EventError, match=r"'back' (is missing; it )?must be a non-empty string"
        ):
            event_from_dict({**data, "seats": [seat]})


def test_seats_in_scores_are_written_one_way() -> None:
    end = {"frame": 9, "t": 1, "type": "round_end", "round": 1, "foundation": {"0": 1}}
    end |= {"nerts_left": {"0": 0}}
    assert event_from_dict({**end, "scores": {"0": 1}}).to_dict()["scores"] == {"0": 1}
    for seat in ["00", "\u0663", "+1", " 1", "1" * 5000]:  # int() refuses 4,301 digits itself
        with pytest.raises(EventError, match="'scores' must be an object of seat number"):
            event_from_dict({**end, "scores": {seat: 1}})


def test_how_a_round_ended_reads_back() -> None:
    end = {"frame": 9, "t": 1, "type": "round_end", "round": 1, "foundation": {"0": 1}}
    end |= {"nerts_left": {"0": 0}, "scores": {"0": 1}, "ended_by": "stuck", "caller": 0}
    event = event_from_dict({**end, "bonus": {"0": 10}})
    assert isinstance(event, RoundEnd) and (event.caller, event.bonus) == (0, {0: 10})
    assert event.ended_by is RoundEndCause.STUCK and set_aside_keys(event) == []
    assert event_from_dict(end).to_dict() == end


@pytest.mark.parametrize(
    ("change", "set_aside"),
    [
        ({"type": "round_end", "ended_by": "timeout"}, "ended_by"),
        ({"type": "round_end", "caller": "Anna"}, "caller"),
        ({"type": "round_end", "bonus": 10}, "bonus"),
        ({"joker": 1}, "joker"),
    ],
)
def test_an_extension_key_in_another_form_is_another_tools_key(
    change: dict[str, Any], set_aside: str
) -> None:
    """The contract has readers ignore keys they do not know: this project's own extensions
    (beyond the contract) written otherwise by another tool are kept as its keys, not refused."""
    end = {"round": 1, "foundation": {"0": 1}, "nerts_left": {"0": 0}, "scores": {"0": 1}}
    data = {**PLAY, **(end if change.get("type") == "round_end" else {}), **change}
    if change.get("type") == "round_end":
        del data["seat"], data["card"], data["pile"]
    event = event_from_dict(data)
    assert set_aside_keys(event) == [set_aside] and event.to_dict() == data
    assert event == event_from_dict({key: v for key, v in data.items() if key != set_aside})


def test_a_seats_pile_size_in_another_form_is_another_tools_key() -> None:
    seats = [{"seat": 0, "back": "red", "nerts_pile": "13"}, {"seat": 1, "back": "blue"}]
    deal = {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "nerts_pile": 13}
    event = event_from_dict({**deal, "seats": seats})
    assert isinstance(event, RoundStart) and event.pile_size(0) == 13
    assert set_aside_keys(event) == ["seats[0].nerts_pile"]
    assert event.to_dict() == {**deal, "seats": seats}


def test_a_reason_of_earlier_versions_is_read_as_none() -> None:
    old = {**PLAY, "verdict": "illegal", "reason": "round_over"}
    assert event_from_dict(old).to_dict() == {**PLAY, "verdict": "illegal"}


def test_a_nerts_pile_holds_at_most_a_deck() -> None:
    """As `--nerts-pile` options allow: more is a slip, refused where it is read."""
    deal = {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "nerts_pile": 53}
    deal |= {"seats": [{"seat": 0, "back": "red"}]}
    with pytest.raises(EventError, match="'nerts_pile' must be an integer from 1 to 52, got 53"):
        event_from_dict(deal)
    assert isinstance(event_from_dict({**deal, "nerts_pile": 52}), RoundStart)


DEAL = {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "nerts_pile": 13}
END = {"frame": 9, "t": 1, "type": "round_end", "round": 1, "foundation": {"0": 1}}
END |= {"nerts_left": {"0": 0}, "scores": {"0": 1}}


@pytest.mark.parametrize(
    ("data", "refused"),
    [
        ({**DEAL, "seats": [{"seat": 0, "back": "red", "nerts_pile": 60}]}, "from 1 to 52, got 60"),
        ({**DEAL, "seats": [{"seat": 0, "back": "red", "nerts_pile": 0}]}, "from 1 to 52, got 0"),
        ({**END, "caller": 10**9}, "'caller' must be an integer from 0 to 999999999"),
        (
            {"frame": 9, "t": 1, "type": "game_end", "totals": {"0": 1}, "winner": 10**9},
            "'winner' must be an integer from 0 to 999999999",
        ),
    ],
)
def test_an_extension_key_in_this_projects_form_is_checked_as_such(
    data: dict[str, Any], refused: str
) -> None:
    """Another tool's form is set aside; this project's own form out of range is a mistake."""
    with pytest.raises(EventError, match=refused):
        event_from_dict(data)
