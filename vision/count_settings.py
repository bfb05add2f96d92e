"""The count's settings: what makes a detection a counted card, the table, and a count in doubt
(`vision/count.py`), each with how it was chosen."""

from __future__ import annotations

from vision.back_doubts import FAR_FROM_BACK_MIN
from vision.onnx_models import DETECTION_IOU_MAX
from vision.reading_settings import FACE_DOWN_READ_MIN

CARD_AREA_RANGE = (0.55, 1.8)
"""Counted cards lie flat on one table, so they look about the same size: a detection outside
this share of the median card's area is a piece of a card or a box around two, not a card."""
BETWEEN_CARDS_SHARE = 0.65
"""A detection whose area lies this much under better-scored counted cards is a box across
the gap between two overlapping cards (half of each), not a card of its own. Real cards of a
spread showed at most 62% so covered, those boxes mostly over 80% (30 tuning spreads of seeds
other than the benchmark's: 1,185 cards, 19 such boxes; 16 dropped, 1 card lost). A card of a
spread pushed closer lies as much under its neighbours, but the photo shows it on top of
some of them (`_covering`)."""
ON_TOP_SURE_LEAN = 0.2
"""How surely (`vision.stacking.stacking_leans`, 0..1) the photo must show a card lying on top
of another for it to be a card, not a box across a gap, however much of it lies under
better-scored cards (`_covering`). Session 29 (a card then only not counted as covered by the
better-scored cards it lay on): on tuning spreads of seeds other than the benchmark's, in
rows each card showing 65-80% of its width, 0 of 10 counted exactly by better-scored cards
alone, 10 at 0.2, 7 at 0.4. Session 30 (no card counted as covering one that lies on top of
any card): 60 more such spreads from the benchmark's generator (seeds 1 and 2), 39 -> 48
exact, 41 -> 15 cards off (all short; at 0.3 and 0.4, a spread fewer); rows as the
benchmark's (30 of unlike backs, 60 under harsh light, 20 of all designs) as before (30, 58
and 18 exact); rows showing half of each card 210 -> 151 cards off in 20 spreads (none
exact: those cards lie 60-70% under the cards truly on top of them and score lower, as
boxes across gaps do); cards scattered at any angle 76 -> 75 off in 20."""
RESCUE_SCORE_SHARE = 0.8
"""Only a card scored at least this share of the photo's median score is judged by whether the
photo shows it on top of another card (`ON_TOP_SURE_LEAN`): a box across a gap scores lower
than the cards it spans (on tuning spreads: real cards above 0.78 of the median in rows,
boxes below 0.68), and its outline, running along theirs, can look like a card on top.
Without it (session 29), 18 of 20 tuning spreads under harsh light were counted exactly; at
0.9, 3 of the 10 close ones."""
SURE_CARD_SCORE_SHARE = 0.9
"""A card scored at least this share of the photo's median score is a card, however much of it
lies under better-scored cards and whether or not the photo shows it on top of one: boxes
across gaps score lower (`RESCUE_SCORE_SHARE`: below 0.68 of the median on tuning spreads),
while a card pushed under both neighbours, or the first of a row, lies on top of none. Of the
close tuning spreads (each card showing 65-80% of its width, seeds 1 and 2) counted short,
5 of 6 missed cards had been found and dropped as such boxes, two of them scored 0.95 of the
median: 32 -> 34 of 40 exact; half-shown rows 6.9 -> 6.6 cards off; rows, all designs, harsh
light and scattered cards as before (0.8 and 0.85 did the same on close rows)."""
COLOURS_TAUGHT_SCORE_SHARE = 0.8
"""Only counted cards scored at least this share of the photo's median score teach the
photo's colour model (`vision.table_colours.photo_colours`) the cards' colours: a box across
a gap shows mostly table and scores lower. Taught by every card, a tuning spread of all
designs (a black back on grey felt) took its 11 boxes' table for the cards' colours, so no
detection was judged table and all 11 were counted; taught so, it was one card short and
warned. The 285 other tuning spreads (rows, close rows, half-shown rows, harsh light, scattered)
were counted as before."""
TABLE_SHARE_MAX = 0.6
"""A detection whose own part (what better-scored counted cards leave of it) shows this much
table is a box across a gap between cards. On 60 tuning spreads of seeds other than the
benchmark's (2,231 cards), a real card's own part showed at most 41% table, the seven such
boxes that `BETWEEN_CARDS_SHARE` let through at least 71%."""
TABLE_NEARER_FACTOR = 2.5
"""A detection this many times nearer a patch of bare table (matched as if it were one more
back, `vision.table_colours.bare_table_quad`) than its nearest registered back, and at least
`TABLE_FAR_FROM_BACK_MIN` from that, is table between the cards, not a card. Columns of cards
laid about a card's width apart on a pale table under harsh light make the detector find
'cards' in the gaps, whose colour the table colour model cannot judge (the cards' white
borders share it: `CARDS_AS_TABLE_MAX` refuses). On 20 tuning spreads of all 35 designs of
decks/backs in harsh light (seeds other than the benchmark's), such boxes lay 0.01-0.30 from
the table and 0.33-0.77 from their back; real cards dropped by a looser rule (0.1 nearer the
table) 0.16-0.25 and 0.26-0.38 (1.4-1.9 times)."""
TABLE_FAR_FROM_BACK_MIN = 0.3
"""See `TABLE_NEARER_FACTOR`: a plain back the colour of the felt lies near the table, but
nearer its own reference than this."""
TABLE_COLOURED_BACK_MAX = FAR_FROM_BACK_MIN
"""A detection scored as surely as a card (`SURE_CARD_SCORE_SHARE`) whose own part shows the
table's colours (`TABLE_SHARE_MAX`) is still a card where its back, what no other detection
overlaps of it, lies nearer a registered back's reference than this: a silver back on grey felt
shows the table's colours. In a tuning spread of all designs against photographed references
(seed 3), three silver cards lying whole had been dropped so, without a warning; their backs
lay 0.09-0.20 from silver's reference, while sure boxes across gaps between black backs on
dark red felt (seed 2) that the colours rightly dropped lay 0.72-0.75 from every back."""
COUNT_IOU_MAX = DETECTION_IOU_MAX
"""Detections of a count photo overlapping more than this are one card: the count's filters
were tuned with it, and identify's looser `CARD_IOU_MAX` counted the same 60 tuning spreads
(all exact) while one benchmark spread under harsh light gained a card."""


CROWDED_SHOWN_MIN = 0.45
"""A counted card showing less than this share of itself (what the cards on top of it leave)
lies mostly under others (`CountResult.crowded`)."""
CROWDED_SHARE_MAX = 0.2
"""Above this share of the cards found lying mostly under others, dropped or counted, a spread
is too close to count surely (`CountResult.crowded`). On tuning spreads of seeds other than
the benchmark's: 12 in rows as the benchmark lays them 0-0.07 (under harsh light, 12 more,
up to 0.15), 10 with each card showing 65-80% of its width up to 0.06 (all 34 exact); 10
showing half of it 0.29-0.48, and 10 a third of it 0.22-0.36 (all 20 counted short, by 3 to
27 cards)."""


UNCOUNTED_CARDS_MAX = 0.12
"""More of the photo than this (in median card areas) looking like cards outside every counted
card means cards lying mostly under others were likely missed (`CountResult.parts_uncounted`;
`vision.table_colours.uncounted_parts`). On tuning spreads of seeds other than the benchmark's:
rows as the benchmark lays them (30 of unlike backs, 60 under harsh light, 12 of all designs;
all exact but three with a back misread) at most 0.08; rows pushed close, each card showing
65-80% of its width, 10 exact at 0.0 and, from the benchmark's own generator, 48 of 60 exact at
0.0 (with `_covering` as it is; 5 of the other 12, each a card or two short, warned); cards
scattered at any angle, each showing at least 15% (54 spreads): of the 33 counted short, 29
over 0.12 (`CROWDED_SHARE_MAX` warned of none), of the 21 exact 3 (0.26-0.28: one layout drawn
three ways, cards found askew); 20 more from the benchmark's generator: 17 of the 19 counted
short."""

FACE_SHOWN_READ_MIN = FACE_DOWN_READ_MIN
"""A counted card whose index corners and face name it at least this surely lies face up:
the count takes every card for a back, so it is counted for one, and `nerts count` says so.
The bar at which `identify` reports a card the detector called face down as face up. Of the
cards counted in 120 tuning spreads (rows, close rows; unlike backs, all designs of
decks/backs with the picture of four aces among them; plain and harsh light) none read so;
in 8 tuning renders of games (val designs) 36-68% of the cards found did."""


DECK_CARDS_MAX = 54
"""The most cards of one back a round can leave: a 52-card deck and two jokers (docs/RULES.md;
partners share one deck). More were counted only in a photo taken so close that the backs'
pattern was found as cards: two cards 680 px wide in a 1600x1200 photo of a checked, dotted
or lattice back were counted as 166-441."""
