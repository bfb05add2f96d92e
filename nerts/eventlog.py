"""Table events as JSON Lines (contracts/events.md): reading with errors that name file and line,
and a writer whose file is complete up to the last event even when the run stops on an error."""

from __future__ import annotations

import codecs
import difflib
import json
import logging
import math
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from nerts.columns import first_few
from nerts.errors import UserError, cannot_write, make_folder
from referee.errors import RefereeInputError
from referee.event_parsing import EVENT_TYPES, event_from_dict, set_aside_keys
from referee.events import Event, OtherEvent, Play

log = logging.getLogger(__name__)

_ENCODER = json.JSONEncoder(ensure_ascii=False)


class _NotJsonNumber(ValueError):
    pass


def _refuse_constant(name: str) -> float:
    raise _NotJsonNumber(name)


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):  # 1e999: JSON, but a float only as Infinity
        raise _NotJsonNumber(f"{text} (too large)")
    return number


def _one_value_per_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict; `_KeyTwice` where a key is given twice."""
    # Keys and a type's name interned: a live log's tick a frame, held while its round makes no
    # progress, would otherwise keep its own copy of each ("frame", "t", "type", "tick").
    data = {sys.intern(key): value for key, value in pairs}
    kind = data.get("type")
    if isinstance(kind, str):
        data["type"] = sys.intern(kind)
    if len(data) < len(pairs):
        twice = next(key for key, times in Counter(key for key, _ in pairs).items() if times > 1)
        raise _KeyTwice(f"the key {json.dumps(twice)} is given twice: which one counts?")
    return data


class _KeyTwice(ValueError):
    pass


# Python reads NaN and Infinity, which JSON does not have, and 1e999 as Infinity: written back,
# strict readers would fail on the line. Of a key given twice it keeps the last, unsaid: a
# line ("card": "4S", ..., "card": "9H") would be judged as one of two cards.
_DECODER = json.JSONDecoder(
    parse_constant=_refuse_constant, parse_float=_finite, object_pairs_hook=_one_value_per_key
)
_encode_text = json.encoder.encode_basestring  # what _ENCODER writes a string as, quotes included


def event_line(event: Event) -> str:
    """The event as one JSON line, exactly as `json` writes `event.to_dict()`."""
    if type(event) is Play and not event.extras and _plain_numbers(event):
        # Plays are nearly every line of a log; formatting them directly takes a third of the
        # time of building the dict and encoding it (a 100,000-play log: 0.3 s of 2.4).
        line = (
            f'{{"frame": {event.frame}, "t": {event.t!r}, "type": "play", "seat": {event.seat},'
            f' "card": "{event.card}", "pile": {_encode_text(event.pile)}'
        )
        if event.verdict is not None:
            line += f', "verdict": "{event.verdict.value}"'
        if event.reason is not None:
            line += f', "reason": "{event.reason.value}"'
        if event.joker:
            line += ', "joker": true'
        return line + "}\n"
    return _ENCODER.encode(event.to_dict()) + "\n"


def _plain_numbers(play: Play) -> bool:
    """Whether the play's numbers print the same in Python and JSON (not bools, nan or inf)."""
    return (
        type(play.frame) is int
        and type(play.seat) is int
        and (type(play.t) is int or (type(play.t) is float and math.isfinite(play.t)))
    )


STANDARD_INPUT = Path("/dev/stdin")
"""Where a log given as `-` is read from: read as a file, its errors name lines as a file's do."""


def streamed(path: Path) -> bool:
    """Whether `path` is a pipe or a device (standard input piped in, a FIFO a camera tool
    writes): read once, as it is written, not a file whose bytes stay (a missing file, a folder
    or a name too long is told where it is read)."""
    try:
        return path.exists() and not path.is_file() and not path.is_dir()
    except OSError:
        return False


def log_name(path: Path) -> str:
    """How a log is named in messages: one piped in as `<stdin>`, as Python names it."""
    return "<stdin>" if path == STANDARD_INPUT else str(path)


def read_events(path: Path) -> Iterator[Event]:
    """Yields the events of a JSON Lines file in order; blank lines are skipped."""
    for _, event in read_numbered_events(path):
        yield event


LOGS_SUGGESTED = 3
"""How many of a folder's event logs are named where the folder was given as a log."""


def _logs_in(folder: Path) -> str:
    """The event logs a folder given in a log's place holds (`simulate --out` and `demo`
    write one), as a hint; empty where it holds none."""
    try:
        logs = sorted(str(p) for p in folder.glob("*.jsonl") if p.is_file())
    except OSError:  # a folder that cannot be listed: no hint
        return ""
    return f"; the event logs in it: {first_few(logs, LOGS_SUGGESTED)}" if logs else ""


def read_numbered_events(path: Path) -> Iterator[tuple[int, Event]]:
    """Yields (line number, event) pairs, so later errors can still name the line. A log may
    end in a line cut short (one still being written, or whose writer was stopped): that line
    is left out with a warning, the events before it count. (Added to a score sheet, such a
    log's rounds are known as themselves: the whole log, added later, adds only the rest.)"""
    name = log_name(path)
    if path.is_dir():
        raise UserError(f"cannot read {name}: it is a folder{_logs_in(path)}")
    try:
        handle = path.open("rb")
    except OSError as error:
        raise UserError(f"cannot read {name}: {error.strerror or error}") from None
    told: set[str] = set()
    told_keys: set[tuple[str, str]] = set()  # (type, key) of extension keys set aside
    checked = False
    with handle:
        # Decoded line by line, not by the text reader's chunks, so that an error names its line.
        for line_number, raw in enumerate(_lines(handle, name), start=1):
            if blank_line(raw):
                continue
            if not checked:  # blank lines before the first hide nothing of what it is
                _check_text(name, raw)
                checked = True
            try:
                data = json_line(raw, name, line_number)
            except UserError:
                if raw.endswith(b"\n") or line_number == 1 or not _cut_off(raw):
                    raise
                # Only the last line can lack its line break: a log still being written, or
                # one whose writer was stopped mid-line. The events before it still count.
                log.warning(
                    "%s:%d: the last line is cut short (a log still being written, or its "
                    "writer stopped): left out",
                    name,
                    line_number,
                )
                return

            try:
                event = event_from_dict(data)
            except RefereeInputError as error:
                if _score_sheet_start(data):
                    raise UserError(
                        f"{name} is a score sheet ('nerts scores'), not a log of table events"
                    ) from None
                raise UserError(f"{name}:{line_number}: {error}") from None
            if isinstance(event, OtherEvent) and event.type not in told:
                told.add(event.type)
                _tell_if_mistyped(event.type, f"{name}:{line_number}")
            for key in set_aside_keys(event):
                if (event.type_name, key) not in told_keys:
                    told_keys.add((event.type_name, key))
                    log.warning(
                        "%s:%d: %s's %r is not in the form this referee writes it: taken "
                        "for another tool's key, and not judged",
                        name,
                        line_number,
                        event.type_name,
                        key,
                    )
            yield line_number, event


LOG_LINE_BYTES_MAX = 1 << 20
"""The longest line a log may hold: an event is a few hundred bytes, a tool's diagnostics
added to one may be more; a line with no end (`/dev/zero`, a stream of binary data) must not
be read whole into memory before it is refused."""


def _lines(handle: IO[bytes], name: str) -> Iterator[bytes]:
    """The lines of `handle`, each refused once longer than `LOG_LINE_BYTES_MAX`."""
    number = 0
    while raw := handle.readline(LOG_LINE_BYTES_MAX + 1):
        number += 1
        if len(raw) > LOG_LINE_BYTES_MAX:
            raise UserError(
                f"{name}:{number}: a line longer than {LOG_LINE_BYTES_MAX >> 20} MB: not a log "
                f"of table events; {JSON_LINES_SAID}"
            )
        yield raw


UTF16_MARKS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
"""How a UTF-16 text file begins (Windows PowerShell 5 writes its redirected output so)."""


PICTURE_SIGNATURES = (b"\x89PNG\r\n", b"\xff\xd8\xff", b"GIF8")
"""How PNG, JPEG and GIF files begin: binary data whose first line may hold no NUL byte."""


def _check_text(name: str, first: bytes) -> None:
    """A `UserError` naming what a log's first line shows it is, where that is not UTF-8
    text: UTF-16 text, or a file of binary data (a NUL byte: a video, a picture)."""
    if first.startswith(UTF16_MARKS):
        raise UserError(f"{name} is UTF-16 text: save it as UTF-8; {JSON_LINES_SAID}")
    if b"\0" in first or first.startswith(PICTURE_SIGNATURES):
        raise UserError(
            f"{name}: not a log of table events but binary data (a video or a picture? "
            "Footage is not yet followed into events: referee a log of them, such as the "
            f"truth.jsonl 'nerts simulate' writes beside its video); {JSON_LINES_SAID}"
        )


def _cut_off(last: bytes) -> bool:
    """Whether a last line without its line break is JSON cut off (its parse fails only at
    its very end), not a line written wrong (a missing comma fails before its end)."""
    text = last.decode("utf-8", errors="replace").removeprefix("\ufeff").rstrip()
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        # A string cut off is said where it starts; anything else where the parse stopped.
        return error.msg.startswith("Unterminated string") or error.pos >= len(text)
    except ValueError:
        return False
    return False


MISTYPED_SIMILARITY_MIN = 0.7
"""An event type this like a known one (`difflib`'s ratio) is taken for a typo of it and
warned of: other types are ignored quietly, as the contract lets tools add their own
('plya' is 0.75 like 'play'; 'play_seen' 0.62)."""


def _tell_if_mistyped(kind: str, where: str) -> None:
    """Warns where an unknown event type looks like a typo of a known one: ignored as the
    contract says, it would change the verdicts without a word."""
    # Compared in lower case: 'PLAY' is as sure a slip as 'plya'.
    near = difflib.get_close_matches(kind.lower(), EVENT_TYPES, n=1, cutoff=MISTYPED_SIMILARITY_MIN)
    if near:
        log.warning(
            "%s: event type %r is not one the referee knows, so every event of it is ignored: "
            "did you mean %r?",
            where,
            kind,
            near[0],
        )


def _score_sheet_start(data: object) -> bool:
    """Whether a line that is no event is how a score sheet starts (`nerts scores new`)."""
    return isinstance(data, dict) and data.get("type") == "game" and "players" in data


JSON_LINES_SAID = "the file must hold one JSON object per line (JSON Lines)"
"""How the form of a log or a score sheet is told where a file is not in it."""


def blank_line(raw: bytes) -> bool:
    """Whether a line holds nothing but white space (after a byte-order mark, which an editor
    may write before a file's first, blank, line)."""
    return not raw.removeprefix(codecs.BOM_UTF8).strip()


def json_line(raw: bytes, name: str, line_number: int) -> object:
    """One line of a JSON Lines file, parsed; errors name the file, `name`, and the line."""
    # Windows editors start a file with a byte-order mark; two such files joined hold one
    # in the middle.
    raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        # Not "utf-8-sig" on every line: that codec's Python-level decoder took a third of
        # the time of reading a long log.
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{name}:{line_number}: not UTF-8 text") from None
    try:
        data = _DECODER.decode(line)
    except _NotJsonNumber as error:
        raise UserError(f"{name}:{line_number}: {error} is not a number a float holds") from None
    except _KeyTwice as error:
        raise UserError(f"{name}:{line_number}: {error}") from None
    except json.JSONDecodeError as error:
        # A pretty-printed file or a JSON array opens with a bracket alone on its line.
        hint = f"; {JSON_LINES_SAID}" if line.strip() in ("{", "[") else ""
        if "\r" in line.rstrip("\r\n"):  # lines ended by a carriage return alone read as one
            hint = (
                "; its lines end in a carriage return alone (classic Mac OS): save it with "
                "Unix (LF) or Windows (CR LF) line ends"
            )
        raise UserError(f"{name}:{line_number}: not valid JSON ({error.msg}){hint}") from None
    except RecursionError:
        raise UserError(f"{name}:{line_number}: JSON nested too deeply") from None
    except ValueError:  # Python refuses to convert integers of thousands of digits
        raise UserError(f"{name}:{line_number}: a number in it is too long") from None
    # UTF-8 text holds no half characters, but an escape can ("\\udc80"): written back, or
    # printed, it would stop the run.
    if "\\ud" in line.lower():
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as error:
            half = error.object[error.start : error.end].encode("unicode_escape").decode("ascii")
            raise UserError(
                f"{name}:{line_number}: holds {half}, an escape of half a character, not text"
            ) from None
    return data


def looks_like_event(data: object) -> bool:
    """Whether a parsed JSON line is shaped as a table event (a frame and a type)."""
    return isinstance(data, dict) and "frame" in data and "type" in data


FIRST_LINE_READ_MAX = 1 << 20
"""Bytes of a file's first line read to tell whether it is a log of table events: an event is
a line of a hundred bytes or so, while a photo need hold no line break for megabytes."""


def _first_line_data(path: Path) -> tuple[bool, object]:
    """Whether a file holds a line that is not blank, and that first line parsed (None where it
    is not JSON); (False, None) for an empty file, one that cannot be read, or no file."""
    if not path.is_file():
        return False, None
    try:
        with path.open("rb") as handle:
            first = b""
            while blank_line(first):
                first = handle.readline(FIRST_LINE_READ_MAX)
                if not first:
                    return False, None  # empty, or only blank lines
    except OSError:
        return False, None  # said by whoever opens it next, which cannot either
    try:
        return True, json.loads(first.removeprefix(codecs.BOM_UTF8))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return True, None


def holds_events(path: Path) -> bool:
    """Whether `path` is a log of table events: its first line that is not blank is one."""
    found, data = _first_line_data(path)
    return found and looks_like_event(data)


def refuse_replacing_other_than_events(path: Path) -> None:
    """A `UserError` where `path` holds something other than table events (a score sheet, a
    photo, notes): the writer would replace it. An empty file, a log of events (the last run's
    output, written again) and devices such as /dev/null are written freely."""
    found, data = _first_line_data(path)
    if not found or looks_like_event(data):
        return
    kind = (
        "a score sheet ('nerts scores')" if _score_sheet_start(data) else "no log of table events"
    )
    raise UserError(
        f"{path} is {kind}: writing the events would replace it; name another file, or remove "
        "it first"
    )


class EventWriter:
    """Writes events one JSON object per line to `path` (None: counts them only), never over
    a file of another kind; use as a context manager, which closes the file complete up to the
    last event, errors or not."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._stream: IO[str] | None = None
        self.count = 0

    def __enter__(self) -> EventWriter:
        if self.path is not None:
            refuse_replacing_other_than_events(self.path)
            make_folder(self.path.parent)
            try:
                self._stream = self.path.open("w", encoding="utf-8")
            except OSError as error:
                raise self._cannot_write(error) from None
        return self

    def _cannot_write(self, error: OSError) -> Exception:
        """The error to raise for `error`, met writing the file (`nerts.errors.cannot_write`)."""
        return cannot_write(Path(str(self.path)), error)

    def write(self, event: Event) -> None:
        if self._stream is not None:
            try:
                self._stream.write(event_line(event))
            except OSError as error:  # a full disk: said naming the file, not a traceback
                raise self._cannot_write(error) from None
        self.count += 1

    def write_all(self, events: Iterable[Event]) -> None:
        """Writes each of `events` in turn (`write`)."""
        for event in events:
            self.write(event)

    def flush(self) -> None:
        """Hands what was written to the system: a tool reading the file live sees it now."""
        if self._stream is not None:
            try:
                self._stream.flush()
            except OSError as error:
                raise self._cannot_write(error) from None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._stream is None:
            return
        try:
            self._stream.close()
        except OSError as error:
            if exc is None:  # else the error that stopped the run is the one to tell
                raise self._cannot_write(error) from None
            return
        log.info("wrote %d events to %s", self.count, self.path)
