"""Referee events to box commands, and the announcer against the emulator."""

from __future__ import annotations

import logging
import re
import socket
import time

import pytest

from hardware.announce import UNDELIVERED_SHOWN, BoxAnnouncer, BoxCommands, StandingDisplay
from hardware.device import BoxDevice, Light
from hardware.emulator import TcpEmulator
from hardware.faults import FaultPlan, FaultyDevice
from hardware.framing import check_command_text, encode_command, encode_device_line

GAME = [
    {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "seats": [], "nerts_pile": 13},
    {"frame": 5, "t": 0.2, "type": "play", "seat": 0, "card": "AS", "pile": "p0",
     "verdict": "accepted"},
    {"frame": 9, "t": 0.3, "type": "play", "seat": 1, "card": "2S", "pile": "p0",
     "verdict": "late"},
    {"frame": 9, "t": 0.3, "type": "play", "seat": 2, "card": "3H", "pile": "p0",
     "verdict": "illegal", "reason": "wrong_suit"},
    {"frame": 12, "t": 0.4, "type": "play", "seat": 1, "card": "2H", "pile": "p1",
     "verdict": "tie"},
    {"frame": 20, "t": 0.7, "type": "stuck"},
    {"frame": 30, "t": 1.0, "type": "nerts_call", "seat": 3, "valid": False},
    {"frame": 31, "t": 1.1, "type": "nerts_call", "seat": 2, "valid": True},
    {"frame": 40, "t": 1.5, "type": "round_end", "round": 1,
     "scores": {"0": 12, "1": -4, "2": 30, "3": 5}, "foundation": {}, "nerts_left": {}},
    {"frame": 41, "t": 1.6, "type": "take_back", "seat": 1, "card": "2S", "pile": "p0"},
    {"frame": 90, "t": 3.0, "type": "round_end", "round": 2,
     "scores": {"0": 20, "1": 1, "2": 2, "3": 0}, "foundation": {}, "nerts_left": {}},
    {"frame": 91, "t": 3.1, "type": "game_end", "totals": {"0": 32, "1": -3, "2": 32, "3": 5},
     "winner": 0},
]  # fmt: skip
EXPECTED = [
    "RESET", "SHOW Round 1",
    "BUZZ LATE", "LIGHT 1 FF0000",
    "BUZZ ILLEGAL", "LIGHT 2 FF8000 BLINK",
    "LIGHT 1 OFF",
    "BUZZ STUCK", "SHOW Stuck: new stock",
    "BUZZ ILLEGAL", "SHOW Seat 3 not out",
    "NERTS 2", "SHOW Nerts! Seat 2",
    "BUZZ ROUND", "SCORE 0 12", "SCORE 1 -4", "SCORE 2 30", "SCORE 3 5", "SHOW Seat 2 leads 30",
    "BUZZ ROUND", "SCORE 0 32", "SCORE 1 -3", "SCORE 2 32", "SCORE 3 5", "SHOW Tie 0,2 at 32",
    "BUZZ WIN", "LIGHT 0 FFD700 PULSE", "SHOW Seat 0 wins 32",
]  # fmt: skip


def test_events_become_the_protocol_commands() -> None:
    mapper = BoxCommands()
    assert [command for event in GAME for command in mapper.for_event(event)] == EXPECTED


@pytest.mark.parametrize(
    "event",
    [{"type": "play", "seat": "x", "verdict": "late"}, {"type": "round_end", "scores": [1, 2]},
     {"type": "nerts_call", "seat": -1, "valid": True}, {"type": "game_end"}],
)  # fmt: skip
def test_malformed_events_are_logged_and_skipped(
    event: dict[str, object], caplog: pytest.LogCaptureFixture
) -> None:
    assert BoxCommands().for_event(event) == []
    assert "event ignored" in caplog.text


def test_announcer_delivers_everything_to_the_box() -> None:
    device = BoxDevice()
    with (
        TcpEmulator(FaultyDevice(device, FaultPlan(lose_reply_rate=0.05, seed=9))) as box,
        BoxAnnouncer(box.url) as announcer,
    ):
        for event in GAME:
            announcer.announce(event)
    assert [text for text in device.executed if text != "HELLO"] == EXPECTED
    assert device.state.display == "Seat 0 wins 32"
    assert device.state.lights[0] == Light("FFD700", "PULSE")
    assert device.state.scores == {0: 32, 1: -3, 2: 32, 3: 5}


def test_seats_beyond_the_table_are_not_sent() -> None:
    device = BoxDevice()
    with TcpEmulator(FaultyDevice(device, FaultPlan())) as box:
        with BoxAnnouncer(box.url, seats=2) as announcer:
            announcer.announce(GAME[8])
        assert [t for t in device.executed if t != "HELLO"] == [
            "BUZZ ROUND", "SCORE 0 12", "SCORE 1 -4", "SHOW Seat 2 leads 30",
        ]  # fmt: skip
        # Not dropped unsaid: the announcements for seats 2 and 3 are told as not shown.
        assert announcer.rejected == [
            "not sent: the table has 2 seats: 'SCORE 2 30'",
            "not sent: the table has 2 seats: 'SCORE 3 5'",
        ]


def test_rejected_announcements_are_warned_at_once_then_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    with TcpEmulator(FaultyDevice(BoxDevice(seats=2), FaultPlan())) as box:
        announcer = BoxAnnouncer(box.url)
        # Queued before the box says how many seats it has: sent, and refused by the box.
        announcer.announce(GAME[2])  # seat 1: lit
        announcer.announce(GAME[3])  # seat 2: no seat here
        announcer.announce({**GAME[3], "seat": 3})
        with announcer:
            pass
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == [
        "box rejected 'LIGHT 2 FF8000 BLINK': SEAT (the box has no such seat)",
        "box: 2 announcements not shown: box rejected 'LIGHT 2 FF8000 BLINK': SEAT (the box has "
        "no such seat); box rejected 'LIGHT 3 FF8000 BLINK': SEAT (the box has no such seat)",
    ]
    assert len(announcer.rejected) == 2 and announcer.undelivered == []


def test_seats_beyond_the_box_are_not_sent_once_it_says_how_many(
    caplog: pytest.LogCaptureFixture,
) -> None:
    device = BoxDevice(seats=2)
    with (
        TcpEmulator(FaultyDevice(device, FaultPlan())) as box,
        BoxAnnouncer(box.url) as announcer,
    ):
        announcer.announce(GAME[0])
        assert announcer.driver.wait_delivered(5)  # the handshake: the box has 2 seats
        announcer.announce(GAME[8])
    assert [t for t in device.executed if t != "HELLO"][2:] == [
        "BUZZ ROUND", "SCORE 0 12", "SCORE 1 -4", "SHOW Seat 2 leads 30",
    ]  # fmt: skip
    assert announcer.rejected == [
        "not sent to the box, which has 2 seats: 'SCORE 2 30'",
        "not sent to the box, which has 2 seats: 'SCORE 3 5'",
    ]
    assert "box rejected" not in caplog.text


def test_a_number_too_long_for_a_line_is_not_sent_and_the_rest_are() -> None:
    device = BoxDevice()
    huge = 10**60
    end = {**GAME[8], "scores": {"0": huge, "1": 1}}
    with (
        TcpEmulator(FaultyDevice(device, FaultPlan())) as box,
        BoxAnnouncer(box.url) as announcer,
    ):
        announcer.announce(end)
    executed = [t for t in device.executed if t != "HELLO"]
    assert executed[:2] == ["BUZZ ROUND", "SCORE 1 1"]
    assert len(executed) == 3 and executed[2].startswith("SHOW Seat 0 leads 1000000")
    assert len(announcer.rejected) == 1
    assert announcer.rejected[0].startswith(f"not sent to the box: command 'SCORE 0 {huge}'")


def test_button_presses_come_out_in_order() -> None:
    presses: list[int] = []
    with (
        TcpEmulator(FaultyDevice(BoxDevice(), FaultPlan())) as box,
        BoxAnnouncer(box.url) as announcer,
    ):
        announcer.announce(GAME[0])
        announcer.driver.wait_delivered(5)
        box.press_button(3)
        box.press_button(1)
        deadline = time.monotonic() + 5
        while len(presses) < 2 and time.monotonic() < deadline:
            presses += announcer.button_presses()
            time.sleep(0.01)
    assert presses == [3, 1]


def test_absent_box_never_blocks_and_exit_is_bounded(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"socket://127.0.0.1:{probe.getsockname()[1]}"
    caplog.set_level(logging.WARNING)
    started = time.monotonic()
    with BoxAnnouncer(url, drain_timeout=0.2) as announcer:
        for event in GAME:
            announcer.announce(event)
        assert time.monotonic() - started < 0.1
    assert time.monotonic() - started < 1.0
    assert re.search(rf"box at {url} not available \(.+\); trying again\n", caplog.text)
    named = "; ".join(EXPECTED[:UNDELIVERED_SHOWN])
    more = len(EXPECTED) - UNDELIVERED_SHOWN
    # The first few named, the rest counted: a long log once left a warning of megabytes.
    assert f"{len(EXPECTED)} announcements never delivered: {named}; and {more} more (" in (
        caplog.text
    )


def test_a_url_pyserial_does_not_know_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="not a serial port URL"):
        BoxAnnouncer("nonsense://box")


def round_end(scores: dict[str, int], **bonus: dict[str, int]) -> dict[str, object]:
    return {"type": "round_end", "round": 1, "scores": scores, **bonus}


def test_totals_count_the_callers_bonus_and_start_again_with_a_new_game() -> None:
    mapper = BoxCommands()
    first = mapper.for_event(round_end({"0": 1, "1": 0}, bonus={"0": 10, "1": 0}))
    assert first[1:3] == ["SCORE 0 11", "SCORE 1 0"]
    mapper.for_event({"type": "game_end", "totals": {"0": 11, "1": 0}, "winner": 0})
    mapper.for_event({"type": "round_start", "round": 1})
    assert mapper.for_event(round_end({"0": 2, "1": 3}))[1:4] == [
        "SCORE 0 2",
        "SCORE 1 3",
        "SHOW Seat 1 leads 3",
    ]


def test_every_show_fits_a_line_and_many_leaders_are_counted() -> None:
    mapper = BoxCommands()
    three = BoxCommands().for_event(round_end({"0": 4, "1": 4, "2": 1, "3": 4}))
    assert three[-1] == "SHOW Tie 0,1,3 at 4"  # as many as LEADERS_NAMED_MAX are named
    four = BoxCommands().for_event(round_end({"0": 4, "1": 4, "2": 4, "3": 4}))
    assert four[-1] == "SHOW 4 tie at 4"
    level = mapper.for_event(round_end({str(seat): 0 for seat in range(16)}))
    assert level[-1] == "SHOW 16 tie at 0"
    long_round = mapper.for_event({"type": "round_start", "round": 10**60})[1]
    odd_round = mapper.for_event({"type": "round_start", "round": "2*\u00e9"})[1]
    assert odd_round == "SHOW Round 2??"
    for command in [*level, long_round, odd_round]:
        assert check_command_text(command) == command


def test_a_nerts_call_blinks_a_light_set_to_black_in_white_as_the_firmware_does() -> None:
    device = BoxDevice()
    device.power_up()
    for seq, text in enumerate(["LIGHT 0 000000", "NERTS 0", "LIGHT 1 00FF00", "NERTS 1"], 1):
        assert device.feed(encode_command(seq, text)) == encode_device_line(f"ok {seq}")
    assert device.state.lights[:2] == [Light("FFFFFF", "BLINK"), Light("00FF00", "BLINK")]


DISPLAY_CHARS = 16
"""The contract's smallest display: every text the referee sends must show whole on it."""


@pytest.mark.parametrize("total", [-99, 0, 999])
def test_every_text_shows_whole_on_a_16_character_display(total: int) -> None:
    mapper = BoxCommands()
    events: list[dict[str, object]] = [
        {"type": "round_start", "round": 99},
        {"type": "nerts_call", "seat": 7, "valid": False},
        {"type": "stuck"},
        round_end({"7": total, "6": total - 1}),
        round_end({"7": 0, "6": 1}),  # level at the top: a tie of two
        {"type": "game_end", "totals": {"7": total}, "winner": 7},
    ]
    shown = [c for event in events for c in mapper.for_event(event) if c.startswith("SHOW ")]
    assert len(shown) == 6 and all(len(c) - len("SHOW ") <= DISPLAY_CHARS for c in shown), shown


def test_a_nerts_call_after_the_rounds_end_leaves_the_scores_showing() -> None:
    """The referee finds no call valid after the end; a log that says one is gets its NERTS,
    as the contract asks for every valid call."""
    mapper = BoxCommands()
    mapper.for_event(round_end({"0": 3, "1": 5}))
    assert mapper.for_event({"type": "nerts_call", "seat": 1, "valid": False}) == []
    assert mapper.for_event({"type": "nerts_call", "seat": 0, "valid": True}) == [
        "NERTS 0",
        "SHOW Nerts! Seat 0",
    ]
    mapper.for_event({"type": "round_start", "round": 2})
    assert mapper.for_event({"type": "nerts_call", "seat": 1, "valid": False}) == [
        "BUZZ ILLEGAL",
        "SHOW Seat 1 not out",
    ]


def test_a_stuck_after_a_valid_call_or_the_rounds_end_buzzes_nothing() -> None:
    """No one turns a new stock once the round is over (in the call's grace or after its
    scores); a new round's stuck buzzes again."""
    mapper = BoxCommands()
    mapper.for_event({"type": "round_start", "round": 1})
    mapper.for_event({"type": "nerts_call", "seat": 0, "valid": True})
    assert mapper.for_event({"type": "stuck"}) == []
    mapper.for_event(round_end({"0": 3, "1": 5}))
    assert mapper.for_event({"type": "stuck"}) == []
    mapper.for_event({"type": "round_start", "round": 2})
    assert mapper.for_event({"type": "stuck"}) == ["BUZZ STUCK", "SHOW Stuck: new stock"]
    mapper.for_event(round_end({"0": 1, "1": 2}))  # stuck again: no call
    assert mapper.for_event({"type": "stuck"}) == []


def test_ctrl_c_while_waiting_for_the_box_stops_the_wait_only(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The referee has decided everything: its scoreboard is still printed."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"socket://127.0.0.1:{probe.getsockname()[1]}"
    announcer = BoxAnnouncer(url)

    def interrupted(timeout: float) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(announcer.driver, "wait_delivered", interrupted)
    with announcer:
        announcer.announce(GAME[0])
    assert announcer.undelivered == ["RESET", "SHOW Round 1"]
    assert f"box at {url}: stopped waiting for it (interrupted)" in caplog.text


def test_what_the_box_shows_is_kept_as_the_commands_that_set_it() -> None:
    standing = StandingDisplay()
    standing.update(["LIGHT 0 FF0000", "BUZZ LATE", "RESET", "LIGHT 1 00FF00 BLINK"])
    standing.update(["SHOW Round 2", "SCORE 1 4", "LIGHT 2 FF0000", "LIGHT 2 OFF", "PING"])
    standing.update(["SCORE 1 9", "SHOW Seat 1 leads 9", "NERTS 1", "NERTS 3", "LIGHT 4 000000"])
    standing.update(["NERTS 4"])
    assert standing.commands() == [
        "LIGHT 1 00FF00 BLINK",  # the caller's light, blinking in its colour
        "LIGHT 3 FFFFFF BLINK",  # off before the call: the box's own colour
        "LIGHT 4 FFFFFF BLINK",  # set black, which is off
        "SCORE 1 9",
        "SHOW Seat 1 leads 9",
    ]


def test_a_box_reset_mid_game_is_shown_again_what_it_showed() -> None:
    """A box that lost power for a moment (or was unplugged and plugged in again) comes back
    blank: its lights, scores and display are sent again, without the buzzes."""
    device = BoxDevice()
    emulator = TcpEmulator(FaultyDevice(device, FaultPlan()))
    emulator.start()
    try:
        with BoxAnnouncer(emulator.url) as announcer:
            for event in GAME[:9]:  # to the first round's end
                announcer.announce(event)
            assert announcer.driver.wait_delivered(10)
            shown = (device.state.lights, device.state.scores, device.state.display)
            assert shown[2] == "Seat 2 leads 30" and shown[0][2] == Light("FF8000", "BLINK")
            executed = len(device.executed)
            emulator.reset()
            deadline = time.monotonic() + 10
            while device.state.scores != shown[1] and time.monotonic() < deadline:
                time.sleep(0.05)
            assert announcer.driver.wait_delivered(10)
    finally:
        emulator.close()
    assert (device.state.lights, device.state.scores, device.state.display) == shown
    assert device.executed[executed:] == [
        "LIGHT 2 FF8000 BLINK",  # blinking since seat 2's Nerts call
        "SCORE 0 12",
        "SCORE 1 -4",
        "SCORE 2 30",
        "SCORE 3 5",
        "SHOW Seat 2 leads 30",
    ]
