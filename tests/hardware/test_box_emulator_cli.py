"""`nerts box-emulator` through the command line: it serves a pty or a TCP port, shows the box
in the terminal, takes keys for the seat buttons (only in the foreground), and stops cleanly."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading

import pytest

from hardware.device import BoxDevice
from hardware.driver import BoxDriver
from hardware.framing import encode_command
from hardware.terminal import in_foreground, plain_keys, read_keys, render
from nerts.cli import BROKEN_PIPE_STATUS, main
from tests.hardware.test_box_cli import (
    EXIT_WAIT_S,
    INTERRUPTED,
    NERTS_WITH_CTRL_C,
    last_error_line,
)

EMULATOR_ARGUMENTS = ("box-emulator", "--pty", "--no-colour", "--seats", "3")


def test_box_emulator_command_serves_a_pty() -> None:
    """Its output no terminal, it shows no colours though --no-colour was not given."""
    process = subprocess.Popen(
        [sys.executable, "-c", NERTS_WITH_CTRL_C, "box-emulator", "--pty", "--seats", "3"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        match = re.search(r"on (/dev/\S+)", banner)
        assert match, banner
        with BoxDriver(match[1]) as driver:
            driver.send("LIGHT 2 00FF00 BLINK").result(timeout=5)
            assert driver.identity is not None and driver.identity.seats == 3
        shown = process.stdout.readline()
        while "HELLO" in shown:  # the handshake (more than once if it was resent)
            shown = process.stdout.readline()
        assert "LIGHT 2 00FF00 BLINK" in shown and "2◉#00FF00" in shown
    finally:
        process.send_signal(signal.SIGINT)
        try:
            # It exits in about 0.1 s; a machine busy training took over 5 s once.
            assert process.wait(timeout=EXIT_WAIT_S) == INTERRUPTED
        finally:
            process.kill()  # never leave an emulator behind, whatever failed
            if process.stdout:
                process.stdout.close()


def test_the_emulator_stops_when_its_output_is_closed() -> None:
    """'nerts box-emulator | head -2': serving on with a dead thread, it answered no host."""
    process = subprocess.Popen(
        [sys.executable, "-c", NERTS_WITH_CTRL_C, *EMULATOR_ARGUMENTS],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        match = re.search(r"on (/dev/\S+)", process.stdout.readline())
        assert match
        process.stdout.close()  # the reader goes away
        with BoxDriver(match[1]) as driver:
            driver.send("PING")
            assert process.wait(timeout=EXIT_WAIT_S) == BROKEN_PIPE_STATUS
        assert "Traceback" not in process.stderr.read()
    finally:
        process.kill()
        if process.stderr:
            process.stderr.close()


def test_keys_press_seat_buttons_reset_and_quit() -> None:
    master, slave = os.openpty()
    pressed: list[int] = []
    resets: list[bool] = []
    said: list[str] = []
    # Typed once the keyboard is in cbreak mode; x and 9 (no such seat) are ignored.
    typist = threading.Timer(0.2, os.write, (master, b"2x9r1q3"))
    stop = threading.Event()
    safety = threading.Timer(10, stop.set)  # a broken `q` fails the test instead of hanging it
    try:
        with os.fdopen(os.dup(slave), "r") as keys:
            typist.start()
            safety.start()
            read_keys(pressed.append, lambda: resets.append(True), stop, 4, keys, say=said.append)
    finally:
        typist.join()
        safety.cancel()
        os.close(master)
        os.close(slave)
    assert pressed == [2, 1]
    assert resets == [True]
    assert said == [
        "seat 2's Nerts! button pressed",
        "no seat 9 on this box: seats 0-3",
        "reset: the box powers up again",
        "seat 1's Nerts! button pressed",
    ]


def test_function_and_arrow_keys_press_no_seat_buttons() -> None:
    master, slave = os.openpty()
    pressed: list[int] = []
    # F5, then Delete and an arrow key: their sequences hold digits; then a seat and quit.
    typists = [
        threading.Timer(delay, os.write, (master, typed))
        for delay, typed in ((0.2, b"\x1b[15~"), (0.5, b"\x1b[3~\x1b[A"), (0.8, b"1q"))
    ]
    stop = threading.Event()
    safety = threading.Timer(10, stop.set)
    try:
        with os.fdopen(os.dup(slave), "r") as keys:
            for typist in typists:
                typist.start()
            safety.start()
            read_keys(pressed.append, lambda: None, stop, 8, keys)
    finally:
        for typist in typists:
            typist.join()
        safety.cancel()
        os.close(master)
        os.close(slave)
    assert pressed == [1]


def test_an_escape_sequence_split_between_reads_presses_no_seat() -> None:
    """Over a slow link F5's "\x1b[15~" may come in two reads: its digits are still no keys."""
    keys, escaping = plain_keys("2\x1b[1")
    assert keys == "2" and escaping == "\x1b[1"
    assert plain_keys("5~3", escaping) == ("3", "")
    assert plain_keys("\x1bOP1\x1b[A0") == ("10", "")  # F1, then an arrow key


SCREEN = ["HELLO", "LIGHT 0 FF0000", "LIGHT 2 00FF00 PULSE", "SHOW hi", "SCORE 1 -4"]


def test_render_shows_lights_display_and_scores() -> None:
    device = BoxDevice(seats=3)
    device.feed(b"".join(encode_command(seq, text) for seq, text in enumerate(SCREEN, start=1)))
    plain = "0●#FF0000 1○ 2◎#00FF00  [hi              ]  scores 1:-4"
    assert render(device.state, colour=False) == plain
    assert "\x1b[38;2;255;0;0m●\x1b[0m" in render(device.state)


@pytest.mark.parametrize("port", ["-1", "99999", "65536"])
def test_emulator_tcp_port_must_be_in_range(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["box-emulator", "--tcp", port, "--no-colour"])
    assert exited.value.code == 2
    assert last_error_line(capsys).endswith(f"argument --tcp: must be 0 to 65535, not {port}")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--corrupt", "2"], "--corrupt must be between 0 and 1"),
        (["--corrupt", "nan"], "--corrupt must be between 0 and 1"),
        (["--lose", "-0.5"], "--lose must be between 0 and 1"),
        (["--reset-every", "-1"], "--reset-every must be 0 (never) or a positive count"),
    ],
)
def test_emulator_fault_errors_name_the_options(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["box-emulator", "--pty", "--no-colour", *arguments]) == 2
    assert last_error_line(capsys) == f"nerts box-emulator: error: {message}"


FOREGROUND_PROBE = """
import os, sys
from hardware.terminal import in_foreground
os.setsid()
slave = open(os.ttyname(int(sys.argv[1])), "r")  # a session leader's first terminal: its own
print(in_foreground(slave), flush=True)
child = os.fork()
if child == 0:
    os.setpgid(0, 0)  # as a shell puts a job started with '&'
    print(in_foreground(slave), flush=True)
    os._exit(0)
os.waitpid(child, 0)
"""


def test_the_emulator_reads_keys_only_in_the_foreground_of_its_terminal() -> None:
    # Reading keys from the background ('box-emulator ... &') got the job stopped by the shell.
    master, slave = os.openpty()
    try:
        with os.fdopen(os.dup(slave)) as not_ours:
            assert not in_foreground(not_ours)  # a terminal that is not this process's own
        probe = subprocess.run(
            [sys.executable, "-c", FOREGROUND_PROBE, str(slave)],
            pass_fds=(slave,),
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        assert probe.stdout.split() == ["True", "False"]
    finally:
        os.close(master)
        os.close(slave)
