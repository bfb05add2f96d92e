"""`BoxAnnouncer`: tells the players, through the referee box, what the referee decided.

Use (the referee's `--box URL`):

    with BoxAnnouncer("/dev/ttyUSB0", seats=4) as box:     # opens the driver; never blocks
        for event in events:                                # plain dicts of contracts/events.md
            box.announce(event)                             # queues commands; never blocks
            for seat in box.button_presses():               # BTN lines since the last call
                ...                                         # the referee's Nerts call for seat
    # on exit: waits up to DRAIN_TIMEOUT_S for the box to acknowledge (Ctrl-C stops waiting),
    # logs what was not shown (`undelivered`, `rejected`), closes

If the box is absent, `__enter__` logs a warning and the driver keeps the commands and retries
the port until the box appears. Button presses arrive as seats on `button_presses()` (a
non-blocking drain of the driver's thread-safe queue) or, if given, on `on_button(seat)`, which is
called on the driver's reader thread and must be quick.

What each event sends (`box_commands`); seats are those of the events, colours RRGGBB:
- `round_start`: RESET, SHOW "Round <n>".
- `play` `late`: BUZZ LATE, LIGHT <seat> red. `illegal`: BUZZ ILLEGAL, LIGHT <seat> orange BLINK.
  `accepted`/`tie` from a seat whose light a late or illegal play lit: LIGHT <seat> OFF.
- `nerts_call` valid: NERTS <seat>; not valid: BUZZ ILLEGAL, SHOW "Seat <s> not out", but
  after the round's end nothing (its scores are showing; the referee finds no call valid then).
- `stuck`: BUZZ STUCK, SHOW "Stuck: new stock".
- `round_end`: BUZZ ROUND, SCORE <seat> <game total> for every seat, SHOW the leader ("Seat <s>
  leads <total>", or "Tie 0,2 at <total>", or "4 tie at <total>").
  Totals are the sums of the round scores (and house-rule `bonus`) this announcer has seen since
  the last `game_end`, as the referee's own totals are.
- `game_end`: BUZZ WIN, LIGHT <winner> gold PULSE, SHOW "Seat <s> wins <total>".
Each text fits the contract's 16-character display for totals of -99 to 999 (the reference
firmware's LCD cuts the rest, and "Seat 0 leads: -12" showed a score of -1); anything longer is
cut to fit one line.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from shlex import quote
from typing import Self

from hardware.device import LIGHT_OFF, NERTS_COLOUR
from hardware.driver import BoxClosed, BoxDriver, CommandRejected, Delivery
from hardware.framing import MAX_LINE_BYTES, MAX_SEQUENCE, check_command_text, encode_command
from hardware.lifecycle import Service
from hardware.ports import check_url

log = logging.getLogger(__name__)

# On leaving, how long to wait for the box to acknowledge what is still queued.
DRAIN_TIMEOUT_S = 2.0
LATE_COLOUR = "FF0000"
ILLEGAL_COLOUR = "FF8000"
WINNER_COLOUR = "FFD700"
UNDELIVERED_SHOWN = 5
"""Announcements never delivered named in the closing warning; the rest are counted (a long
log refereed to a silent box left hundreds of thousands, one warning of megabytes)."""


class _MalformedEvent(ValueError):
    """An event given to announce whose keys are not the contract's (a caller's own dict):
    said in a warning and not announced, as a malformed input is."""


# The longest SHOW text a line holds, whatever its number.
SHOW_TEXT_MAX = MAX_LINE_BYTES - len(encode_command(MAX_SEQUENCE, "SHOW "))
# More seats level at the top than this are counted, not named.
LEADERS_NAMED_MAX = 3


def _show(text: str) -> str:
    """A SHOW command of `text`, cut to fit one line, with what the box cannot show replaced."""
    shown = "".join(char if " " <= char <= "~" and char != "*" else "?" for char in text)
    return f"SHOW {shown[:SHOW_TEXT_MAX]}"


def _seat(event: Mapping[str, object], key: str = "seat") -> int:
    value = event.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _MalformedEvent(f"{key} must be a seat number, not {value!r}")
    return value


def _points_by_seat(event: Mapping[str, object], key: str) -> dict[int, int]:
    table = event.get(key)
    if not isinstance(table, Mapping):
        raise _MalformedEvent(f"{key} must be an object keyed by seat")
    points: dict[int, int] = {}
    for seat, value in table.items():
        if not str(seat).isdecimal() or isinstance(value, bool) or not isinstance(value, int):
            raise _MalformedEvent(f"{key} has {seat!r}: {value!r}")
        points[int(seat)] = value
    return points


class BoxCommands:
    """Turns table events into box commands; keeps the little state that needs (lit seats,
    game totals). Pure: no I/O."""

    def __init__(self) -> None:
        self.totals: dict[int, int] = {}
        self._lit: set[int] = set()
        self._game_over = False
        self._round_over = False
        self._called = False  # a valid Nerts call this round: a stuck after it changes nothing

    def for_event(self, event: Mapping[str, object]) -> list[str]:
        """The commands for one event; [] for types the box has nothing to say about."""
        try:
            return self._commands(event)
        except _MalformedEvent as error:
            log.warning("box: event ignored (%s): %r", error, dict(event))
            return []

    def _commands(self, event: Mapping[str, object]) -> list[str]:
        kind = event.get("type")
        if kind == "round_start":
            self._lit.clear()
            self._round_over = self._called = False
            if self._game_over:  # a new game
                self.totals.clear()
                self._game_over = False
            return ["RESET", _show(f"Round {event.get('round', '')}".rstrip())]
        if kind == "play":
            return self._play(_seat(event), event.get("verdict"))
        if kind == "nerts_call":
            seat = _seat(event)
            if event.get("valid") is True:  # the contract asks for it on every valid call
                self._called = True
                # The display said what came before (a false call: "Seat 2 not out").
                return [f"NERTS {seat}", _show(f"Nerts! Seat {seat}")]
            if self._round_over:  # scores are up: a call now changes nothing
                return []
            return ["BUZZ ILLEGAL", _show(f"Seat {seat} not out")]
        if kind == "stuck":
            if self._round_over or self._called:  # the round is over: no new stocks
                return []
            return ["BUZZ STUCK", _show("Stuck: new stock")]
        if kind == "round_end":
            self._round_over = True
            bonus = _points_by_seat(event, "bonus") if "bonus" in event else {}
            return self._round_end(_points_by_seat(event, "scores"), bonus)
        if kind == "game_end":
            winner = _seat(event, "winner")
            totals = _points_by_seat(event, "totals") if "totals" in event else self.totals
            self._game_over = True
            return [
                "BUZZ WIN",
                f"LIGHT {winner} {WINNER_COLOUR} PULSE",
                _show(f"Seat {winner} wins {totals.get(winner, 0)}"),
            ]
        return []

    def _play(self, seat: int, verdict: object) -> list[str]:
        if verdict == "late":
            self._lit.add(seat)
            return ["BUZZ LATE", f"LIGHT {seat} {LATE_COLOUR}"]
        if verdict == "illegal":
            self._lit.add(seat)
            return ["BUZZ ILLEGAL", f"LIGHT {seat} {ILLEGAL_COLOUR} BLINK"]
        if verdict in ("accepted", "tie") and seat in self._lit:
            self._lit.discard(seat)
            return [f"LIGHT {seat} OFF"]
        return []

    def _round_end(self, scores: dict[int, int], bonus: dict[int, int]) -> list[str]:
        for seat, points in scores.items():
            self.totals[seat] = self.totals.get(seat, 0) + points + bonus.get(seat, 0)
        commands = ["BUZZ ROUND"]
        commands += [f"SCORE {seat} {total}" for seat, total in sorted(self.totals.items())]
        if self.totals:
            best = max(self.totals.values())
            leaders = [str(seat) for seat, total in sorted(self.totals.items()) if total == best]
            if len(leaders) == 1:
                who = f"Seat {leaders[0]} leads {best}"
            elif len(leaders) <= LEADERS_NAMED_MAX:
                who = f"Tie {','.join(leaders)} at {best}"
            else:
                who = f"{len(leaders)} tie at {best}"
            commands.append(_show(who))
        return commands


SHOW_AGAIN_TRIES = 3
"""Batches of what the box shows sent again in a row, each cut short by another reset, before
the announcer stops trying until the next reset (and says so)."""


class StandingDisplay:
    """What the box shows that a reset clears (its lights, scores and display), as the last
    commands that set each: sent again after a reset. Buzzes and fanfares pass and are not
    kept. Pure: no I/O."""

    def __init__(self) -> None:
        self._set_by: dict[tuple[str, str], str] = {}

    def update(self, commands: list[str]) -> None:
        for command in commands:
            words = command.split(" ")
            if words[0] == "RESET":
                self._set_by.clear()
            elif words[0] == "SHOW":
                self._set_by[("SHOW", "")] = command
            elif words[0] in ("LIGHT", "SCORE") and len(words) > 2:
                key = (words[0], words[1])
                if words[0] == "LIGHT" and words[2] == "OFF":
                    self._set_by.pop(key, None)
                else:
                    self._set_by[key] = command
            elif words[0] == "NERTS" and len(words) > 1:
                # The caller's light blinks in its colour, or the box's own where it was off;
                # sent again as a light, as the fanfare is not.
                light = self._set_by.get(("LIGHT", words[1]), "").split(" ")
                lit = len(light) > 2 and light[2] not in (LIGHT_OFF, "000000")
                colour = light[2] if lit else NERTS_COLOUR
                self._set_by[("LIGHT", words[1])] = f"LIGHT {words[1]} {colour} BLINK"

    def commands(self) -> list[str]:
        """The commands that show it all again: lights, then scores, then the display."""
        order = {"LIGHT": 0, "SCORE": 1, "SHOW": 2}
        return [self._set_by[key] for key in sorted(self._set_by, key=lambda k: order[k[0]])]


class BoxAnnouncer(Service):
    """Sends the referee's announcements to the box at `url` (any pyserial URL, or `auto`).

    `seats`: the number of seats at the table, when known; commands for seats beyond it are
    not sent. Raises ValueError, with a message for the user, if pyserial does not know the URL's
    form; a well-formed URL of an absent box is fine (the driver waits for it).
    """

    def __init__(
        self,
        url: str,
        seats: int | None = None,
        *,
        on_button: Callable[[int], None] | None = None,
        drain_timeout: float = DRAIN_TIMEOUT_S,
    ) -> None:
        self.url = check_url(url)
        self.seats = seats
        self.drain_timeout = drain_timeout
        self.commands = BoxCommands()
        self.standing = StandingDisplay()
        # Held while commands are chosen and queued, by the caller's thread and (restoring
        # after a reset) the driver's, so that what is sent again is what was last queued.
        # Reentrant: a delivery settled before its callback is added calls it at once.
        self._sending = threading.RLock()
        self._shown_again: list[Delivery] = []  # the last batch sent again after a reset
        self._reset_while_showing = False
        self._tries = 0  # batches sent again in a row, each cut by a reset
        self.driver = BoxDriver(url, on_button=on_button, on_reset=self._show_again)
        self.undelivered: list[str] = []
        """The commands never delivered, once closed."""
        self._rejected_lock = threading.Lock()
        self.rejected: list[str] = []
        """The commands not shown, each with why: refused by the box (`er`), too long for a
        line, or for a seat beyond those the box says it has."""

    def start(self) -> Self:
        self.driver.start()
        return self

    def announce(self, event: Mapping[str, object]) -> None:
        """Queue the box commands for one table event; returns at once."""
        box_seats = self.driver.identity.seats if self.driver.identity is not None else None
        sendable = []
        for command in self.commands.for_event(event):
            seat = _seat_of(command)
            if self.seats is not None and seat is not None and seat >= self.seats:
                self._not_shown(f"not sent: the table has {self.seats} seats: {command!r}")
                continue
            if box_seats is not None and seat is not None and seat >= box_seats:
                self._not_shown(f"not sent to the box, which has {box_seats} seats: {command!r}")
                continue
            try:
                check_command_text(command)
            except ValueError as error:  # a score of 60 digits, a seat number as long
                self._not_shown(f"not sent to the box: {error}")
                continue
            sendable.append(command)
        with self._sending:
            self.standing.update(sendable)
            for delivery in self.driver.send_all(sendable):
                delivery.add_done_callback(self._on_settled)

    def _show_again(self) -> None:
        """Called on the driver's thread when the box was reset: what it showed is sent again.
        A reset while such a batch is on its way sends the whole again once it is through
        (the driver resends only what was not acknowledged, and the reset cleared the rest),
        up to `SHOW_AGAIN_TRIES` in a row: a box resetting every few commands never holds a
        batch, and a batch a reset would never end."""
        with self._sending:
            if not all(done.done() for done in self._shown_again):
                self._reset_while_showing = True
                return
            self._tries = 0
            self._send_shown()

    def _send_shown(self) -> None:
        """Sends what the box shows again (`_sending` held)."""
        commands = self.standing.commands()
        if not commands:
            return
        log.info("box was reset: showing its lights, scores and display again")
        self._reset_while_showing = False
        try:
            self._shown_again = self.driver.send_all(commands)
        except BoxClosed:  # closing meanwhile: nothing is waited for any more
            self._shown_again = []
            return
        for delivery in self._shown_again:
            delivery.add_done_callback(self._on_settled)
        self._shown_again[-1].add_done_callback(self._shown_through)

    def _shown_through(self, last: Delivery) -> None:
        """The last command of a batch sent again is settled (on the driver's thread)."""
        if isinstance(last.exception(), BoxClosed):
            return
        with self._sending:
            if not self._reset_while_showing:
                return
            if self._tries >= SHOW_AGAIN_TRIES:
                self._reset_while_showing = False
                log.warning(
                    "box at %s resets every few commands (a loose cable or power?): what it "
                    "shows may be incomplete until the next announcement",
                    self.url,
                )
                return
            self._tries += 1
            self._send_shown()

    def _on_settled(self, delivery: Delivery) -> None:
        """Called on the driver's thread as each announcement is settled."""
        if not delivery.cancelled() and isinstance(delivery.exception(), CommandRejected):
            self._not_shown(str(delivery.exception()))

    def _not_shown(self, why: str) -> None:
        """Nobody awaits an announcement: the first one not shown is warned of at once, the
        rest are counted on closing."""
        with self._rejected_lock:  # appended from the driver's thread and the caller's
            first = not self.rejected
            self.rejected.append(why)
        log.log(logging.WARNING if first else logging.DEBUG, "%s", why)

    def button_presses(self) -> list[int]:
        """The seats whose Nerts! button was pressed since the last call, in order."""
        presses = []
        while not self.driver.buttons.empty():
            presses.append(self.driver.buttons.get_nowait())
        return presses

    def close(self) -> None:
        """Wait up to `drain_timeout` for the queue to drain, log what was not delivered, close."""
        try:
            delivered = self.driver.wait_delivered(self.drain_timeout)
        except KeyboardInterrupt:  # Ctrl-C while waiting: stop waiting, say what was not told
            log.warning("box at %s: stopped waiting for it (interrupted)", self.url)
        else:
            if not delivered and self.driver.connections:  # never opened: said below
                log.warning("box at %s: not all announcements acknowledged in %g s",
                            self.url, self.drain_timeout)  # fmt: skip
        undelivered = self.driver.close()
        self.undelivered = undelivered
        if len(self.rejected) > 1:
            shown = "; ".join(self.rejected[:UNDELIVERED_SHOWN])
            more = len(self.rejected) - UNDELIVERED_SHOWN
            log.warning("box: %d announcements not shown: %s%s", len(self.rejected), shown,
                        f"; and {more} more" if more > 0 else "")  # fmt: skip
        if undelivered:
            shown = "; ".join(undelivered[:UNDELIVERED_SHOWN])
            more = len(undelivered) - UNDELIVERED_SHOWN
            # A port never opened: most likely a box unplugged, or an emulator not started.
            hint = (
                " (the box was never reached: is it plugged in, or its emulator running? "
                f"'nerts box test --port {quote(self.url)}' checks it)"
                if not self.driver.connections
                else ""
            )
            log.warning("box: %d announcements never delivered: %s%s%s", len(undelivered),
                        shown, f"; and {more} more" if more > 0 else "", hint)  # fmt: skip


def _seat_of(command: str) -> int | None:
    """The seat a LIGHT, SCORE or NERTS command addresses; None for the others."""
    words = command.split(" ")
    if words[0] in ("LIGHT", "SCORE", "NERTS") and len(words) > 1 and words[1].isdecimal():
        return int(words[1])
    return None
