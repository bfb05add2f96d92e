"""Refereeing a game as it is played: what the players hear at once, and the referee box's
Nerts! buttons, which a camera cannot see."""

from __future__ import annotations

import logging
import os
import sys

from tqdm import tqdm

from hardware.announce import BoxAnnouncer
from nerts.errors import stdout_to_devnull
from nerts.scoreboard import as_it_happens
from referee.events import Event, NertsCall
from referee.game import GameReferee

log = logging.getLogger(__name__)


class NertsButtons:
    """The box's Nerts! buttons: a press is its seat's Nerts call (a camera cannot see a
    call), in the frame being read when it was pressed. It is put in once every line of that
    frame has been read, so that the seats it is checked against are the frame's own (a deal
    may come on its last line); a press from a seat not dealt in is warned of and ignored."""

    def __init__(self, box: BoxAnnouncer) -> None:
        self.box = box
        self.reading: Event | None = None  # the last event read: its frame is being read

    def calls_before(self, event: Event | None, referee: GameReferee) -> list[Event]:
        """Before `event` is fed (None: the log has ended): where it begins another frame,
        the presses so far are fed to `referee` as calls of the frame read until now; returns
        what the referee decided meanwhile."""
        reading, self.reading = self.reading, event
        if reading is not None and event is not None and event.frame == reading.frame:
            return []  # more of the frame may still come
        decided: list[Event] = []
        for seat in self.box.button_presses():
            if reading is None:
                log.warning("seat %d pressed its Nerts! button before the log began: ignored", seat)
                continue
            seats = referee.seats_in_play()
            if seat not in seats:
                log.warning(
                    "seat %d pressed its Nerts! button at frame %d, but %s: ignored",
                    seat,
                    reading.frame,
                    f"the round has seats {', '.join(map(str, seats))}" if seats else "no deal yet",
                )
                continue
            log.info(
                "seat %d pressed its Nerts! button: a Nerts call at frame %d", seat, reading.frame
            )
            decided += referee.feed(NertsCall(reading.frame, reading.t, seat))
        return decided


def tell_presses_ignored(box: BoxAnnouncer, log_name: str) -> None:
    """Warns of the Nerts! buttons pressed while a recorded log was refereed: read far faster
    than it was played, it gives a press no frame of its own."""
    seats = box.button_presses()
    if seats:
        log.warning(
            "Nerts! buttons pressed (seat %s) while the recorded log %s was refereed: ignored; "
            "a button is a Nerts call on a live log only (piped in as '-', or a FIFO)",
            ", ".join(map(str, seats)),
            log_name,
        )


LIVE_BANNER = (
    "reading table events from this terminal, one JSON object a line "
    "(docs/contracts/events.md); Ctrl-D ends the log, Ctrl-C stops\n"
)


class SaidAtOnce:
    """Prints a live log's decided events that players want to hear now (`as_it_happens`),
    each on a line of its own under the progress bar. Should the output's reader go away (a
    display piped to another program that stopped), the game is still refereed: --out and the
    box go on, and it is said once."""

    def __init__(self) -> None:
        self.reader_gone = False

    def __call__(self, event: Event) -> None:
        line = as_it_happens(event)
        if line is None or self.reader_gone:
            return
        try:
            tqdm.write(line, file=sys.stdout)
            sys.stdout.flush()
        except BrokenPipeError:
            self.reader_gone = True
            stdout_to_devnull()
            # The scoreboard at the end too goes nowhere, rather than end the run with an error.
            sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
            log.warning(
                "the output's reader went away at frame %d: verdicts are no longer printed, "
                "but the game is still refereed (--out, the box)",
                event.frame,
            )
