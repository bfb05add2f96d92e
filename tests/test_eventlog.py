from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nerts.errors import UserError
from nerts.eventlog import EventWriter, event_line, read_events, read_numbered_events
from referee.cards import Card, Rank, Suit
from referee.events import (
    IllegalReason,
    NertsCall,
    OtherEvent,
    Play,
    RoundEnd,
    RoundStart,
    TakeBack,
    Verdict,
)

CARDS = st.builds(Card, st.sampled_from(list(Rank)), st.sampled_from(list(Suit)))
TIMES = st.one_of(
    st.floats(min_value=0, max_value=1e9), st.integers(0, 10**6), st.just(float("inf"))
)
PLAYS = st.builds(
    Play,
    frame=st.one_of(st.integers(0, 10**9), st.booleans()),
    t=TIMES,
    seat=st.one_of(st.integers(0, 8), st.booleans()),
    card=CARDS,
    pile=st.text(min_size=1),  # quotes, backslashes, control characters, any script
    verdict=st.one_of(st.none(), st.sampled_from(list(Verdict))),
    reason=st.one_of(st.none(), st.sampled_from(list(IllegalReason))),
    joker=st.booleans(),
)


@given(PLAYS)
def test_a_play_line_is_what_json_writes(play: Play) -> None:
    expected = json.dumps(play.to_dict(), ensure_ascii=False) + "\n"
    assert event_line(play) == expected


def test_other_events_are_written_by_json() -> None:
    call = NertsCall(4, 0.5, seat=1, valid=True)
    line = '{"frame": 4, "t": 0.5, "type": "nerts_call", "seat": 1, "valid": true}\n'
    assert event_line(call) == line


def test_written_events_read_back_the_same(tmp_path: Path) -> None:
    plays = [
        Play(1, 1 / 30, 0, Card.parse("AS"), 'pile "1"\\', Verdict.ACCEPTED),
        Play(2, 2 / 30, 3, Card.parse("2S"), "P\u00e9", Verdict.ILLEGAL, IllegalReason.WRONG_RANK),
        Play(2, 2 / 30, 2, Card.parse("10H"), "P2", joker=True),
    ]
    path = tmp_path / "out.jsonl"
    with EventWriter(path) as writer:
        for play in plays:
            writer.write(play)
    assert list(read_events(path)) == plays


def test_lines_ended_by_a_carriage_return_alone_are_said_so(tmp_path: Path) -> None:
    log = tmp_path / "mac.jsonl"
    log.write_bytes(
        b'{"frame": 0, "t": 0.0, "type": "stuck"}\r{"frame": 1, "t": 0.1, "type": "stuck"}\r'
    )
    with pytest.raises(UserError) as refused:
        list(read_events(log))
    assert str(refused.value) == (
        f"{log}:1: not valid JSON (Extra data); its lines end in a carriage return alone "
        "(classic Mac OS): save it with Unix (LF) or Windows (CR LF) line ends"
    )
    log.write_bytes(log.read_bytes().replace(b"\r", b"\r\n"))  # Windows line ends read well
    assert len(list(read_events(log))) == 2


def test_a_folder_given_as_a_log_is_said_so_with_the_logs_in_it(tmp_path: Path) -> None:
    """'nerts simulate --out sim' then 'nerts referee sim': the log is sim/truth.jsonl."""
    with pytest.raises(
        UserError, match=rf"^cannot read {re.escape(str(tmp_path))}: it is a folder$"
    ):
        list(read_numbered_events(tmp_path))
    for name in ("truth.jsonl", "events.jsonl", "a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text("")
    (tmp_path / "video.mp4").write_text("")
    logs = [str(tmp_path / name) for name in ("a.jsonl", "b.jsonl", "events.jsonl")]
    said = f"it is a folder; the event logs in it: {', '.join(logs)} and 1 more"
    with pytest.raises(UserError, match=re.escape(said) + "$"):
        list(read_numbered_events(tmp_path))


def test_ticks_held_share_their_keys_and_type_name(tmp_path: Path) -> None:
    """A live round stalled for an hour holds a tick a frame: each keeping its own copies of
    "frame", "t", "type" and "tick" cost a third of that memory."""
    log = tmp_path / "ticks.jsonl"
    log.write_text(
        '{"frame": 1, "t": 0.1, "type": "tick"}\n{"frame": 2, "t": 0.2, "type": "tick"}\n'
    )
    first, second = (event for event in read_events(log) if isinstance(event, OtherEvent))
    assert first.type is second.type
    assert all(a is b for a, b in zip(first.data, second.data, strict=True))


def test_events_keep_no_attribute_dictionary() -> None:
    """Value types with slots: a held event is its fields alone."""
    for kind in (Play, TakeBack, RoundStart, RoundEnd, NertsCall, OtherEvent):
        assert not hasattr(kind.__new__(kind), "__dict__"), kind
