"""`nerts box send|test`: talk to the referee box (`nerts box-emulator` is one)."""

from __future__ import annotations

import argparse
import codecs
import errno
import logging
import math
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import wait
from functools import partial

from hardware.driver import BoxDriver, CommandRejected, Delivery
from hardware.framing import check_command_text
from hardware.ports import AUTO_URL, IN_USE_SAID, check_url
from nerts.columns import first_few
from nerts.errors import FAILURE_STATUS, UserError, file_argument
from nerts.eventlog import UTF16_MARKS

log = logging.getLogger(__name__)

# How long `box send` and `box test` wait, in all, for the box to acknowledge their commands.
DEFAULT_SEND_TIMEOUT_S = 10.0
# The longest --timeout accepted. A box that is there acknowledges within a second or so (the driver
# resends every quarter second and reopens an unplugged port every half second), and ten minutes
# leaves time to plug it in; more is surely a typo, and inf or 1e308 would wait for ever.
MAX_SEND_TIMEOUT_S = 600.0
# How often the main thread wakes while it waits (for acknowledgements, or while the emulator
# serves without a keyboard): the kernel may deliver Ctrl-C to another thread (the driver's
# reader, the emulator's server), and Python runs its handler only once the main thread wakes.
INTERRUPT_POLL_S = 0.2
# How long `box test` waits for a box's ID line after the `ok` to its handshake (it follows at
# once on the wire; the wait covers the reader thread's turn).
ID_LINE_WAIT_S = 1.0
# How often `box test` asks again for a box's ID line that did not come (lost on a noisy link).
ID_ASKS = 3
# The colours `box test` lights the seats in: seat 0 red, seat 1 green, ...
TEST_COLOURS = ("FF0000", "00FF00", "0000FF", "FFFF00", "FF00FF", "00FFFF", "FFFFFF", "FF8000")

BOX_DESCRIPTION = f"""\
Sends commands to the referee box through the host driver (CRC, resends, reconnection), as the
protocol in docs/contracts/box-protocol.md defines. --port takes any pyserial URL: a device
such as /dev/ttyUSB0, socket://HOST:PORT (an emulator's TCP port), or '{AUTO_URL}' for
the first serial port whose device answers as a nerts box.
"""
BOX_EPILOG = """\
examples:
  nerts box send --port /dev/ttyUSB0 "LIGHT 0 FF0000" "BUZZ BEEP" "SHOW hello"
  nerts box send --port socket://127.0.0.1:7000 --file commands.txt
  nerts box test --port auto
"""


def send_timeout(text: str) -> float:
    """argparse type of --timeout: seconds, finite, above 0 and at most `MAX_SEND_TIMEOUT_S`."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_SEND_TIMEOUT_S):
        raise argparse.ArgumentTypeError(
            f"must be more than 0 and at most {MAX_SEND_TIMEOUT_S:g} seconds, not {text!r}"
        )
    return seconds


SEND_DESCRIPTION = """\
Sends each COMMAND (or each line of --file) to the box and waits for its acknowledgement.
Quote each command as a whole: BUZZ BEEP unquoted is two commands, BUZZ and BEEP. The box
knows (docs/contracts/box-protocol.md; seats from 0, colours RRGGBB or OFF):
  RESET                               all lights off, display cleared, buzzer silent
  LIGHT SEAT COLOUR [SOLID|BLINK|PULSE]   a seat's light, e.g. LIGHT 0 FF0000 BLINK
  BUZZ NERTS|LATE|ILLEGAL|STUCK|ROUND|WIN|BEEP
  SHOW TEXT                           the display (printable ASCII, no '*')
  SCORE SEAT POINTS                   a seat's score, e.g. SCORE 2 -7
  NERTS SEAT                          a Nerts call: the caller's light blinks, fanfare
  PING                                is the box there?

Exit status: 0 when the box acknowledged every command; 1 when it could not be opened, or
did not acknowledge or rejected a command (each named, with the box's reason: a command it
does not know, an argument out of range, a seat it lacks); 2 for a mistake in what was given
(an option, a command that cannot travel as a line: not printable ASCII, '*', too long;
--file, a --port that names no device).
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    box = subparsers.add_parser(
        "box",
        help="send commands to the referee box, or test its lights and buzzer",
        description=BOX_DESCRIPTION,
        epilog=BOX_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = box.add_subparsers(dest="box_action", metavar="ACTION")
    actions.required = True
    send = actions.add_parser(
        "send",
        help="send commands; exit 0 only if all are acknowledged",
        description=SEND_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    send.add_argument(
        "commands",
        nargs="*",
        metavar="COMMAND",
        help='one command each, quoted as a whole: "LIGHT 0 FF0000" "BUZZ BEEP"',
    )
    send.add_argument(
        "--file",
        type=file_argument,
        help="commands, one a line (a line starting with '#' is a comment); - reads them from "
        "standard input",
    )
    test = actions.add_parser(
        "test",
        help="light every seat, each in its own colour, and beep",
        description="Checks a box: resets it, shows 'nerts box test', beeps, asks which box it "
        "is, lights every seat in its own colour and beeps again. Prints 'box OK' and exits 0 "
        "only if the box took every command and neither reset nor lost its link on the way.",
    )
    for parser in (send, test):
        parser.add_argument("--port", required=True, metavar="URL", help="the box's pyserial URL")
        parser.add_argument(
            "--timeout",
            type=send_timeout,
            default=DEFAULT_SEND_TIMEOUT_S,
            metavar="S",
            help=(
                "seconds to wait for every acknowledgement "
                f"(default {DEFAULT_SEND_TIMEOUT_S:g}, at most {MAX_SEND_TIMEOUT_S:g})"
            ),
        )
    send.set_defaults(handler=run_send)
    test.set_defaults(handler=run_test)


USB_PORTS_SAID = (
    f"a USB box is usually /dev/ttyUSB0 or /dev/ttyACM0; --port {AUTO_URL} looks for it"
)
"""Where a box plugged in is found, said with a --port that names none."""


def refuse_no_device(option: str, url: str) -> None:
    """A `UserError` where `url` names a file or a folder: a serial port is a device, and the
    driver would wait for a box there until its time ran out."""
    for kind, found in (("file", os.path.isfile), ("folder", os.path.isdir)):
        if "://" not in url and found(url):
            where = USB_PORTS_SAID.replace("--port", option)
            raise UserError(f"{option} {url!r} is a {kind}, not a serial device ({where})")


def _driver_url(url: str) -> str:
    try:
        checked = check_url(url)
    except ValueError as error:
        raise UserError(f"--port {error}") from None
    # The driver would try to open it again and again until --timeout, waiting for a box
    # plugged in: these commands are one try, so a mistyped device is said at once.
    refuse_no_device("--port", url)
    if "://" not in url and url != AUTO_URL and not os.path.exists(url):
        raise UserError(
            f"--port {url!r}: no such device; is the box plugged in? ({USB_PORTS_SAID})"
        )
    return checked


COMMANDS_FILE_BYTES_MAX = 1 << 20
"""The most --file may hold: tens of thousands of commands, and never all of a stream without
end read into memory."""


def _read_commands(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The commands given as arguments, then those of --file, each with where it was given
    ("FILE:LINE: ", or "" for an argument); a bad one is named there (a file's comment lines
    start with '#': a '#' further on is text, as SHOW may print it)."""
    given = [("", text) for text in args.commands]
    if args.file is not None:
        piped = str(args.file) == "-"
        name = "standard input" if piped else str(args.file)
        try:
            if piped:
                data = sys.stdin.buffer.read(COMMANDS_FILE_BYTES_MAX + 1)
            else:
                with args.file.open("rb") as handle:
                    data = handle.read(COMMANDS_FILE_BYTES_MAX + 1)
        except OSError as error:
            raise UserError(
                f"cannot read commands from {name}: {error.strerror or error}"
            ) from None
        if len(data) > COMMANDS_FILE_BYTES_MAX:  # /dev/zero, or a stream that never ends
            raise UserError(
                f"{name} holds over {COMMANDS_FILE_BYTES_MAX >> 20} MB: not a file of box "
                "commands (one a line)"
            )
        if data.startswith(UTF16_MARKS):  # PowerShell 5's '>'
            raise UserError(f"{name} is UTF-16 text: save it as UTF-8")
        if b"\0" in data:  # a video or a picture given by mistake: not its bytes on the screen
            raise UserError(f"{name} is not a text file of commands (one a line)")
        # A Windows editor starts the file with a byte-order mark.
        for number, raw in enumerate(data.removeprefix(codecs.BOM_UTF8).splitlines(), start=1):
            # Decoded, not refused, so that the check below names the command at fault.
            line = raw.decode("utf-8", errors="replace").strip()
            if line and not line.startswith("#"):
                given.append((f"{name}:{number}: ", line))
    if not given:
        raise UserError("no commands: give them as arguments or with --file")
    for where, command in given:
        try:
            check_command_text(command)
        except ValueError as error:
            raise UserError(f"{where}{error}") from error
    return given


STOPPED_LISTED = 3
"""Interrupted, `box send` names this many of the commands the box has not answered."""
UNANSWERED_LISTED = 5
"""Commands not acknowledged in time named one a line; the rest are counted (a box unplugged
during a --file of 20,000 commands said 19,000 lines)."""


NOT_A_TTY_SAID = os.strerror(errno.ENOTTY)
"""How the system says a device is no terminal, so no serial port (/dev/null)."""


ABSENT_HINT = "; is the box plugged in (or its emulator, 'nerts box-emulator', running)?"
"""The hint for a port that could not be opened for no reason said more plainly."""


def _open_hint(error: str) -> str:
    """What to do about a port that could not be opened, by why (`BoxDriver.open_error`)."""
    if error.endswith(IN_USE_SAID):
        return "; close the other program using it (a serial monitor, another nerts)"
    if NOT_A_TTY_SAID in error:
        return f"; it is not a serial port ({USB_PORTS_SAID})"
    return ABSENT_HINT


def _opened_never(driver: BoxDriver) -> bool:
    """Whether the port failed to open for a reason trying again will not mend while these
    commands wait: no serial port at all, or one another program holds (the person must close
    it, and hears so at once rather than after --timeout)."""
    error = driver.open_error
    return not driver.connections and error is not None and _open_hint(error) != ABSENT_HINT


def _wait_interruptibly(
    deliveries: list[Delivery], timeout: float, hopeless: Callable[[], bool] = lambda: False
) -> None:
    """`concurrent.futures.wait` in steps of `INTERRUPT_POLL_S`, so that Ctrl-C stops it at once;
    no longer once `hopeless()` says no answer can come."""
    deadline = time.monotonic() + timeout
    pending = [delivery for delivery in deliveries if not delivery.done()]
    while pending and not hopeless() and (left := deadline - time.monotonic()) > 0:
        wait(pending, timeout=min(INTERRUPT_POLL_S, left))
        pending = [delivery for delivery in pending if not delivery.done()]


def _report(
    driver: BoxDriver,
    deliveries: list[Delivery],
    texts: list[str],
    timeout: float,
    places: list[str] | None = None,
) -> int:
    """Wait for the deliveries; say what failed, where it was given (`places`, "FILE:LINE: "
    for each text); 0 only if every command was acknowledged."""
    try:
        _wait_interruptibly(deliveries, timeout, partial(_opened_never, driver))
    except KeyboardInterrupt:
        waiting = [
            f"{place}{text}"
            for text, delivery, place in zip(
                texts, deliveries, places or [""] * len(texts), strict=True
            )
            if not delivery.done()
        ]
        ran = " (the first may have run)" if driver.connections else ""
        log.warning(
            "stopped: %d of %d commands answered%s",
            len(texts) - len(waiting),
            len(texts),
            f"; not answered{ran}: {first_few(waiting, STOPPED_LISTED, '; ')}" if waiting else "",
        )
        raise
    if not driver.connections:  # one line, not one per command never sent
        # No reason yet: the first try to open it has not ended ('auto' asks every port).
        searched = driver.url == AUTO_URL
        still = "looking" if searched else "opening it"
        why = driver.open_error or f"still {still} after {timeout:g} s; --timeout gives more"
        hint = _open_hint(driver.open_error) if driver.open_error else ""
        failure = "found no box" if searched else f"could not open {driver.url}"
        log.error("%s (%s): nothing was sent%s", failure, why, hint)
        return FAILURE_STATUS
    failed = 0
    unanswered: list[str] = []
    for text, delivery, place in zip(texts, deliveries, places or [""] * len(texts), strict=True):
        if not delivery.done():
            failed += 1
            unanswered.append(f"{place}{text}")
            if len(unanswered) <= UNANSWERED_LISTED:
                log.error("%snot acknowledged within %g s: %s", place, timeout, text)
        elif isinstance(delivery.exception(), CommandRejected):
            failed += 1
            log.error("%s%s", place, delivery.exception())
    if len(unanswered) > UNANSWERED_LISTED:
        log.error(
            "and %d more commands not acknowledged within %g s, the last: %s",
            len(unanswered) - UNANSWERED_LISTED,
            timeout,
            unanswered[-1],
        )
    # Of several, which went through matters as much as which did not (a light set, a buzz not).
    level = logging.ERROR if 0 < failed < len(texts) else logging.INFO
    log.log(level, "%d of %d commands acknowledged", len(texts) - failed, len(texts))
    return FAILURE_STATUS if failed else 0


def run_send(args: argparse.Namespace) -> int:
    places, commands = (list(column) for column in zip(*_read_commands(args), strict=True))
    with BoxDriver(_driver_url(args.port), absent_level=logging.INFO) as driver:
        deliveries = [driver.send(command) for command in commands]
        status = _report(driver, deliveries, commands, args.timeout, places)
        if status == 0:  # said, as `box test` says "box OK": silence looked like nothing sent
            count = len(commands)
            sys.stdout.write(
                f"{count} command{'s' if count > 1 else ''} acknowledged by {driver.url}\n"
            )
        return status


def run_test(args: argparse.Namespace) -> int:
    deadline = time.monotonic() + args.timeout
    with BoxDriver(_driver_url(args.port), absent_level=logging.INFO) as driver:
        if _report(driver, [driver.send("RESET")], ["RESET"], args.timeout):
            return FAILURE_STATUS
        # A box resets as its port opens (an Arduino does), before it acknowledges anything:
        # a reset noticed after the RESET was acknowledged clears what the test shows, and so
        # may a reconnection (a box unplugged and back, whose HELLO was lost meanwhile).
        resets_before, links_before = driver.resets_noticed, driver.connections
        first = ["SHOW nerts box test", "BUZZ BEEP"]
        deliveries = [driver.send(command) for command in first]
        if _report(driver, deliveries, first, max(0.0, deadline - time.monotonic())):
            return FAILURE_STATUS
        asked = 0
        # Its ID line was lost (a noisy link loses one line in five): the handshake again
        # draws another.
        while driver.identity is None and asked < ID_ASKS and time.monotonic() < deadline:
            asked += 1
            left = max(0.0, deadline - time.monotonic())
            if _report(driver, [driver.send("HELLO")], ["HELLO"], left):
                return FAILURE_STATUS
            # The ID line comes after the `ok`, which settled the delivery.
            waited_until = time.monotonic() + ID_LINE_WAIT_S
            while driver.identity is None and time.monotonic() < waited_until:
                time.sleep(INTERRUPT_POLL_S)
        if driver.identity is None:
            log.error(
                "%s acknowledges commands but never says which box it is (no 'ID nertsbox ...' "
                "line, asked %d times): is it a nerts box, and its cable sound?",
                driver.url,
                asked + 1,
            )
            return FAILURE_STATUS
        texts = [
            f"LIGHT {seat} {TEST_COLOURS[seat % len(TEST_COLOURS)]}"
            for seat in range(driver.identity.seats)
        ] + ["BUZZ BEEP"]
        deliveries = [driver.send(command) for command in texts]
        status = _report(driver, deliveries, texts, max(0.0, deadline - time.monotonic()))
        broken = driver.resets_noticed > resets_before or driver.connections > links_before
        if status == 0 and broken:
            log.error(
                "the box reset, or its link dropped, during the test: what it showed may be "
                "gone; check its power and cable, and run the test again"
            )
            return FAILURE_STATUS
        if status == 0:
            sys.stdout.write(
                f"box OK: nertsbox {driver.identity.version}, "
                f"{driver.identity.seats} seats lit, beeped\n"
            )
        return status
