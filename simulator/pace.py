"""What a simulated round is asked for, and how fast its players are: the bots' pace, the
races and mistakes they make, and how neatly their cards land."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.options import RuleOptions
from simulator.camera import DEFAULT_FPS

REACH_SHARE = 0.3
"""Share of a move spent reaching for the card; the rest is carrying and placing it."""
THINK_S = (0.034, 0.2)
"""Pause between one move's release and the next decision (at least one frame)."""
FIRST_DECISION_S = (0.5, 1.5)
"""When each bot first decides, after the deal: players do not all start in one frame."""
MIN_TAKE_BACK_FRAMES = 4
"""A card taken back moves over at least this many frames, so that even a fast player's
take-back is seen in motion, not as a card that jumps."""
TAKE_BACK_DELAY_S = (0.3, 0.9)
"""How long a player takes to notice a late or illegal card and reach for it."""
CALL_DELAY_S = (0.2, 0.6)
"""How long a player whose Nerts pile has just emptied takes to call "Nerts!"."""
STUCK_PAUSE_S = 1.5
"""Everyone stuck: the table pauses while stocks are rotated."""
IDLE_RECHECK_S = 0.5
"""A seat with no move looks again this much later (as a player scans the table)."""
RACE_OFFSET_FRAMES = (0, 3)
"""A raced play lands this many frames after the one it races (0 = a same-frame tie)."""
FASTEST_RACE_S = 0.3
"""A seat joins a race only if it can still get its card there in time."""
FALSE_CALL_MAX_LEFT = 2
"""With --mistake-rate, a hurried player may call "Nerts!" with at most this many cards left
in the Nerts pile: a false call a referee must catch, as families make it."""
ROUND_TAIL_S = 1.0
"""Footage kept after a valid call, so the cards in the air are seen landing."""
MAX_ROUND_S = 900.0
"""A round that neither ends by a call nor by stuck players is cut here."""
JITTER_MM = 2.5
JITTER_DEG = 4.0
"""How far, and how much turned, a card may land from its place on a work or Nerts pile."""
FOUNDATION_JITTER_MM = 5.0
FOUNDATION_JITTER_DEG = 8.0
"""The same on a foundation: cards tossed into the middle in a race land less neatly."""
FRAME_COUNT_ROUNDING = 1e-6
"""Added before a duration in frames is cut to whole frames: 4.1 s at 30 fps is 123 frames,
while 4.1 * 30 is 122.99999999999999 in binary."""


def frames_in(seconds: float, fps: float) -> int:
    """The whole frames `seconds` of footage at `fps` hold."""
    return int(seconds * fps + FRAME_COUNT_ROUNDING)


# Seats the simulator plays: Nerts needs two players, and the simulated table
# (`simulator/geometry.table_for_seats`) is laid out for up to eight.
MIN_PLAYERS = 2
MAX_PLAYERS = 8
DEFAULT_PLAYERS = 4
"""A simulated table's seats where none are asked for: the usual four-player game."""


@dataclass(frozen=True)
class SimulationSettings:
    players: int = DEFAULT_PLAYERS
    seed: int = 0
    fps: float = DEFAULT_FPS
    seconds: float | None = None
    race_rate: float = 0.0
    mistake_rate: float = 0.0
    backs: tuple[str, ...] = ()
    options: RuleOptions = field(default_factory=RuleOptions)
