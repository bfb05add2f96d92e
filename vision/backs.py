"""Deck backs told apart against registered reference images.

A reference is any image of the back: a design file or a photo crop. It and each face-down
card become a back feature (`vision/back_features.py`); the nearest reference names a card's
back, each reference seen as small as the card.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from vision.back_features import (
    BackFeature,
    back_feature,
    card_interior,
    exposed_back_features,
    white_clipped,
)
from vision.geometry import RECTIFIED_SIZE

log = logging.getLogger(__name__)

OPAQUE_ALPHA = 128
"""Alpha (0-255) from which a pixel of a reference design file counts as printed."""
MATCH_SOFTNESS = 0.05
"""Distance scale that turns the gap between best and next-best match into a confidence (only
reported, never a threshold: chosen when first written, not tuned)."""
LONE_MATCH_SOFTNESS_FACTOR = 4.0
"""With one back registered there is no runner-up: the confidence falls with the distance
itself, on a scale this many times `MATCH_SOFTNESS` (a card's own back lies further from its
reference than the gap between two references' matches)."""
ALIKE_DISTANCE = 0.12
"""Registered backs closer than this are one design to the matcher, and their cards cannot be
told apart: among the 35 files of decks/backs, designs that differ in name alone lie at most
0.003 apart, two pairs that differ by a corner mark (a mean 0.3 of 255 per pixel) 0.014 and
0.022, grey and silver (which differ in shade alone) 0.047-0.061. Photographed under harsh
light, a corner-mark pair lay 0.067 and 0.096 apart in two tuning spreads, and all 15 cards of
one were counted for the other without a word at the 0.04 used before (grey and silver: 8 of
12 cards so in a spread of design files). The nearest different designs told apart in tuning
spreads (design files and photographs) lie 0.143-0.159 apart."""
SIZE_STEPS_PER_OCTAVE = 4
"""A card seen small has lost the fine pattern its design file shows, so references are
matched at the card's own size in the photo, rounded to a quarter octave (and cached). On 60
tuning count spreads of all 35 designs: 203 -> 138 cards' backs named wrong (on spreads of
unlike backs, 0 -> 1)."""

EXPOSURE_GAINS = (1.15, 1.3)
"""A reference whose white is clipped (`vision.back_features.white_clipped`: a photo of a dark
back exposed for the back blows its white border out) may show its colours brighter against its
white than the cards do, by how much is unknown: it may also be matched as if its white were
these many times brighter, at the one exposure a photo's cards agree with best
(`BackMatcher.settled`). A design file's white is 255, so it may be too (printed inks come out
darker than some files). On tuning spreads (seeds 1 and 2, 20 of each kind of
`bench_count_tuning.py`), counted exactly: all 35 designs against references photographed under
harsh light 33 -> 36 (an overexposed photo of a blue back with faint suits had taken 8 of its 9
cards for a plain blue back), unlike backs so 39 -> 40, against uncropped such photos 37 -> 39;
every other kind as before (3840x2160 photos at seed 1 alone), backs in a bright and a dark
shade of one colour 20 of 20 (seed 1; each card matched at its own nearest exposure instead,
15: a blue back's file taken darker reached navy cards). Gains up to 1.7, each card at its
nearest, did no better. Held out (seeds 3 and 4): unlike backs against photographed references
38 -> 40, against uncropped ones 35 -> 38, all designs against photographed ones 16 -> 16 at
seed 3 (1.7 -> 1.2 cards off) and 18 -> 18 at seed 4 (1.7 -> 0.8). The benchmark's spreads
(seed 7): all designs against photographed references 17 -> 18 of 20 (2.5 -> 1.0 cards off);
unlike backs against uncropped references 20 -> 19 (a blue back of dots, its reference more
overexposed than that of a blue back of stripes, took 5 of the stripes' cards, each doubted);
shades of one colour 20 of 20. A bright back with next to no cards beside its dark twin's many
was still taken darker and took the twin's cards: `TAKE_MARGIN` stops that."""

NEAR_REFERENCE_DISTANCE = 0.25
"""References lying nearer each other than this (at full size, at the exposures tried) may be
one design in two shades: backs printed in a bright and a dark shade of one colour lie
0.22-0.28 apart as they show and 0.10-0.21 with the bright one taken darker, while unlike
designs of one colour lie 0.3 and more apart (blue dots and blue stripes 0.30-0.50)."""
TAKE_MARGIN = 0.05
"""In `BackMatcher.settled`'s search, a card counts as moving between references lying within
`NEAR_REFERENCE_DISTANCE` of each other only where it lies this much nearer its new one. A
bright back with none or a sixth as many cards as its dark twin, taken darker, took the twin's
cards 0.002-0.041 nearer than their own reference (tuning spreads of shades of one colour in
uneven shares: seed 2, 14 of 20 exact); references photographed too bright took their own
cards 0.065-0.11 nearer. Tuning spreads, without -> with the margin: shades in uneven shares
33 -> 40 of 40 exact (seeds 1 and 2), held out 18 -> 19 and 19 -> 20 of 20 (seeds 3 and 4);
all designs against photographed references in uneven shares 36 -> 35, 17 -> 16 and 16 -> 16
(a back of one card lost it to a design near it; a plain back and its faint-suits twin, 4
cards, counted as one without a warning where 7 had been counted wrong with one); all designs
against photographed references 52, unlike backs against uncropped photos 60, against
photographed ones 40, as before. The margin for any two references (not only near ones)
counted the same on tuning spreads but let blue dots take all 14 of blue stripes' cards in a
benchmark spread against uncropped photos."""

SETTLING_ROUNDS_MAX = 10
"""Rounds of `BackMatcher.settled`'s search over references' exposures (it settles in two)."""

REFERENCE_MIN_SIDE_PX = 32
"""A back reference narrower than this shows no pattern to match (backs are told apart by
colour and pattern); refused rather than matched by colour alone."""


WASHED_OUT_LEVEL = 250
"""A pixel whose every channel is at least this (of 255) shows no colour or pattern: clipped
by the camera, or the white a transparent design file is put on."""
WASHED_OUT_SHARE_MAX = 0.8
"""A reference whose card shows more than this share of `WASHED_OUT_LEVEL` pixels (inside its
margin, `card_interior`) is washed out, and its cards can be told only as white ones. Of 135
references photographed under harsh light in tuning spreads, all but one showed at most 0.45
(a back of white rings); the one at 0.997, a silver back blown out, had all its cards counted
for another grey back."""


def washed_out_share(reference: np.ndarray) -> float:
    """The share of a back reference's card (inside its margin) showing no colour or pattern
    at all (`WASHED_OUT_LEVEL`)."""
    inner = card_interior(cv2.resize(reference, RECTIFIED_SIZE, interpolation=cv2.INTER_AREA))
    return float((inner.min(axis=2) >= WASHED_OUT_LEVEL).mean())


class BackReferenceError(ValueError):
    """A back reference that cannot be used: the message names the file."""


class ReferenceTooLargeError(BackReferenceError):
    """A back reference with more pixels than OpenCV is let decode (the caller's limit)."""


class UndecodableReferenceError(BackReferenceError):
    """A back reference OpenCV cannot decode (not a picture, an empty file, a format it lacks):
    the caller may say why from the file's first bytes."""


class BackMatch(NamedTuple):
    """A card's nearest registered back."""

    name: str
    score: float
    """Confidence 0..1: from its margin over the next nearest back, or, where only one back is
    registered, from its distance to that one (`BackMatcher.nearest`)."""
    distance: float
    """How far the card lies from that back's reference at the nearest of the exposures the
    matcher holds (`BackFeature.distance`, `BackMatcher.references_at`; one, once `settled`)."""


class BackMatcher:
    def __init__(self, references: dict[str, np.ndarray]) -> None:
        if not references:
            raise BackReferenceError("register at least one back")
        # A card photographed lying sideways is the same back: patterns are compared
        # without their sense of direction, so either quarter turn will do.
        self.references = {
            name: np.ascontiguousarray(np.rot90(image))
            if image.shape[1] > image.shape[0]
            else image
            for name, image in references.items()
        }
        # Judged once, on the reference as given: seen small, a white printed in its pattern
        # (no rim) blurs under the level, and one back would be matched otherwise by size.
        self.white_gains = {
            name: (1.0, *EXPOSURE_GAINS) if white_clipped(image) else (1.0,)
            for name, image in self.references.items()
        }
        """Each reference's whites it is matched at (`EXPOSURE_GAINS`)."""
        full = {
            name: exposed_back_features(image, self.white_gains[name])
            for name, image in self.references.items()
        }
        self.features = {name: exposures[0] for name, exposures in full.items()}
        """Each reference's feature as it shows, at full size."""
        self._references_by_size: dict[int | None, dict[str, list[BackFeature]]] = {None: full}
        self._references_apart: list[list[np.ndarray]] | None = None

    def alike(self) -> list[tuple[str, str]]:
        """Pairs of registered backs the matcher cannot tell apart (`ALIKE_DISTANCE`), as
        references at their full size: backs that differ only in a fine pattern may still be
        mixed up on small cards."""
        names = list(self.features)
        return [
            (first, second)
            for i, first in enumerate(names)
            for second in names[i + 1 :]
            if self.features[first].distance(self.features[second]) < ALIKE_DISTANCE
        ]

    def washed_out(self) -> dict[str, float]:
        """The registered backs whose reference is washed out to white
        (`WASHED_OUT_SHARE_MAX`), each with its share of pure white (`washed_out_share`)."""
        shares = {name: washed_out_share(image) for name, image in self.references.items()}
        return {name: share for name, share in shares.items() if share > WASHED_OUT_SHARE_MAX}

    def match(
        self,
        card: np.ndarray,
        seen_width_px: float | None = None,
        visible: np.ndarray | None = None,
    ) -> BackMatch:
        """The nearest registered back; `seen_width_px`, the card's width in the photo,
        matches references seen as small; `visible`, the part of the rectified card no other
        card covers (`uncovered`)."""
        return self.match_feature(back_feature(card, visible), seen_width_px)

    def match_feature(self, feature: BackFeature, seen_width_px: float | None = None) -> BackMatch:
        """`match` for a card whose feature is already made."""
        return self.nearest(self.distances(feature, seen_width_px))

    def nearest(self, distances: dict[str, float]) -> BackMatch:
        """The nearest back of a card's `distances` to every reference, scored by its margin."""
        ranked = sorted((d, name) for name, d in distances.items())
        best, name = ranked[0]
        if len(ranked) == 1:
            score = np.exp(-best / (MATCH_SOFTNESS * LONE_MATCH_SOFTNESS_FACTOR))
        else:
            score = 1 - np.exp(-(ranked[1][0] - best) / MATCH_SOFTNESS)
        return BackMatch(name, float(score), float(best))

    def distances(
        self, feature: BackFeature, seen_width_px: float | None = None
    ) -> dict[str, float]:
        """How far a card lies from each registered back's reference (`BackFeature.distance`),
        each reference seen as small as the card, at the nearest of its exposures
        (`references_at`; one, in a matcher `settled` on a photo)."""
        return {
            name: float(distances.min())
            for name, distances in self.exposure_distances(feature, seen_width_px).items()
        }

    def exposure_distances(
        self, feature: BackFeature, seen_width_px: float | None = None
    ) -> dict[str, np.ndarray]:
        """`distances` to each reference at each of its `white_gains`."""
        references = self.references_at(seen_width_px)
        # One stacked comparison with every exposure of every reference.
        flat = feature.distances_to(
            [exposure for exposures in references.values() for exposure in exposures]
        )
        ends = np.cumsum([len(exposures) for exposures in references.values()])
        return {
            name: flat[end - len(exposures) : end]
            for (name, exposures), end in zip(references.items(), ends, strict=True)
        }

    def settled(self, cards: Sequence[tuple[BackFeature, float | None]]) -> BackMatcher:
        """This matcher with each reference at one of its exposures for a photo's `cards`
        (each a feature and its width seen, as `distances` takes them): the choice that brings
        the cards nearest the references that name them in all (`_nearest_in_all`); itself
        where there is nothing to choose. A reference shows one exposure, whichever card it is
        compared with; matched at the nearest for each card, a bright back's reference taken
        darker reached the cards of its dark twin (blue and navy, red and maroon:
        `EXPOSURE_GAINS`). Where the bright back has next to no cards of its own, taken darker
        it would still bring the twin's cards a little nearer than their own reference if they
        show a little brighter than it: such a gain does not count (`TAKE_MARGIN`)."""
        names = list(self.references)
        if not cards or all(len(self.white_gains[name]) == 1 for name in names):
            return self
        per_card = [self.exposure_distances(feature, width) for feature, width in cards]
        picked = _nearest_in_all(
            [np.stack([card[name] for card in per_card]) for name in names], self._apart()
        )
        chosen = dict(zip(names, picked, strict=True))
        settled = copy.copy(self)
        settled.white_gains = {name: (self.white_gains[name][k],) for name, k in chosen.items()}
        settled._references_apart = None  # held at every exposure: not the settled ones
        settled._references_by_size = {
            step: {name: [exposures[chosen[name]]] for name, exposures in references.items()}
            for step, references in self._references_by_size.items()
        }
        return settled

    def _apart(self) -> list[list[np.ndarray]]:
        """How far each registered reference lies from each (in registered order), at full
        size, at each of their exposures: `[a][b]` is a's exposures x b's."""
        if self._references_apart is None:
            full = list(self.references_at(None).values())
            self._references_apart = [
                [np.stack([one.distances_to(others) for one in ones]) for others in full]
                for ones in full
            ]
        return self._references_apart

    def references_at(self, seen_width_px: float | None) -> dict[str, list[BackFeature]]:
        """Each reference's features as seen on a card `seen_width_px` wide in the photo, at
        each of its `white_gains` (registered: as it shows first, then, where its white is
        clipped, as exposed less, `EXPOSURE_GAINS`; `settled`: the one chosen)."""
        step = (
            None
            if seen_width_px is None or seen_width_px >= RECTIFIED_SIZE[0]
            else round(SIZE_STEPS_PER_OCTAVE * np.log2(max(seen_width_px, 1.0)))
        )
        if step not in self._references_by_size:
            self._references_by_size[step] = {
                name: exposed_back_features(
                    image if step is None else _seen_at(image, 2 ** (step / SIZE_STEPS_PER_OCTAVE)),
                    self.white_gains[name],
                )
                for name, image in self.references.items()
            }
        return self._references_by_size[step]


def _nearest_in_all(distances: list[np.ndarray], apart: list[list[np.ndarray]]) -> list[int]:
    """For each reference (`distances`, each cards x its exposures), the exposure at which the
    cards lie nearest the references that name them in all: from every reference as it shows
    (exposure 0), each card named by its nearest, each reference in turn is moved to any
    exposure that lowers the total, the others held, until none moves (at most
    `SETTLING_ROUNDS_MAX` rounds). `apart[a][b]`: how far reference `a` lies from `b` at each
    of their exposures. A trial counts a card as moving between two references lying within
    `NEAR_REFERENCE_DISTANCE` of each other only where it lies `TAKE_MARGIN` nearer its new
    one."""
    chosen = [0] * len(distances)
    cards = np.arange(distances[0].shape[0])
    references = range(len(distances))

    def at(choice: list[int]) -> np.ndarray:
        return np.stack([d[:, k] for d, k in zip(distances, choice, strict=True)], axis=1)

    def total(choice: list[int], named_by: np.ndarray) -> float:
        trial = at(choice)
        nearest_by, nearest = trial.argmin(axis=1), trial.min(axis=1)
        own = trial[cards, named_by]
        between = np.array(
            [[apart[a][b][choice[a], choice[b]] for b in references] for a in references]
        )
        near = between[nearest_by, named_by] < NEAR_REFERENCE_DISTANCE
        return float(np.where(near & (nearest > own - TAKE_MARGIN), own, nearest).sum())

    def named_and_total(choice: list[int]) -> tuple[np.ndarray, float]:
        now = at(choice)
        return now.argmin(axis=1), float(now.min(axis=1).sum())

    named_by, best = named_and_total(chosen)
    for _ in range(SETTLING_ROUNDS_MAX):
        moved = False
        for reference, exposures in enumerate(distances):
            for exposure in range(exposures.shape[1]):
                trial = [*chosen[:reference], exposure, *chosen[reference + 1 :]]
                if total(trial, named_by) < best:
                    chosen, moved = trial, True
                    named_by, best = named_and_total(chosen)
        if not moved:
            break
    return chosen


GREYSCALE_REFERENCE_SAID = (
    "back %r: %s is a greyscale picture, but backs are told apart by colour as well as "
    "pattern, so the cards of a coloured back may not be matched to it; give a colour photo "
    "or design file"
)
"""The warning of a greyscale reference, with the back's name and file."""


def read_reference(name: str, path: Path) -> np.ndarray:
    """The picture at `path` of back `name`, as `decode_reference` gives it, warning of a
    greyscale one."""
    image, greyscale = decode_reference(name, path)
    if greyscale:
        log.warning(GREYSCALE_REFERENCE_SAID, name, path)
    return image


def decode_reference(name: str, path: Path) -> tuple[np.ndarray, bool]:
    """The picture at `path` of back `name`, BGR (a transparent design file `_on_white`), and
    whether the file is greyscale; `BackReferenceError` if it cannot be used. Says nothing:
    the commands decode it with the decoder's own messages caught, and warn afterwards."""
    greyscale = False
    try:
        image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        greyscale = image is not None and image.ndim == 2
        if image is not None and not (image.ndim == 3 and image.shape[2] == 4):
            # Read again as photos are, turned as the camera's orientation tag says (which
            # IMREAD_UNCHANGED ignores); only a transparent design file needs its alpha.
            image = cv2.imread(str(path), cv2.IMREAD_COLOR | cv2.IMREAD_ANYDEPTH)
    except cv2.error as error:
        if "CV_IO_MAX_IMAGE_PIXELS" in str(error):
            raise ReferenceTooLargeError(
                f"back {name!r}: cannot read image {path}: more pixels than OpenCV decodes"
            ) from None
        reason = str(error).strip()
        raise BackReferenceError(f"back {name!r}: cannot read image {path}: {reason}") from None
    if image is None:
        raise UndecodableReferenceError(f"back {name!r}: cannot read image {path}")
    if image.dtype == np.uint16:  # 16-bit PNG and TIFF files
        image = np.right_shift(image, 8).astype(np.uint8)
    if image.dtype != np.uint8:
        raise BackReferenceError(
            f"back {name!r}: {path} holds {image.dtype} pixels; give an 8- or 16-bit picture"
        )
    # A design file's size is that of its opaque part: it may sit on a larger canvas.
    image = _on_white(image)
    height, width = image.shape[:2]
    if min(height, width) < REFERENCE_MIN_SIDE_PX:
        raise BackReferenceError(
            f"back {name!r}: {path} shows a back {width} x {height} pixels; give a picture of "
            f"the whole back, at least {REFERENCE_MIN_SIDE_PX} pixels each way"
        )
    return image, greyscale


def _seen_at(image: np.ndarray, width_px: float) -> np.ndarray:
    """The image as a camera sees it `width_px` wide, brought back to the rectified size the
    way `rectify` enlarges a small card."""
    card = cv2.resize(image, RECTIFIED_SIZE, interpolation=cv2.INTER_AREA)
    height_px = width_px * RECTIFIED_SIZE[1] / RECTIFIED_SIZE[0]
    small = cv2.resize(
        card, (max(1, round(width_px)), max(1, round(height_px))), interpolation=cv2.INTER_AREA
    )
    return cv2.resize(small, RECTIFIED_SIZE, interpolation=cv2.INTER_LINEAR)


def _on_white(image: np.ndarray) -> np.ndarray:
    """A BGR image; a transparent design file is cut to its opaque part (design files often
    sit on a larger canvas) and composited onto white."""
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        rows, columns = np.nonzero(image[:, :, 3] >= OPAQUE_ALPHA)
        if rows.size:
            image = image[rows.min() : rows.max() + 1, columns.min() : columns.max() + 1]
        alpha = image[:, :, 3:4].astype(np.float32) / 255
        return (image[:, :, :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)
    return image
