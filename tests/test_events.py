from __future__ import annotations

from typing import Any

import pytest

from referee.errors import EventError
from referee.events import OtherEvent, Play, Verdict, event_from_dict

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


def test_unknown_keys_are_ignored() -> None:
    assert event_from_dict({**PLAY, "debug": [1, 2]}).to_dict() == PLAY


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
        ({"card": "11H"}, "play: 'card': not a card: '11H'"),
        ({"seat": None}, "'seat' must be an integer"),
        ({"verdict": "maybe"}, "'verdict' must be one of"),
        ({"pile": ""}, "'pile' must be a non-empty string"),
    ],
)
def test_bad_events_name_key_and_value(change: dict[str, Any], message: str) -> None:
    with pytest.raises(EventError, match=message.replace("(", r"\(")):
        event_from_dict({**PLAY, **change})


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
