"""The settings `vision.identify` reads cards by: how sure a reading must be, which cuts of an
index window are read, where to look under fans, when the card detector looks closer. Each is
documented with what it was chosen on (the tuning renders: val designs at seeds other than the
benchmark's, and the edje train photos), so that a new model can be tuned the same way."""

from __future__ import annotations

from typing import NamedTuple

from vision.onnx_models import DETECTION_SCORE_MIN

NONE_CLASS = "none"
INDEX_SCORE_MIN = 0.65
"""An index read below this probability leaves the card unnamed rather than guessed. Chosen
with `agreed` on the val renders and the edje train photos (0.5-0.8): 0.65 named 311 of 392
val cards with 29 wrong names and 496 of 527 edje train cards; the arithmetic mean of the
shifted windows at 0.5 had named 309 with 35 wrong, and 495."""
COVERED_INDEX_MIN = INDEX_SCORE_MIN
"""A card whose two index corners both read `none` above this (but under
`NO_INDEX_READ_MIN`) is face up with both indices covered: left unnamed, as a name read there
would be the runner-up of weak readings. As sure as a name must be, so a covered corner and a
named one are judged alike."""
NO_INDEX_READ_MIN = 0.99
"""A card whose two index corners both read `none` at least this surely shows no index at
all: a back that the detector took for a face (patterned backs unlike any it was trained on),
so it is reported face down. In the val renders 14 face-up detections read so: 11 lay on
face-down cards, 3 on no card, none on a face-up card (at 0.97: 11, 6 and one face-up card)."""


class WindowCut(NamedTuple):
    """Where an index window is cut, against where the card's corners put it: moved right and
    down by millimetres, its sides times `scale` (the window's own corner stays put)."""

    right_mm: float
    down_mm: float
    scale: float = 1.0


READ_CUTS = (
    WindowCut(0.0, 0.0),
    WindowCut(-2.0, -2.0),
    WindowCut(2.0, 2.0),
    WindowCut(0.0, 0.0, 0.85),
    WindowCut(0.0, 0.0, 1.15),
)
"""Each index corner is read from these cuts of its window (the window itself first) and the
readings combined by `agreed`: the detector's corners are often millimetres off (20 renders
of val designs, 242 visible face-up cards: 140 named right instead of 129 from one window;
measured with the published models), and its cards a little too large or small. Until
session 24 the last two cuts were moved 2 mm up-right and down-left instead of scaled. On five
tuning render sets (3,921 visible face-up cards; `models/index_classifier.md` has each) the
scaled ones, with `FAN_LOOK_CUTS` under fans, named the same 3,183 right with 262 wrong names
instead of 287; scales 0.9 and 1.1, or 0.85 and 1.2, gave more wrong names than these (144
and 136 on three of the sets, against 131). Edje train: 506 of 527 either way."""
FAN_LOOK_CUTS = (
    WindowCut(0.0, 0.0),
    WindowCut(-2.0, -2.0),
    WindowCut(2.0, 2.0),
    WindowCut(-2.0, 2.0),
    WindowCut(2.0, -2.0),
)
"""The cuts a look under a fan is read from: only moved, as all were until session 24. A
look's index shows in a strip beside the card over it, which a larger cut reaches into: a
hand fanned 15 mm apart (`tests/vision/test_identify.py`) is read under the scaled cuts at
0.83-0.86 (under `FAN_READ_MIN`), under these at 0.92. On the tuning renders either way
within three cards (628 + 466 + 650 named with 44 + 42 + 45 wrong here, against `READ_CUTS`'
629 + 467 + 651 with 45 + 41 + 45)."""
READ_EXTENT_SCALE = max(cut.scale for cut in READ_CUTS)
"""Views cut for reading only their index window hold it this many times over."""
SURE_READ_MIN = 0.99
"""A window whose own crop reads one class (a name or `none`) this surely is not read from
its other `READ_CUTS`: on the val renders, edje train photos and bidly deals the names were
the same as from all five, with 11,603 crops read instead of 22,335."""
READ_MARGIN_MM = 2.0
"""Table kept around a rectified card so that the shifted windows can look past its edge."""
CORNER_SCORE_MIN = 0.1
"""The index-corner detector's own floor, far under the card detector's: on real fanned hands
it scores many true windows at 0.1-0.35, and the classifier can still refuse a window (`none`,
or `FAINT_CORNER_READ_MIN`)."""
FAINT_CORNER_SCORE = DETECTION_SCORE_MIN
"""An index corner found with a detector score under the card detector's floor is
faint, and names a card only if read at least `FAINT_CORNER_READ_MIN` surely. Chosen on the
val renders and the edje train photos (floors 0.35, 0.25, 0.2, 0.15, 0.1; 0.7-0.95): floor 0.1
with 0.85 named 306 -> 312 of 392 val cards with 33 -> 34 wrong names, and 483 -> 493 of 527
edje train cards; without the faint rule, floor 0.15 gave 44 wrong val names."""
FAINT_CORNER_READ_MIN = 0.85
CARD_IOU_MAX = 0.5
"""Whole cards whose boxes overlap more than this are one (non-maximum suppression): the boxes
of cards spread overlapping, face down or fanned, overlap by half and more. Chosen on the val
renders and edje train photos (0.45-0.75): 0.5 found 343 -> 356 of 461 face-down cards with 32
-> 35 reports on no card or twice on one, and named 322 -> 321 of 392 val cards with 23 wrong
names throughout (0.55: 369 found, 41 such reports, 26 wrong names; 0.75: 393, 168, 29)."""
SURE_CARD_IOU_MAX = 0.6
SURE_CARD_SCORE_MIN = 0.6
"""Cards scored at least `SURE_CARD_SCORE_MIN` are kept where their boxes overlap the others
kept up to `SURE_CARD_IOU_MAX`, past `CARD_IOU_MAX`: of the face-down cards still missed in
the tuning renders, most had been suppressed under a spread or piled neighbour. 80 val
renders (seed 7): cards named 619 -> 623 of 742 with 56 wrong names throughout, face-down
cards found 707 -> 715 of 855 for 57 -> 59 reports on no card or twice on one; hand fans (40,
seed 11) 648 -> 654 of 801 named with 45 -> 46 wrong; edje train 506 of 527 throughout. At
0.65: 626 named with 57 wrong, 719 found for 63; a score bar of 0.5: 624, 56, 721, 67. Face-down
cards alone so: the same face-down figures, no more names (face down alone at 0.7 and 0.6: 722
found for 71; 0.7 with no score bar: 758 for 171)."""
CORNER_IOU_MAX = 0.85
"""Index corners whose boxes overlap more than this are one (non-maximum suppression), far
above the card detector's `DETECTION_IOU_MAX`: the windows of a bridge hand fanned 8-10 mm
apart overlap by about half, and at 0.45 every other card of such a fan was dropped. Twice-found
windows are merged later (`vision.merging`). Chosen on the val
renders and edje train photos (0.45-0.95, index corners round 3): 0.85 named 319 -> 322 of 392
val cards with 24 -> 23 wrong names, edje train 496 of 527 throughout; suppressing by corner
distance instead (as pose estimators do) did not separate twice-found windows from neighbours'
better than boxes."""

FAN_LOOKS_MM = ((12.0, 0.0), (15.0, 0.0), (0.0, 15.0), (0.0, 20.0))
"""Where the index of a card fanned under a named one shows, in the frame of the named card's
read index corner: (left, up) of it, in millimetres. Hands are fanned sideways 8-15 mm apart,
work piles downward 15-25 mm. Where neither detector found a card, an index is looked for
there (`CardReader.fanned_under`). Chosen on val renders (80 of seed 7; 40 of seed 11 all in
hand fans, half tight) and the edje train photos: these four named 604 -> 614 of 742 cards
with 56 wrong names throughout, and 616 -> 646 of 801 fanned cards with 43 -> 45; adding 25 mm
up gave 617 and 650 with 58 and 45 wrong names, adding 9 mm left too 617 and 651 with 60 and
45, looking up alone 10-30 mm 620 with 66 on seed 7; looking again beside the cards found so
614 with 57 and 648 with 45; edje train 505 of 527 throughout. Looking beside both index
corners (a card lies either way up) named 619 and 654 with 57 and 46 wrong names here, but on
the benchmark's renders only 1 + 1 more cards with 2 more wrong names, for 20-40 ms more a
photo. A look 6 mm left never adds a card: its window overlaps the named card's own more than
`SAME_WINDOW_IOU`."""
FAN_FIRST_READ_MIN = 0.5
"""A look under a fan is read from all its `READ_CUTS` only where its own window already
reads another card than the named one at least this surely: most looks show table or the
named card's own face. The same names on the tuning renders for a fifth fewer crops."""
FAN_READ_MIN = 0.9
"""A card found only by looking under a fan must be read at least this surely: at 0.8 the
tuning renders gave 2 + 3 more right names and 16 + 9 more wrong ones, at 0.95 1 + 4 fewer
right names and no fewer wrong ones."""
FAN_INK_PATCH_MM = (10.0, 12.0)
FAN_INK_PERCENTILES = (5, 95)
"""The darkest and the brightest of a patch, as percentiles of its grey levels (a speck of
dirt or glare is not ink or stock)."""
FAN_INK_CONTRAST_MIN = 40.0
"""A look is read only if the top-left patch of its window (this large, in millimetres:
where a rank is printed, outside the named card) shows ink on card stock: grey levels 5% and
95% of the way up its histogram at least this far apart (0-255); a plain table shows less.
On the tuning renders 40 gave the same names (70: one fewer fanned card) and cut the crops
read for looks by more than half (seed 7: 5,259 -> 2,211)."""

STOCK_SHARE_MIN = 0.3
STOCK_SATURATION_MAX = 60
STOCK_BRIGHTNESS_MIN = 0.6
"""A card found face down is read for an index only where one of its index windows shows
at least `STOCK_SHARE_MIN` of card stock: pixels of saturation under `STOCK_SATURATION_MAX`
(0-255) and at least `STOCK_BRIGHTNESS_MIN` of the window's brightness (95th percentile).
The card detector takes some ornate court cards (gnome-orell, pysol-cardmage) for backs, and
their index corners are mostly white; most backs are not. In 80 val renders (seed 7) 19 of
the 21 face-up cards found face down showed 0.3 or more, and 148 of 534 face-down cards (at
0.2 the same names for 1.5 times the crops read)."""
STOCK_BRIGHTEST_PERCENTILE = 95
"""A window's brightness: this percentile of its pixels' (its white card stock, not a glint)."""
FACE_DOWN_READ_MIN = 0.9
"""A card found face down is reported face up only where its index corners name it at least
this surely (`FAN_READ_MIN`'s bar: a name found where none was expected). Tuning renders: 614
-> 619 of 742 cards named and 646 -> 648 of 801 fanned, with no more wrong names and as many
face-down cards found; edje train 505 -> 506 of 527; 0.8 gave the same."""

CLOSE_LOOK_CARD_PX = 30.0
"""Cards whose index corners imply them shorter than this (median) in the card detector's own
input, a 416 px square, are looked for at `CLOSE_LOOK_SIDE` instead: there a card 90 px long in
a 1280 px photo is 29 px, too few to place its corners well or to find it under others. Chosen
on the val renders (the 40 of the benchmark and 80 others, seed 7) and the edje train photos
(20-50): without the closer look 592 + 329 of 742 + 392 cards named with 59 + 17 wrong names,
and 679 + 356 of 855 + 461 face-down cards found; at 30 599 + 334 named, 57 + 19 wrong,
707 + 376 found; at 40 602 + 332, 57 + 22, 709 + 384; at 50 599 + 332, 55 + 22, 713 + 384. Edje
train: 505 of 527 throughout (its cards are larger)."""
CLOSE_LOOK_SIDE = 640
"""The long side, in pixels, the photo is shrunk to when the card detector looks closer: on the
benchmark's 40 val renders (at `CLOSE_LOOK_CARD_PX` 40) 512 named 331 with 20 wrong names and
found 376 face-down cards, 640 332, 22 and 384 (at 30, as now, 640 334, 19 and 376; 512 was
not measured so); 640 takes 55-65 ms on 2 cores, 416 35-50 ms."""
WHOLE_PHOTO_CARD_PX = 40.0
"""A card at least this long in the card detector's view of a whole large photo (416 px a side)
is taken as found there, as a card 120 px long is in a 1280 px photo, where 96% of the val
renders' cards that long are named; the tiles of a large photo (`vision.tiles.grid_for_size`)
add only shorter ones. Seen closer in a tile, a large card shows in pieces and its index
corners are read apart: a 24-megapixel copy of a bidly deal, whose cards are 1,200 px long,
named 27 of its 52 cards when every card was taken from the tiles, and 44 so, as at its own
1,000 px (and its 12-megapixel copy 35 and 43)."""
