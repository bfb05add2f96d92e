"""What the renderer draws: a frozen snapshot of cards and hands on the table.

Coordinates are table millimetres measured from the play area's top-left corner (the corner
with ArUco marker id 0), x to the right and y down as seen in the camera image.
The timeline builds one `Scene` per video frame; the renderer turns it into pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CARD_WIDTH_MM = 63.0
"""Poker-size card, short side."""
CARD_HEIGHT_MM = 88.0
"""Poker-size card, long side."""


@dataclass(frozen=True)
class CardPose:
    """One card on (or just above) the table."""

    card: str
    """Identity such as "10H" or "QS"; always known to the simulator, even when face down."""
    seat: int
    """Owner: selects that seat's deck design and back."""
    x: float
    """Centre, table mm from the play area's left edge."""
    y: float
    """Centre, table mm from the play area's top edge."""
    angle: float
    """Degrees counter-clockwise as seen in the image; 0 = upright (long side vertical)."""
    face_up: bool
    lift: float = 0.0
    """0 = lying on the table; > 0 = carried this many mm above it (shadow offset, motion blur)."""


@dataclass(frozen=True)
class HandPose:
    """A hand with its forearm reaching in from a seat's table edge."""

    seat: int
    """The forearm enters from this seat's edge: seat 0 bottom, then clockwise as seen in the
    image (4 seats: bottom 0, left 1, top 2, right 3; 2..8 seats spread around the edges alike)."""
    x: float
    """Palm centre, table mm."""
    y: float


@dataclass(frozen=True)
class Scene:
    """Everything visible in one frame."""

    cards: tuple[CardPose, ...] = field(default_factory=tuple)
    """Painted in this order: later cards lie on top of earlier ones."""
    hands: tuple[HandPose, ...] = field(default_factory=tuple)
    """Painted above all cards."""
