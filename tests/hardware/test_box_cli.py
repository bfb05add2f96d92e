"""`nerts box send`, `nerts box test` and `nerts box-emulator` through the command line."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from hardware import ports
from hardware.device import BoxDevice
from hardware.emulator import TcpEmulator
from hardware.faults import FaultPlan, FaultyDevice
from nerts.cli import main
from nerts.commands import box as box_command


@pytest.fixture
def box() -> Iterator[tuple[TcpEmulator, BoxDevice]]:
    device = BoxDevice()
    with TcpEmulator(FaultyDevice(device, FaultPlan())) as emulator:
        yield emulator, device


def executed(device: BoxDevice) -> list[str]:
    return [text for text in device.executed if text != "HELLO"]


def test_send_arguments(
    box: tuple[TcpEmulator, BoxDevice], capsys: pytest.CaptureFixture[str]
) -> None:
    emulator, device = box
    assert main(["box", "send", "--port", emulator.url, "LIGHT 0 FF0000", "BUZZ BEEP"]) == 0
    assert executed(device) == ["LIGHT 0 FF0000", "BUZZ BEEP"]
    assert capsys.readouterr().out == f"2 commands acknowledged by {emulator.url}\n"
    assert main(["box", "send", "--port", emulator.url, "PING"]) == 0
    assert capsys.readouterr().out == f"1 command acknowledged by {emulator.url}\n"


def test_send_file(box: tuple[TcpEmulator, BoxDevice], tmp_path: Path) -> None:
    emulator, device = box
    commands = tmp_path / "commands.txt"
    commands.write_text(
        "# a comment\nSHOW hello there\n\n  # indented\nSCORE 1 -7\nSHOW seat #2\n",
        encoding="ascii",
    )
    assert main(["box", "send", "--port", emulator.url, "--file", str(commands)]) == 0
    assert executed(device) == ["SHOW hello there", "SCORE 1 -7", "SHOW seat #2"]


def test_send_reads_commands_piped_in(
    box: tuple[TcpEmulator, BoxDevice],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    emulator, device = box
    piped = io.TextIOWrapper(io.BytesIO("PING\n\nSHOW café\n".encode()))
    monkeypatch.setattr(sys, "stdin", piped)
    assert main(["box", "send", "--port", emulator.url, "--file", "-"]) == 2
    assert last_error_line(capsys).startswith("nerts box: error: standard input:3: ")
    piped = io.TextIOWrapper(io.BytesIO(b"PING\nSHOW from a pipe\n"))
    monkeypatch.setattr(sys, "stdin", piped)
    assert main(["box", "send", "--port", emulator.url, "--file", "-"]) == 0
    assert executed(device) == ["PING", "SHOW from a pipe"]


def test_a_bad_command_in_a_file_is_named_by_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = tmp_path / "commands.txt"
    commands.write_text("PING\n\nLIGHT  0 OFF\n", encoding="ascii")
    assert main(["box", "send", "--port", "loop://", "--file", str(commands)]) == 2
    assert f"{commands}:3: command 'LIGHT  0 OFF' must be" in capsys.readouterr().err
    video = tmp_path / "video.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00\xff\nPING\n")
    assert main(["box", "send", "--port", "loop://", "--file", str(video)]) == 2
    assert capsys.readouterr().err == (
        f"nerts box: error: {video} is not a text file of commands (one a line)\n"
    )
    commands.write_bytes(b"PING\n" * (1 << 18))  # over 1 MB: /dev/zero is never read whole
    assert main(["box", "send", "--port", "loop://", "--file", str(commands)]) == 2
    assert capsys.readouterr().err == (
        f"nerts box: error: {commands} holds over 1 MB: not a file of box commands (one a line)\n"
    )
    commands.write_bytes("PING\nBUZZ BEEP\n".encode("utf-16"))
    assert main(["box", "send", "--port", "loop://", "--file", str(commands)]) == 2
    assert (
        capsys.readouterr().err
        == f"nerts box: error: {commands} is UTF-16 text: save it as UTF-8\n"
    )


def test_send_help_lists_every_command_the_box_knows(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["box", "send", "--help"])
    shown = capsys.readouterr().out
    for command in ("RESET", "LIGHT", "BUZZ", "SHOW", "SCORE", "NERTS", "PING"):
        assert f"\n  {command} " in shown
    assert "BUZZ NERTS|LATE|ILLEGAL|STUCK|ROUND|WIN|BEEP" in shown


def test_a_file_saved_with_a_byte_order_mark_and_accents_is_read_line_by_line(
    box: tuple[TcpEmulator, BoxDevice], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    emulator, device = box
    commands = tmp_path / "commands.txt"
    commands.write_bytes("\ufeffPING\n# café\nSHOW hi\n".encode())
    assert main(["box", "send", "--port", emulator.url, "--file", str(commands)]) == 0
    assert executed(device) == ["PING", "SHOW hi"]
    commands.write_bytes(b"PING\nSHOW caf\xe9\n")  # Latin-1, not UTF-8
    assert main(["box", "send", "--port", "loop://", "--file", str(commands)]) == 2
    assert capsys.readouterr().err == (
        f"nerts box: error: {commands}:2: command 'SHOW caf\ufffd' must be printable ASCII "
        "(letters, digits, signs)\n"
    )


def test_send_exits_1_when_a_command_is_rejected(
    box: tuple[TcpEmulator, BoxDevice], capsys: pytest.CaptureFixture[str]
) -> None:
    emulator, device = box
    assert main(["box", "send", "--port", emulator.url, "LIGHT 9 FF0000", "PING"]) == 1
    err = capsys.readouterr().err
    assert err.count("rejected 'LIGHT 9 FF0000': SEAT (the box has no such seat)") == 1
    assert err.endswith("error: 1 of 2 commands acknowledged\n")
    assert executed(device) == ["PING"]


def test_a_command_of_a_file_the_box_rejects_is_named_by_its_line(
    box: tuple[TcpEmulator, BoxDevice], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    emulator, _device = box
    commands = tmp_path / "show.txt"
    commands.write_text("# a show\nPING\n\nBOGUS 1\n")
    assert main(["box", "send", "--port", emulator.url, "--file", str(commands)]) == 1
    err = capsys.readouterr().err
    assert f"error: {commands}:4: box rejected 'BOGUS 1': UNKNOWN" in err


def test_send_exits_1_when_the_box_is_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "box.log"
    arguments = ["--port", "socket://127.0.0.1:1", "--timeout", "0.3", "--log-file", str(log)]
    assert main(["box", "send", *arguments, "PING"]) == 1
    error = capsys.readouterr().err
    assert "ERROR nerts.commands.box: could not open socket://127.0.0.1:1 (" in log.read_text()
    assert "could not open socket://127.0.0.1:1 (" in error and error.endswith(
        "nothing was sent; is the box plugged in (or its emulator, 'nerts box-emulator', "
        "running)?\n"
    )
    assert "trying again" not in error  # the driver's word, for a referee that waits
    assert "not acknowledged" not in error


def test_commands_never_acknowledged_are_named_a_few_then_counted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A box that answers nothing (every reply lost): not one error line per command."""
    commands = [f"SHOW {number}" for number in range(8)]
    with TcpEmulator(FaultyDevice(BoxDevice(), FaultPlan(lose_reply_rate=1.0))) as emulator:
        arguments = ["box", "send", "--port", emulator.url, "--timeout", "0.5", *commands]
        assert main(arguments) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if "acknowledged" in line]
    assert errors == [
        *(f"error: not acknowledged within 0.5 s: SHOW {number}" for number in range(5)),
        "error: and 3 more commands not acknowledged within 0.5 s, the last: SHOW 7",
    ]


def _fails_well_before_its_timeout(arguments: list[str]) -> None:
    """`nerts ARGUMENTS` (with --timeout 60) fails with status 1 in under half its timeout."""
    started = time.monotonic()
    assert main(arguments) == 1
    assert time.monotonic() - started < 30


def test_a_port_that_is_no_serial_port_or_is_in_use_is_told_so_at_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Trying again cannot mend either: said after the first try, not after --timeout.
    arguments = ["box", "send", "--port", "/dev/null", "--timeout", "60", "PING"]
    _fails_well_before_its_timeout(arguments)
    assert last_error_line(capsys).endswith(
        "nothing was sent; it is not a serial port (a USB box is usually /dev/ttyUSB0 or "
        "/dev/ttyACM0; --port auto looks for it)"
    )

    unlocked = serial.serial_for_url

    def locked(url: str, **options: object) -> object:
        if options.get("do_not_open"):  # the form of the URL checked first
            return unlocked(url, **options)
        raise serial.SerialException(f"Could not exclusively lock port {url}: [Errno 11]")

    monkeypatch.setattr(serial, "serial_for_url", locked)
    _fails_well_before_its_timeout(arguments)
    assert last_error_line(capsys).endswith(
        "(/dev/null is in use by another program): nothing was sent; close the other program "
        "using it (a serial monitor, another nerts)"
    )


def test_an_interrupted_send_names_the_commands_not_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(deliveries: list[object], timeout: float, hopeless: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(box_command, "_wait_interruptibly", interrupted)
    commands = tmp_path / "show.txt"
    commands.write_text("# a show\nPING\nBUZZ BEEP\n\nSHOW a\nSHOW b\nSHOW c\n")
    assert main(["box", "send", "--port", "socket://127.0.0.1:1", "--file", str(commands)]) == 130
    assert capsys.readouterr().err.splitlines() == [
        "warning: stopped: 0 of 5 commands answered; not answered: "
        f"{commands}:2: PING; {commands}:3: BUZZ BEEP; {commands}:5: SHOW a and 2 more",
        "nerts: interrupted",
    ]


def test_send_says_when_the_box_was_still_being_looked_for(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def slow_search() -> None:  # 'auto' asks each serial port in turn
        time.sleep(1.0)

    monkeypatch.setattr(ports, "detect_box", slow_search)
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: ["/dev/ttyS0"])
    assert main(["box", "send", "--port", "auto", "--timeout", "0.2", "PING"]) == 1
    assert capsys.readouterr().err == (
        "error: found no box (still looking after 0.2 s; --timeout gives more): nothing was sent\n"
    )


def test_send_to_auto_says_when_the_machine_has_no_serial_port(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """It said no port answered as a nerts box, as if a box had been asked."""
    monkeypatch.setattr(serial.tools.list_ports, "comports", list)
    assert main(["box", "send", "--port", "auto", "--timeout", "0.3", "PING"]) == 1
    assert capsys.readouterr().err == (
        "error: found no box (no serial port on this machine): nothing was sent; is the box "
        "plugged in (or its emulator, 'nerts box-emulator', running)?\n"
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--port", "nonsense://x", "PING"], "not a serial port URL"),
        (["--port", "loop://", "--file", "/nonexistent/commands.txt"], "cannot read commands"),
        (["--port", "loop://", "SHOW a*b"], "holds '*', which marks a line's check: leave it out"),
        (["--port", "loop://"], "no commands"),
    ],
)
def test_user_mistakes_are_one_line(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["box", "send", *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_box_test_lights_every_seat_and_beeps(box: tuple[TcpEmulator, BoxDevice]) -> None:
    emulator, device = box
    assert main(["box", "test", "--port", emulator.url]) == 0
    assert [light.colour for light in device.state.lights] == [
        "FF0000", "00FF00", "0000FF", "FFFF00",
    ]  # fmt: skip
    assert executed(device)[-1] == "BUZZ BEEP"


EXIT_WAIT_S = 30
INTERRUPTED = 130


# Python's own Ctrl-C handler, for children: a shell that runs the suite in the background hands
# them SIGINT ignored, and Python then leaves it ignored.
WITH_CTRL_C = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
NERTS_WITH_CTRL_C = WITH_CTRL_C + "import runpy; runpy.run_module('nerts', run_name='__main__')"


def test_a_port_another_program_holds_is_said_to_be_in_use() -> None:
    master, slave = os.openpty()
    device = os.ttyname(slave)
    try:
        held = serial.serial_for_url(device, exclusive=True)
        with held, pytest.raises(serial.SerialException, match=f"{device} is in use by another"):
            ports.open_port(device)
        ports.open_port(device).close()  # free again
    finally:
        os.close(master)
        os.close(slave)


# A command with a helper thread, Ctrl-C delivered to that thread rather than the main thread
# (the kernel may pick either): Python runs the handler in the main thread only once that thread
# wakes. Without waking, `box send` would wait out its --timeout of a minute.
CTRL_C_TO_A_HELPER_THREAD = """
import signal, socket, sys, threading, time
from nerts.cli import main

def interrupt(thread_name_start):
    while True:
        helper = [t for t in threading.enumerate() if t.name.startswith(thread_name_start)]
        if helper and helper[0].ident is not None:
            break
        time.sleep(0.01)
    time.sleep(0.3)
    signal.pthread_kill(helper[0].ident, signal.SIGINT)

silent = socket.create_server(("127.0.0.1", 0))  # takes the connection, never answers
commands = {
    "emulator": (["box-emulator", "--pty", "--no-colour"], "PtyEmulator"),
    "send": (["box", "send", "--port", f"socket://127.0.0.1:{silent.getsockname()[1]}",
              "--timeout", "60", "BUZZ BEEP"], "box socket://"),
}
arguments, thread_name_start = commands[sys.argv[1]]
threading.Thread(target=interrupt, args=(thread_name_start,), daemon=True).start()
sys.exit(main(arguments))
"""


@pytest.mark.parametrize("command", ["emulator", "send"])
def test_ctrl_c_stops_whichever_thread_receives_it(command: str) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", WITH_CTRL_C + CTRL_C_TO_A_HELPER_THREAD, command],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.wait(timeout=EXIT_WAIT_S) == INTERRUPTED
        assert process.stderr is not None
        assert process.stderr.read().splitlines()[-1] == "nerts: interrupted"
    finally:
        process.kill()
        if process.stderr:
            process.stderr.close()


def last_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.splitlines()[-1]


# Well under the shortest --timeout a hang would wait (the default, 10 s), well over a slow start.
QUICK_S = 5


def exit_status_quickly(arguments: list[str]) -> int | str | None:
    """`main(arguments)`'s exit status (argparse's too), failing instead of hanging if it hangs."""
    outcome: list[int | str | None] = []

    def run() -> None:
        try:
            outcome.append(main(arguments))
        except SystemExit as exited:
            outcome.append(exited.code)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(QUICK_S)
    assert outcome, f"nerts {' '.join(arguments)} still running after {QUICK_S} s"
    return outcome[0]


@pytest.mark.parametrize("timeout", ["inf", "1e308", "0", "-1", "nan", "601"])
@pytest.mark.parametrize("action", [["send", "BUZZ BEEP"], ["test"]])
def test_timeout_must_be_finite_positive_and_bounded(
    action: list[str], timeout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["box", action[0], "--port", "loop://", "--timeout", timeout, *action[1:]]
    assert exit_status_quickly(arguments) == 2
    assert last_error_line(capsys).endswith(
        f"argument --timeout: must be more than 0 and at most 600 seconds, not {timeout!r}"
    )


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("socket://127.0.0.1", "names no port number; give socket://HOST:PORT"),
        ("socket://127.0.0.1:99999", "not a host and a port number 0 to 65535"),
        ("socket://127.0.0.1:-1", "not a host and a port number 0 to 65535"),
        ("socket://[::1:7000", "not a host and a port number 0 to 65535"),
        ("socket://:7000", "names no host; give socket://HOST:PORT"),
        ("socket://127.0.0.1:7000?logging=loud", "the only option is ?logging=debug|info"),
        ("rfc2217://localhost", "names no port number; give rfc2217://HOST:PORT"),
        ("RFC2217://:7000", "names no host; give rfc2217://HOST:PORT"),
        ("rfc2217://h:7000?bogus=1", "no option 'bogus'; rfc2217:// takes ?logging, "),
        (
            "7791",
            "not a serial port: for a box (or the emulator) on a TCP port give "
            "socket://127.0.0.1:7791; for one on USB, its device (e.g. /dev/ttyUSB0)",
        ),
        ("localhost:7791", "give socket://localhost:7791"),
        ("", "names no port: give the box's device (e.g. /dev/ttyUSB0), a URL such as "),
        ("spy://loop://?file=/no/such/folder/log", "No such file or directory"),
        ("/dev/no-such-box", "no such device; is the box plugged in?"),
        (__file__, "is a file, not a serial device (a USB box is usually /dev/ttyUSB0"),
        (str(Path(__file__).parent), "is a folder, not a serial device (a USB box is usually"),
    ],
)
def test_socket_urls_need_a_host_and_a_port(
    url: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_status_quickly(["box", "send", "--port", url, "--timeout", "2", "BUZZ BEEP"]) == 2
    line = last_error_line(capsys)
    assert line.startswith(f"nerts box: error: --port {url!r}") and message in line
