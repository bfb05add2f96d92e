"""The `nerts` command line: parses arguments, configures logging, dispatches to a command."""

from __future__ import annotations

import argparse
import copy
import errno
import importlib
import itertools
import logging
import os
import re
import signal
import sys
import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from shlex import quote
from typing import Any

from tqdm import tqdm

from nerts.errors import (
    DISK_FULL_ERRNOS,
    FAILURE_STATUS,
    USER_ERROR_STATUS,
    UserError,
    backs_go_after_backs,
    escape_unreadable_output,
    file_argument,
    make_folder,
    names_a_file,
    resolved,
    stdout_to_devnull,
    too_long_said,
)
from nerts.limits import DECODE_PIXELS_MAX

DISTRIBUTION = "nerts-referee"
"""The name this project is installed under (pyproject.toml)."""

COMMANDS = {
    "demo": "nerts.commands.demo",
    "referee": "nerts.commands.referee",
    "scores": "nerts.commands.scores",
    "simulate": "nerts.commands.simulate",
    "identify": "nerts.commands.identify",
    "count": "nerts.commands.count",
    "box": "nerts.commands.box",
    "box-emulator": "nerts.commands.box_emulator",
}
"""Each command and the module that registers it, in the order --help shows them. A command
given first is parsed with its own module alone: `referee` and `scores` then start without
OpenCV and numpy (40 MB and half a second here; seconds on a Raspberry Pi)."""
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))
NO_VALUE_OPTIONS = {"-v", "-vv", "-vvv", "--verbose"}
"""nerts' own options that take no value: the command may follow them and still be found."""

DESCRIPTION = """\
A camera referee for the card game Nerts.

It checks every foundation play, decides races by frame order, tells players through a
serial buzzer/light box, and counts the score by deck back at the end of each round.
"""

EPILOG = """\
examples:
  nerts demo                          film a simulated round, referee it, show the scoreboard
  nerts referee game.jsonl --out ev.jsonl --target 150
  nerts scores club.jsonl add Anna=12 Ben=2 Cleo=-6
  nerts simulate --out sim --players 4 --seed 7 --race-rate 0.5
  nerts identify table.jpg --annotate found.png
  nerts count centre.jpg --backs anna=anna-back.jpg ben=ben-back.png
run 'nerts COMMAND --help' for the options of each command.
"""


def build_parser(named: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: of the command `named` alone where one is, else of them all."""
    parser = argparse.ArgumentParser(
        prog="nerts",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _logging_options(parser, verbose_dest="verbose", default=None)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module_name in (COMMANDS[named],) if named in COMMANDS else COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    # Also after the command ('nerts count ... -v', 'nerts box send ... -v'), where people put
    # them: counted there apart, and added to what was given before the command.
    for command in _commands(subparsers):
        _logging_options(command, verbose_dest="verbose_after", default=argparse.SUPPRESS)
        # The innermost command's default is set last: 'box send' over 'box'.
        command.set_defaults(command_parser=command)
    return parser


def _version() -> str:
    """The installed package's version; 'unknown' when run from a tree not installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def _commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> list[argparse.ArgumentParser]:
    """Every command's parser, those of subcommands ('box send') included."""
    found = []
    for command in subparsers.choices.values():
        found.append(command)
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                found.extend(_commands(action))
    return found


def _logging_options(parser: argparse.ArgumentParser, verbose_dest: str, default: object) -> None:
    """-v and --log-file on `parser`; `default` None on the top level (no -v, no log file),
    `argparse.SUPPRESS` on commands, so that not giving them there changes nothing."""
    parser.add_argument(
        "-v",
        "--verbose",
        dest=verbose_dest,
        action="count",
        default=0 if default is None else default,
        help="more log output (-vv for debug)",
    )
    parser.add_argument(
        "--log-file",
        default=default,
        type=file_argument,
        help="also write the full debug log to this file",
    )


def verbosity_of(args: argparse.Namespace) -> int:
    """How many -v were given, before the command and after it."""
    return int(args.verbose) + int(getattr(args, "verbose_after", 0))


LOG_RECORD_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_LOG_LINE_START = re.compile(rb"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ ")
"""How each line `LOG_RECORD_FORMAT` writes begins: the time and the level."""


def refuse_logging_into_other_files(path: Path) -> None:
    """A `UserError` where `path` holds something other than an earlier --log-file (a photo, an
    events file, a score sheet): the log is appended to it, which would spoil it."""
    if not path.is_file():
        return
    try:
        with path.open("rb") as handle:
            start = handle.read(64)
    except OSError:
        return  # said when the log is opened
    if start and not _LOG_LINE_START.match(start):
        raise UserError(
            f"--log-file {path} holds something other than a nerts log, which the log would be "
            "appended to: name another file"
        )


def refuse_logging_into_files_used(log_file: Path, args: argparse.Namespace) -> None:
    """A `UserError` where the log file is also a file or folder the command is given (its
    input, --out, --annotate, --sheet) or writes in its --out folder (`files_written`, a
    command's default): opened first, the log would be written into it."""
    values = [value for name, value in vars(args).items() if name != "log_file"]
    given = [value for value in values if isinstance(value, Path)]
    given += [v for value in values if isinstance(value, list) for v in value]
    written = args.files_written(args) if hasattr(args, "files_written") else []
    target = resolved(log_file)
    for path, how in [*((p, "is given") for p in given), *((p, "writes") for p in written)]:
        if isinstance(path, Path) and resolved(path) == target:
            raise UserError(
                f"--log-file {log_file} is also a file the command {how} ({path}): name "
                "another file for the log"
            )


class LogFileHandler(logging.FileHandler):
    """The --log-file: where it cannot be written (a full disk), said once in one line, not a
    traceback for every record; `failed` tells the command line to end with status 1."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8")
        self.failed = False

    def handleError(self, record: logging.LogRecord) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, OSError):
            self._fail(error)
        else:  # a record that cannot be formatted is a fault of ours: logging's own report
            super().handleError(record)

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as error:
            self._fail(error)

    def close(self) -> None:
        # logging.shutdown skips closing a handler whose flush failed; a later close (the
        # next basicConfig) would then raise from the still-unwritten buffer.
        try:
            super().close()
        except OSError as error:
            self._fail(error)

    def _fail(self, error: OSError) -> None:
        if not self.failed:
            why = error.strerror or error
            sys.stderr.write(
                f"nerts: error: cannot write the log file {self.baseFilename}: {why}\n"
            )
        self.failed = True


class ConsoleHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Messages on the terminal, each on a line of its own: a progress bar drawn there is
    cleared for it and drawn again under it."""

    def emit(self, record: logging.LogRecord) -> None:
        with tqdm.external_write_mode(file=self.stream):
            super().emit(record)


class ConsoleFormatter(logging.Formatter):
    """Messages on the terminal: "warning: ..." for the players; with -v or -vv, which part
    of the program said it too ("WARNING nerts.commands.count: ...")."""

    def __init__(self, verbosity: int) -> None:
        super().__init__("%(levelname)s %(name)s: %(message)s" if verbosity else None)
        self.plain = not verbosity

    def format(self, record: logging.LogRecord) -> str:
        if not self.plain:
            return super().format(record)
        # A copy: the log file's handler formats the same record after this one.
        said = copy.copy(record)
        said.msg, said.args = f"{record.levelname.lower()}: {record.getMessage()}", None
        return super().format(said)


def configure_logging(verbosity: int, log_file: Path | None) -> None:
    level = [logging.WARNING, logging.INFO, logging.DEBUG][min(verbosity, 2)]
    console = ConsoleHandler(sys.stderr)
    console.setLevel(level)
    console.setFormatter(ConsoleFormatter(verbosity))
    handlers: list[logging.Handler] = [console]
    if log_file is not None:
        make_folder(log_file.parent)
        refuse_logging_into_other_files(log_file)
        try:
            file_handler = LogFileHandler(log_file)
        except OSError as error:
            raise UserError(f"cannot write {log_file}: {error.strerror or error}") from None
        file_handler.setLevel(logging.DEBUG)
        file_handler.setFormatter(logging.Formatter(LOG_RECORD_FORMAT))
        handlers.append(file_handler)
    logging.basicConfig(
        level=logging.DEBUG if log_file is not None else level, handlers=handlers, force=True
    )


BROKEN_PIPE_STATUS = 141
"""Exit status when the output's reader went away, as a shell reports a process SIGPIPE ended."""


SIGNAL_STATUS_BASE = 128
"""A run ended by a signal exits with this plus the signal's number, as a shell reports it."""
STOPPING_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""Signals that end a run as Ctrl-C does (`kill`, a closed terminal): what was made so far is
closed and kept (a playable video, the events written), not cut off mid-write."""


def _stop_on_signals(stopped_by: list[int]) -> dict[int, Any]:
    """Makes each of `STOPPING_SIGNALS` raise KeyboardInterrupt, noting its number in
    `stopped_by`; returns the handlers replaced. Only the first signal stops the run: a
    second (a closed terminal may send SIGHUP twice) would cut short the closing of what was
    made. A signal ignored already stays ignored (`nohup`). Only the main thread may handle
    signals (tests run the command line from others)."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def stop(number: int, _frame: object) -> None:
        stopped_by.append(number)
        if len(stopped_by) == 1:
            raise KeyboardInterrupt

    return {
        number: signal.signal(number, stop)
        for number in STOPPING_SIGNALS
        if signal.getsignal(number) is not signal.SIG_IGN
    }


def _stopped(number: int) -> int:
    """Says which signal stopped the run; the exit status a shell gives a run it ended."""
    sys.stderr.write(f"nerts: stopped by {signal.Signals(number).name}\n")
    return SIGNAL_STATUS_BASE + number


def _given_as_a_file(word: str) -> str:
    """How to give a file whose name starts with a dash, which argparse took for an option."""
    return f"{word} is a file: give it as {quote('./' + word)}"


def _command_position(parser: argparse.ArgumentParser, arguments: list[str], command: str) -> int:
    """Where the command's name stands among the arguments: not where the same word is the value
    of an option before it ('nerts --log-file demo --bogus demo')."""
    options = parser._option_string_actions

    def takes_a_value(word: str) -> bool:
        # As argparse reads it: the whole option, or the one option it is the start of.
        named = [word] if word in options else [o for o in options if o.startswith(word)]
        return word.startswith("--") and len(named) == 1 and options[named[0]].nargs != 0

    skip_next = False
    for position, word in enumerate(arguments):
        if skip_next:
            skip_next = False
        elif word == command:
            return position
        else:
            skip_next = takes_a_value(word)
    return arguments.index(command)


def _command_given(arguments: list[str]) -> str | None:
    """The command named first, after nerts' own options of no value; None where another word
    comes first (an option's value could then be taken for a command)."""
    first = next((word for word in arguments if word not in NO_VALUE_OPTIONS), None)
    return first if first in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    # Before the commands' modules import OpenCV, which reads it once: a photo too large to
    # use is refused from its header, not decoded into gigabytes first.
    os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(DECODE_PIXELS_MAX))
    # OpenCV's own log says of a broken photo what the commands say in their error, less
    # plainly ("readHeader IHDR chunk shall be first"); OPENCV_LOG_LEVEL=INFO shows it again.
    os.environ.setdefault("OPENCV_LOG_LEVEL", "SILENT")
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:  # closed by the caller ('>&-'): what goes there is lost
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
    escape_unreadable_output()
    arguments = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser(_command_given(arguments))  # imports OpenCV: a second or so
    except KeyboardInterrupt:  # Ctrl-C as it starts: no command has begun
        sys.stderr.write("nerts: interrupted\n")
        return SIGNAL_STATUS_BASE + signal.SIGINT
    if not arguments:  # a newcomer typing 'nerts': what it can do, not a missing-argument error
        parser.print_help(sys.stderr)
        return USER_ERROR_STATUS
    try:
        args, unknown = parser.parse_known_args(arguments)
    except SystemExit as stopped:  # argparse said what is missing: a file taken for an option?
        files = [word for word in arguments if word.startswith("-") and names_a_file(word)]
        if files and stopped.code != 0:
            sys.stderr.write(f"nerts: {_given_as_a_file(files[0])}\n")
        raise
    take_loose_words = getattr(args, "take_loose_words", None)
    if unknown and take_loose_words and not any(word.startswith("-") for word in unknown):
        take_loose_words(args, unknown)  # a command's values given after one of its options
        unknown = []
    if unknown:
        # An option typed before the command is nerts' own mistake ('nerts --bogus demo');
        # after it, told with the command's own usage, as its other mistakes are.
        before_command = _command_position(parser, arguments, args.command) > arguments.index(
            unknown[0]
        )
        owner = parser if before_command else args.command_parser
        files = [w for w in unknown if w.startswith("-") and names_a_file(w) and not before_command]
        hint = f" ({_given_as_a_file(files[0])})" if files else ""
        # The words before any unknown option: those after one are likely its values.
        loose = list(itertools.takewhile(lambda word: not word.startswith("-"), unknown))
        backs = [word for word in loose if "=" in word]
        if backs and not hint and hasattr(args, "backs"):  # none given, or one by --backs=...
            every = [*(args.backs or []), *backs]
            hint = f" ({backs_go_after_backs(every)})"
        photos = [word for word in loose if names_a_file(word)]
        if photos and not hint and isinstance(getattr(args, "image", None), Path):
            hint = f" ({args.command} reads one photo: run it once for each)"
        owner.error(f"unrecognized arguments: {' '.join(unknown)}{hint}")
    try:
        if args.log_file is not None:
            refuse_logging_into_files_used(args.log_file, args)
        configure_logging(verbosity_of(args), args.log_file)
    except UserError as error:
        sys.stderr.write(f"nerts: error: {error}\n")
        return USER_ERROR_STATUS
    stopped_by: list[int] = []  # the signal that ended the run as Ctrl-C would, if any
    previous = _stop_on_signals(stopped_by)
    try:
        status: int = args.handler(args)
    except UserError as error:
        sys.stderr.write(f"nerts {args.command}: error: {error}\n")
        return USER_ERROR_STATUS
    except KeyboardInterrupt:
        if stopped_by:
            return _stopped(stopped_by[0])
        sys.stderr.write("nerts: interrupted\n")
        return SIGNAL_STATUS_BASE + signal.SIGINT
    except BrokenPipeError:  # the reader stopped early ('nerts demo --example | head')
        stdout_to_devnull()
        return BROKEN_PIPE_STATUS
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:  # a name no file can have: the user's to mend
            sys.stderr.write(f"nerts {args.command}: error: {too_long_said(error.filename)}\n")
            return USER_ERROR_STATUS
        if error.errno not in DISK_FULL_ERRNOS:
            raise
        if error.filename is None:  # the output itself, not a file named
            stdout_to_devnull()
        sys.stderr.write(
            f"nerts {args.command}: error: cannot write {error.filename or 'the output'}: "
            f"{error.strerror}\n"
        )
        return FAILURE_STATUS
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        logging.shutdown()
    if stopped_by:  # the command caught the interrupt itself (to stop waiting for the box)
        return _stopped(stopped_by[0])
    log_files = [h for h in logging.getLogger().handlers if isinstance(h, LogFileHandler)]
    # The run's own work is done, but the log asked for was not all written.
    failed = status == 0 and any(handler.failed for handler in log_files)
    return FAILURE_STATUS if failed else status
