"""The host side of the box protocol as a pure state machine: no I/O, no threads, no clock.

`HostProtocol` keeps every unacknowledged command in order, numbers them, and turns each device
line (and the passage of time) into `Actions`: lines to write, commands settled, button presses.
The rules are those of the protocol file: stop-and-wait with one command in flight, resend after
RESEND_TIMEOUT_S of silence, give up the connection after MAX_SILENT_RESENDS silent resends,
`rs` handling, renumbering from 1 on a device `HELLO`, and a `HELLO` handshake on every connect.
One departure from the file's letter keeps its rule that nothing is lost: after a device `HELLO`
when a command numbered 1 was sent since the last renumbering (after an earlier reset, or
numbers wrapping past 65535), a `HELLO` handshake takes number 1 and the commands follow from 2
(see `receive`); the box accepts a `HELLO` of any number, so any box of the file works with it.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from hardware.device import MAX_SEATS
from hardware.framing import MAX_SEQUENCE, encode_command, next_sequence

log = logging.getLogger(__name__)

# No reply to a command within this time: resend the same line (protocol: 250 ms).
RESEND_TIMEOUT_S = 0.250
# After this many resends in a row with no reply at all, the connection is given up (protocol: 5).
# A garbled reply is not silence: it shows the box is there, and giving up would only risk
# running the command twice (the reconnection's handshake resets the box's memory of numbers).
MAX_SILENT_RESENDS = 5
# A port just opened is not given up while the box may still be booting: opening an Uno's or a
# Nano's port resets it, and its bootloader waits up to about 2 s before the sketch says HELLO
# (an older Nano's); reopening would reset it again, and a box booting slower than the resends
# last (1.5 s) never connected. Once any line is heard, the resends alone decide.
BOOT_GRACE_S = 3.0
# The number the host's handshake carries (any is allowed); the commands after it follow on.
# Not 1: after a box reset the host numbers its commands from 1, and a late `ok` to a copy of a
# handshake numbered so would settle the renumbered first command, which the box then takes for
# a duplicate of that handshake and never runs. Half-way round, it is 32,767 commands away.
HANDSHAKE_SEQUENCE = 32768

_REPLY_WORDS = {"ok": 2, "rs": 2, "er": 3}
"""The replies, each with its number of words: `ok <seq>`, `rs <n>`, `er <seq> <code>`; a
reply of other words cannot be parsed, and is discarded as the protocol file says."""
_IDENTITY = re.compile(r"nertsbox (\S+) seats=([0-9]+)")
_SEAT_COUNTS = {str(seats) for seats in range(1, MAX_SEATS + 1)}
"""The numbers of seats a box may say it has, as it writes them."""
SEATS_SHOWN_DIGITS = 6
"""A number of seats longer than this is not repeated in the warning."""

Ticket = TypeVar("Ticket")


def _sequence(word: str) -> bool:
    """Whether `word` is a sequence number (1 to 65535); a reply with another is unparsable."""
    return word.isascii() and word.isdecimal() and 1 <= int(word) <= MAX_SEQUENCE


@dataclass(frozen=True)
class BoxIdentity:
    """What a box says of itself in its `HELLO` and `ID` lines."""

    version: str
    seats: int


@dataclass
class PendingCommand(Generic[Ticket]):
    """A command not yet acknowledged. `seq` is 0 until it is first sent on this numbering."""

    text: str
    ticket: Ticket | None = None
    seq: int = 0
    handshake: bool = False


@dataclass
class Actions(Generic[Ticket]):
    """What the I/O layer must do after one protocol step, in this order."""

    writes: list[bytes] = field(default_factory=list)
    # Commands settled, each with None for `ok` or the `er` code.
    settled: list[tuple[PendingCommand[Ticket], str | None]] = field(default_factory=list)
    buttons: list[int] = field(default_factory=list)
    identity: BoxIdentity | None = None
    give_up: bool = False


class HostProtocol(Generic[Ticket]):
    def __init__(self, resend_timeout: float = RESEND_TIMEOUT_S) -> None:
        self.resend_timeout = resend_timeout
        self.queue: deque[PendingCommand[Ticket]] = deque()
        self.connected = False
        self.identity: BoxIdentity | None = None
        self.resets_noticed = 0
        """Resets of the box noticed, each clearing what it showed: its `HELLO` lines, and the
        renumberings it asked for (an `rs` of another number: a reset whose `HELLO` was lost).
        One reset may count twice: a handshake resent while the box boots draws a renumbering
        too, before the box has acknowledged anything."""
        self._in_flight = False
        self._next_seq = HANDSHAKE_SEQUENCE
        self._sent_at = 0.0
        self._silent_resends = 0
        self._stale_rs_possible = False
        self._sent_n1 = False  # since the last renumbering: see `receive`
        self._said_silent = False  # said "box silent" and heard nothing since
        self._connected_at = 0.0
        self._heard = False  # any line from the box since the port was opened

    @property
    def unacknowledged(self) -> list[PendingCommand[Ticket]]:
        """The user's commands not yet acknowledged, in order (the handshake left out)."""
        return [command for command in self.queue if not command.handshake]

    def connect(self, now: float) -> Actions[Ticket]:
        """A port was opened: handshake first, then every unacknowledged command, renumbered."""
        self.disconnect()
        self.connected = True
        self._connected_at, self._heard = now, False
        self.queue.appendleft(PendingCommand(text="HELLO", handshake=True))
        actions: Actions[Ticket] = Actions()
        self._transmit(now, actions)
        return actions

    def disconnect(self) -> None:
        """The port was closed: keep the commands, forget their numbers and the handshake."""
        self.connected = False
        self._in_flight = False
        self.queue = deque(command for command in self.queue if not command.handshake)
        self._stale_rs_possible = False
        self._renumber_from(HANDSHAKE_SEQUENCE)

    def submit(self, text: str, ticket: Ticket, now: float) -> Actions[Ticket]:
        """Queue a new command; it is sent at once if the link is idle."""
        self.queue.append(PendingCommand(text=text, ticket=ticket))
        actions: Actions[Ticket] = Actions()
        self._transmit(now, actions)
        return actions

    def receive(self, text: str, now: float) -> Actions[Ticket]:
        """Act on one device line whose CRC was good (given without its `*<CRC>`)."""
        actions: Actions[Ticket] = Actions()
        words = text.split(" ")
        self._silent_resends = 0
        self._heard = True
        if self._said_silent:
            log.warning("box answers again")
            self._said_silent = False
        if words[0] in ("HELLO", "ID") and len(words) > 1:
            match = _IDENTITY.fullmatch(" ".join(words[1:]))
            if match is not None and match[2] in _SEAT_COUNTS:
                self.identity = actions.identity = BoxIdentity(match[1], int(match[2]))
            elif match is not None:
                log.warning(
                    "the box says it has %s seats, but a box has 1 to %d: not taken as its "
                    "identity",
                    match[2] if len(match[2]) <= SEATS_SHOWN_DIGITS else "that many",
                    MAX_SEATS,
                )
            if words[0] == "HELLO":
                self.resets_noticed += 1
                # The box's HELLO does what the connection's handshake, if still queued, would
                # (it expects N1 and said who it is), and that handshake renumbered N1 would
                # clash with the first command as HANDSHAKE_SEQUENCE says: it is dropped (one
                # numbered 1 on purpose may be queued again below).
                self.queue = deque(command for command in self.queue if not command.handshake)
                log.info("box announced a reset; resending %d commands", len(self.queue))
                # Lines sent before the HELLO came (a command, perhaps resent) may reach the box
                # after its reset, which answers each `rs 1`: taken for an answer to the
                # renumbered N1, one would send that again after the box ran it and reset, and
                # the box would run it twice. Until the first ok or er, such an `rs` is left to
                # the resend timer.
                self._stale_rs_possible = self._stale_rs_possible or self._in_flight
                # A copy of an N1 sent since the last renumbering (resent to a slow box) may
                # reach the box after this reset, be run and answered `ok 1`, which would settle
                # the renumbered N1 unrun and shift every later number: a handshake, accepted
                # with any number, takes number 1 instead (a copy of it run twice does nothing).
                if self._sent_n1:
                    self.queue.appendleft(PendingCommand(text="HELLO", handshake=True))
                self._in_flight = False
                self._renumber_from(1)
                self._transmit(now, actions)
        elif words[0] == "BTN" and len(words) == 2 and words[1].isdecimal():
            seat = int(words[1])
            if self.identity is not None and seat >= self.identity.seats:
                # A seat the box said it lacks: a line corrupted yet passing its CRC, or
                # firmware of another build; no player pressed it.
                log.warning(
                    "box reported the button of seat %d, but has seats 0-%d; ignored",
                    seat,
                    self.identity.seats - 1,
                )
            else:
                actions.buttons.append(seat)
        elif len(words) == _REPLY_WORDS.get(words[0]) and _sequence(words[1]):
            self._on_reply(words[0], int(words[1]), words[2:], now, actions)
        else:
            log.debug("box line ignored: %r", text)
        return actions

    def garbled(self) -> None:
        """A device line arrived that could not be read (bad CRC, unparsable): the box is not
        silent, so the resend that drew it does not count towards giving up the connection."""
        self._silent_resends = 0
        self._heard = True

    def tick(self, now: float) -> Actions[Ticket]:
        """Let time pass: resend a command whose reply is overdue, or give the connection up."""
        actions: Actions[Ticket] = Actions()
        if self._in_flight and now - self._sent_at >= self.resend_timeout:
            booting = not self._heard and now - self._connected_at < BOOT_GRACE_S
            if self._silent_resends >= MAX_SILENT_RESENDS and not booting:
                # Said once: a box unplugged would say it every few seconds until it is back.
                level = logging.DEBUG if self._said_silent else logging.WARNING
                log.log(level, "box silent after %d resends; reconnecting", self._silent_resends)
                self._said_silent = True
                actions.give_up = True
            else:
                self._silent_resends += 1
                self._resend(now, actions)
        return actions

    def _on_reply(
        self, kind: str, number: int, rest: list[str], now: float, actions: Actions[Ticket]
    ) -> None:
        if not self._in_flight:
            log.debug("box reply %s %d with nothing in flight", kind, number)
            return
        head = self.queue[0]
        if kind != "rs":
            self._stale_rs_possible = False
        if kind == "rs" and self._stale_rs_possible and number == head.seq:
            # Most likely the answer to a line sent before the reset (see `receive`); if it
            # was this line's own, it is resent on silence, RESEND_TIMEOUT_S later.
            log.debug("box rs %d, likely to a line sent before its reset: ignored", number)
        elif kind == "rs":
            if head.handshake or number == head.seq:
                self._resend(now, actions)
            elif number == next_sequence(head.seq):
                # Executed, its `ok` lost: acknowledged; the next command carries `number`.
                self._settle(None, actions)
                self._next_seq = number
                self._transmit(now, actions)
            else:
                log.info("box expects %d, not %d: renumbering", number, head.seq)
                self.resets_noticed += 1
                self._in_flight = False
                self._renumber_from(number)
                self._transmit(now, actions)
        elif number != head.seq:
            log.debug("stale box reply %s %d (in flight: %d)", kind, number, head.seq)
        else:
            code = None if kind == "ok" else rest[0]
            if code is not None:  # whoever awaits the delivery reports it; see also announce
                log.info("box rejected %r: %s", head.text, code)
            self._settle(code, actions)
            self._transmit(now, actions)

    def _settle(self, code: str | None, actions: Actions[Ticket]) -> None:
        command = self.queue.popleft()
        self._in_flight = False
        if not command.handshake:
            actions.settled.append((command, code))

    def _renumber_from(self, seq: int) -> None:
        for command in self.queue:
            command.seq = 0
        self._next_seq = seq
        self._sent_n1 = False

    def _transmit(self, now: float, actions: Actions[Ticket]) -> None:
        """Send the first queued command if the link is up and idle."""
        if not self.connected or self._in_flight or not self.queue:
            return
        head = self.queue[0]
        if head.seq == 0:
            head.seq = self._next_seq
            self._next_seq = next_sequence(self._next_seq)
        self._in_flight = True
        self._silent_resends = 0
        self._resend(now, actions)

    def _resend(self, now: float, actions: Actions[Ticket]) -> None:
        self._sent_at = now
        self._sent_n1 = self._sent_n1 or self.queue[0].seq == 1
        actions.writes.append(encode_command(self.queue[0].seq, self.queue[0].text))
