"""`nerts box-emulator`: a software referee box, shown in the terminal."""

from __future__ import annotations

import argparse
import sys
import threading

from hardware.device import DEFAULT_SEATS, MAX_SEATS, BoxDevice
from hardware.emulator import PtyEmulator, TcpEmulator
from hardware.faults import FaultPlan, FaultyDevice
from hardware.ports import MAX_TCP_PORT
from hardware.terminal import TerminalDisplay, in_foreground, read_keys
from nerts.commands.box import INTERRUPT_POLL_S
from nerts.errors import UserError

# The emulator's fault options, by the FaultPlan field each sets.
FAULT_OPTIONS = {
    "corrupt_rate": "--corrupt",
    "lose_reply_rate": "--lose",
    "reset_every": "--reset-every",
}
EMULATOR_DESCRIPTION = """\
Runs a software referee box, the device side of the protocol, on a new pseudo-terminal (--pty,
the default) or a TCP port (--tcp PORT), and shows it in the terminal: seat lights in colour,
the display text, buzzes as they happen. Keys 0-7 press a seat's Nerts! button, r resets the
box, q quits. Faults can be injected (seeded, so runs repeat) for tests and demos.
"""
EMULATOR_EPILOG = """\
examples:
  nerts box-emulator --tcp 7000
  nerts box-emulator --pty --corrupt 0.02 --lose 0.02 --reset-every 20
"""


def tcp_port(text: str) -> int:
    """argparse type of --tcp: a TCP port number, 0 (any free port) to `MAX_TCP_PORT`."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= MAX_TCP_PORT:
        raise argparse.ArgumentTypeError(f"must be 0 to {MAX_TCP_PORT}, not {port}")
    return port


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    emulator = subparsers.add_parser(
        "box-emulator",
        help="run a software referee box on a pty or TCP port, shown in the terminal",
        description=EMULATOR_DESCRIPTION,
        epilog=EMULATOR_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    where = emulator.add_mutually_exclusive_group()
    where.add_argument("--pty", action="store_true", help="serve on a new pty (the default)")
    where.add_argument("--tcp", type=tcp_port, metavar="PORT", help="serve on this TCP port")
    emulator.add_argument("--host", default="127.0.0.1", help="TCP address (default 127.0.0.1)")
    emulator.add_argument(
        "--seats", type=int, default=DEFAULT_SEATS, help="seats, 1-8 (default %(default)s)"
    )
    emulator.add_argument(
        "--corrupt",
        type=float,
        default=0.0,
        metavar="RATE",
        help="probability that each byte, either way, is corrupted",
    )
    emulator.add_argument(
        "--lose",
        type=float,
        default=0.0,
        metavar="RATE",
        help="probability that each reply is lost",
    )
    emulator.add_argument(
        "--reset-every",
        type=int,
        default=0,
        metavar="N",
        help="reset the box after every N executed commands (HELLO handshakes not counted)",
    )
    emulator.add_argument("--seed", type=int, default=0, help="seed of the injected faults")
    emulator.add_argument(
        "--no-colour",
        action="store_true",
        help="no terminal colours (none either where the output is no terminal)",
    )
    emulator.set_defaults(handler=run_emulator)


def run_emulator(args: argparse.Namespace) -> int:
    if not 1 <= args.seats <= MAX_SEATS:
        raise UserError(f"--seats must be 1 to {MAX_SEATS}")
    try:
        plan = FaultPlan(args.corrupt, args.lose, args.reset_every, args.seed)
    except ValueError as error:  # FaultPlan names its fields; the user knows the options
        message = str(error)
        for field, option in FAULT_OPTIONS.items():
            message = message.replace(field, option)
        raise UserError(message) from None
    device = BoxDevice(seats=args.seats)
    # Colours are terminal escapes: written to a file or a pipe, they would be noise in it.
    colour = not args.no_colour and sys.stdout.isatty()
    display = TerminalDisplay(device.state, sys.stdout, colour=colour)
    stop = threading.Event()
    display_failed: list[OSError] = []

    def show_command(text: str) -> None:
        # On the serving thread: its output gone ('| head', a full disk), the emulator stops,
        # rather than serve on with a dead thread and answer no host.
        try:
            display.show_command(text)
        except OSError as error:
            display_failed.append(error)
            stop.set()

    device.on_command = show_command
    faulty = FaultyDevice(device, plan)
    try:
        frontend = (
            TcpEmulator(faulty, args.tcp, args.host)
            if args.tcp is not None
            else (PtyEmulator(faulty))
        )
    except OSError as error:
        raise UserError(f"cannot open the emulator's port: {error}") from error
    with frontend:
        display.show(f"nerts box emulator ({args.seats} seats) on {frontend.url}")
        keys = sys.stdin.isatty()
        if keys and not in_foreground(sys.stdin):
            display.show("keys are read once the emulator is in the foreground ('fg')")
        # Started in the background ('&'), it reads keys once brought to the foreground.
        while not stop.is_set():
            if keys and in_foreground(sys.stdin):
                display.show(f"keys: 0-{args.seats - 1} seat button, r reset, q quit")
                read_keys(
                    frontend.press_button,
                    frontend.reset,
                    stop,
                    args.seats,
                    sys.stdin,
                    say=display.show,
                )
                break
            stop.wait(INTERRUPT_POLL_S)
    if display_failed:
        raise display_failed[0]  # told as the command line tells a closed pipe or a full disk
    return 0
