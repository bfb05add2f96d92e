"""A deck back's look as a feature, and how far two features lie apart.

Each back image (a reference: a design file or a photo crop) and each face-down card, rectified,
becomes a feature: a hue/saturation histogram for the colour, for the pattern a
gradient-orientation histogram plus the energy in bands of spatial frequency, so two blue backs
of different designs differ, and a coarse layout of where the back is darker or lighter
(`vision/back_layout.py`). Matching cards to registered backs is `vision/backs.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.back_layout import LAYOUT_WEIGHT, back_layout, layout_distances
from vision.geometry import RECTIFIED_SIZE

BORDER_SHARE = 0.12
"""Share of the card trimmed on every side: the white margin and rounded corners say nothing."""
HUE_BINS = 12
"""Coarse hue bins, smoothed across neighbours: lighting shifts hue a little, never a lot."""
ACHROMATIC_SPREAD = 55
"""A pixel whose channels spread less than this (0-255, on the card's own white scale) counts
as white, grey or black, not as a hue. Saturation would not do: under a warm lamp a dark grey
is as saturated as a red, though its channels differ little. On 30 tuning count spreads under
harsh light (casts to 25%, exposure 0.6-1.3), by saturation 57 cards' backs were named wrong
(black backs named red or blue); by spread, 3 at 40 and 1 at 55."""
DARK_VALUE = 90
"""Below this brightness (0-255, on the card's own white scale) an achromatic pixel is dark."""
WHITE_PERCENTILE = 95
"""Brightness percentile of the whole card taken as its white: brightness is measured on this
scale, so that a dim photo and a bright design file of one back agree (the card's white
border, where it has one, sets it)."""
WHITE_FLOOR = 128
"""The least brightness taken as a card's white: a back with no white border (or a reference
cut inside it) would otherwise have its own dark colour stretched to white, and a faint cast
on black stretched into a hue."""
CLIPPED_WHITE_LEVEL = 250
"""A card whose white reaches this (0-255) may be clipped: a photo exposed for a dark back
blows its white border out, and a design file's white is 255 whatever the ink; either way
the image's white sets no scale for its colours (`white_clipped`)."""
VALUE_BINS = 4
"""Brightness bins of the coloured pixels: aqua and teal, or blue and navy, share a hue. With
brightness (4 bins, weight 0.5, the 95th percentile as white), 60 tuning count spreads drawn
from all 35 designs of decks/backs had 83 cards' backs named wrong instead of 138; 6 bins,
weight 1 or the 99th percentile did no better."""
VALUE_WEIGHT = 0.5
"""Weight of the brightness histogram against the hue histogram in the colour distance (chosen
when first written; the count benchmarks of every kind have measured it since, unchanged)."""
SHARPNESS_SIGMA_PX = 1.2
"""Both a crisp design file and a soft photo are blurred alike before the pattern is measured."""
ORIENTATION_BINS = 9
"""Bins of the pattern's gradient orientations, 20 degrees each over 0-180: enough to tell
stripes from diamonds and checks, coarse enough that a card turned a few degrees matches."""
FREQUENCY_BANDS = 8
"""Radial bands of the pattern's spectrum, from coarse (big motifs) to fine (thin lines):
two backs of one colour differ mostly in how fine their pattern is."""
PATTERN_WEIGHT = 0.6
"""Share of the histograms' distance given to the pattern; the rest is colour (chosen when
first written; the count benchmarks of every kind have measured it since, unchanged)."""
ORIENTATION_NOISE_FLOOR = 3.0
"""Gradient strength per pixel (Sobel, on the card's white scale of 255) spread evenly over
the orientation bins before they are normalised: what a camera's noise and the card stock's
grain add to any back. Without it the faint shading across a plain back's design file,
normalised, is one sharp peak, while a photo of that back shows grain in every direction and
looked patterned: plain red and blue backs were taken for designs of their colour with faint
motifs. Measured on plain rendered backs: 3.5-4.5; design files: 0-2."""
SPECTRUM_NOISE_FLOOR = 100.0
"""The same for the frequency bands: spectrum magnitude per frequency sample, added to each
band in proportion to its share of the spectrum (noise is white). The floors were tuned
with the layout (`vision/back_layout.py`, `LAYOUT_WEIGHT`, which gives the figures): 3 and
100 did as well as 6 and 300 on spreads of all designs, and better under harsh light."""
SHOWN_EDGE_PX = 2
"""Pixels of the rectified card kept clear of a covering card's outline (`shown_only`)."""
MIN_SHOWN_PX = 400
"""Interior pixels of the rectified card (of about 29,000) that must show for `shown_only`
histograms; a card showing less is measured whole."""


@dataclass(frozen=True)
class BackFeature:
    colour: np.ndarray
    pattern: np.ndarray
    layout: tuple[np.ndarray, np.ndarray]
    """`back_layout`: the cells' colours and the share of each the card shows."""

    def distance(self, other: BackFeature) -> float:
        return float(self.distances_to([other])[0])

    def distances_to(self, others: Sequence[BackFeature]) -> np.ndarray:
        """`distance` to each of `others` at once (a count compares every card with every
        other)."""
        if not others:
            return np.zeros(0)
        colour = 0.5 * np.abs(self.colour - np.stack([o.colour for o in others])).sum(axis=1)
        pattern = 0.5 * np.abs(self.pattern - np.stack([o.pattern for o in others])).sum(axis=1)
        histograms = (1 - PATTERN_WEIGHT) * colour + PATTERN_WEIGHT * pattern
        layouts = (np.stack([o.layout[0] for o in others]), np.stack([o.layout[1] for o in others]))
        return histograms + LAYOUT_WEIGHT * layout_distances(self.layout, layouts)


def pairwise_distances(features: Sequence[BackFeature]) -> np.ndarray:
    """Every feature's `BackFeature.distance` to every other (n x n, symmetric, zeros on the
    diagonal)."""
    pairwise = np.zeros((len(features), len(features)))
    for i, first in enumerate(features[:-1]):
        pairwise[i, i + 1 :] = pairwise[i + 1 :, i] = first.distances_to(features[i + 1 :])
    return pairwise


def card_interior(card: np.ndarray) -> np.ndarray:
    """The card inside its margin (`BORDER_SHARE`)."""
    height, width = card.shape[:2]
    dy, dx = int(height * BORDER_SHARE), int(width * BORDER_SHARE)
    return card[dy : height - dy, dx : width - dx]


def back_feature(
    card: np.ndarray, visible: np.ndarray | None = None, *, shown_only: bool = False
) -> BackFeature:
    """Feature of a back image (BGR), any size; it is brought to the rectified card's size.
    `visible` (the rectified size, nonzero where the card shows) leaves the parts other cards
    cover out of its layout, and with `shown_only` out of its histograms too (where the cards
    lying on top of it are known, `vision/stacking.py`)."""
    return exposed_back_features(card, (1.0,), visible, shown_only=shown_only)[0]


def exposed_back_features(
    card: np.ndarray,
    white_gains: Sequence[float],
    visible: np.ndarray | None = None,
    *,
    shown_only: bool = False,
) -> list[BackFeature]:
    """`back_feature` of the card with its white taken as each of `white_gains` times brighter
    than it shows (`white_clipped`). Its pattern and layout only scale with the white, so they
    are measured once."""
    blurred, white = _blurred_with_white(card)
    white = max(white, WHITE_FLOOR)
    inner = card_interior(blurred)
    shown = _shown(visible) if shown_only and visible is not None else None
    layout, layout_shown = back_layout(
        inner, _channel_whites(blurred), None if visible is None else card_interior(visible)
    )
    grey = cv2.cvtColor(inner, cv2.COLOR_BGR2GRAY).astype(np.float32)
    grey *= 255 / white
    gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    magnitude, angle = cv2.cartToPolar(gx, gy)
    counted = grey.size
    if shown is not None:
        magnitude, counted = magnitude * shown, int(shown.sum())
        grey = (grey - float(grey[shown].mean())) * shown
    # Unsigned orientation: a card turned 180 degrees has the same pattern.
    orientation = _circular_histogram(
        angle.ravel() % np.pi, ORIENTATION_BINS, np.pi, magnitude.ravel()
    )
    spectrum = np.abs(np.fft.fftshift(np.fft.fft2(grey - grey.mean())))
    band_of, band_shares = _frequency_bands(spectrum.shape)
    weights = np.bincount(band_of, spectrum.ravel(), FREQUENCY_BANDS + 1)[:FREQUENCY_BANDS]
    features = []
    for gain in white_gains:
        colour = _colour_histogram(inner if shown is None else inner[shown][None], white * gain)
        # A card's corners found a few degrees off turn its pattern that much, which must not
        # move a striped back into another bin.
        orientations = _spread_to_neighbours(
            orientation / (counted * gain) + ORIENTATION_NOISE_FLOOR / ORIENTATION_BINS
        )
        bands = weights / (counted * gain) + SPECTRUM_NOISE_FLOOR * band_shares
        pattern = np.concatenate([_normalised(orientations), _normalised(bands)]) / 2
        features.append(BackFeature(colour, pattern, (layout / gain, layout_shown)))
    return features


def white_clipped(card: np.ndarray) -> bool:
    """Whether the card's white reaches `CLIPPED_WHITE_LEVEL`: its true white may lie above
    what the image shows, its colours darker against it than they look."""
    return _blurred_with_white(card)[1] >= CLIPPED_WHITE_LEVEL


def _blurred_with_white(card: np.ndarray) -> tuple[np.ndarray, float]:
    """The card at the rectified size, blurred (`SHARPNESS_SIGMA_PX`) and white balanced, and
    its white (`WHITE_PERCENTILE` of its brightest channel)."""
    card = cv2.resize(card, RECTIFIED_SIZE, interpolation=cv2.INTER_AREA)
    blurred = _white_balanced(cv2.GaussianBlur(card, (0, 0), SHARPNESS_SIGMA_PX))
    return blurred, _percentile_of_bytes(blurred.max(axis=2), WHITE_PERCENTILE)


def _channel_whites(card: np.ndarray) -> np.ndarray:
    """Each colour channel's white (`WHITE_PERCENTILE`, at least `WHITE_FLOOR`)."""
    whites = [_percentile_of_bytes(card[:, :, i], WHITE_PERCENTILE) for i in range(3)]
    return np.maximum(whites, WHITE_FLOOR)


def _white_balanced(card: np.ndarray) -> np.ndarray:
    """The card with its own white made neutral: the card stock (its rim, a white pattern) is
    white whatever the light, so a colour cast is taken out of the photo and a reference
    photographed under another light agrees with it. A back printed to its edges, its
    brightest parts coloured, has those made neutral instead (no channel raised over 255 /
    `WHITE_FLOOR` times), alike in the photo and in its reference. On tuning spreads of seeds
    other than the benchmark's (harsh light: a cast to 25%, exposure 0.6-1.3), cards counted
    wrong / spreads not exact:
    all 35 designs of decks/backs in harsh light 32 -> 20 / 4 -> 3 (20 spreads), against
    references photographed in harsh light 61 -> 55 / 7 -> 4 and 54 -> 56 / 4 -> 3 (2 x 20),
    unlike backs in harsh light 2 -> 0 / 1 -> 0 (60); rows, close rows, all designs, scattered
    and half-shown spreads (170) alike or better (151 -> 149, 75 -> 73 cards off)."""
    whites = _channel_whites(card)
    # One lookup table per channel: the same bytes as scaling every pixel, a fifth of the time.
    tables = np.clip(np.arange(256)[:, None] * (whites.max() / whites), 0, 255).astype(np.uint8)
    balanced: np.ndarray = cv2.LUT(card, tables.reshape(256, 1, 3))
    return balanced


def _shown(visible: np.ndarray) -> np.ndarray | None:
    """Where the interior shows (`visible`), kept `SHOWN_EDGE_PX` clear of the covering cards'
    outlines (an edge of neither back); None where too little shows (`MIN_SHOWN_PX`)."""
    size = 2 * SHOWN_EDGE_PX + 1
    shown = cv2.erode(
        (card_interior(visible) > 0).astype(np.uint8), np.ones((size, size), np.uint8)
    )
    return shown.astype(bool) if int(shown.sum()) >= MIN_SHOWN_PX else None


def _percentile_of_bytes(values: np.ndarray, percent: float) -> float:
    """`np.percentile(values, percent)` of 8-bit values (interpolated alike), from their
    counts: a quarter of the time, and back features are made for every card and size."""
    cumulative = np.cumsum(np.bincount(values.ravel(), minlength=256))
    position = percent / 100 * (values.size - 1)
    below = int(position)
    low, high = np.searchsorted(cumulative, [below, min(below + 1, values.size - 1)], "right")
    return float(low + (high - low) * (position - below))


@lru_cache(maxsize=4)
def _frequency_bands(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For a centred spectrum of this shape: each sample's band (`FREQUENCY_BANDS` for those
    beyond the last band, radius 0.5 of the sampling rate, which are left out) and each band's
    share of the samples."""
    height, width = shape
    rows, columns = np.mgrid[:height, :width]
    radius = np.hypot((rows - height / 2) / height, (columns - width / 2) / width).ravel()
    band = np.minimum(np.floor(radius / 0.5 * FREQUENCY_BANDS), FREQUENCY_BANDS - 1)
    band_of = np.where(radius <= 0.5, band, FREQUENCY_BANDS).astype(np.int64)
    shares = np.bincount(band_of, minlength=FREQUENCY_BANDS + 1)[:FREQUENCY_BANDS] / radius.size
    return band_of, shares


def _colour_histogram(card: np.ndarray, white: float) -> np.ndarray:
    """Saturation-weighted hue and brightness histograms, plus the shares of dark and light
    achromatic pixels; brightness and spread are on the scale where `white` is 255."""
    hsv = cv2.cvtColor(card, cv2.COLOR_BGR2HSV)
    hue, saturation, value = (hsv[:, :, i].ravel().astype(np.float32) for i in range(3))
    scale = 255 / max(white, WHITE_FLOOR)
    value = np.minimum(value * scale, 255)
    channels = card.reshape(-1, 3).astype(np.float32)
    chromatic = (channels.max(axis=1) - channels.min(axis=1)) * scale >= ACHROMATIC_SPREAD
    weights = saturation[chromatic]
    hues = _normalised(_circular_histogram(hue[chromatic], HUE_BINS, 180, weights))
    hues = hues * chromatic.mean()
    hues = _spread_to_neighbours(hues)
    values = _normalised(_linear_histogram(value[chromatic], VALUE_BINS, 255, weights))
    dark = float(((~chromatic) & (value < DARK_VALUE)).mean())
    light = float(((~chromatic) & (value >= DARK_VALUE)).mean())
    return np.concatenate([hues, [dark, light], values * chromatic.mean() * VALUE_WEIGHT])


def _circular_histogram(
    values: np.ndarray, bins: int, period: float, weights: np.ndarray
) -> np.ndarray:
    """A histogram whose every value is shared between its two nearest bin centres, so that
    a colour or an angle on a bin's edge (pure blue is one) does not jump bins when lighting
    or a corner found a little off moves it a hair."""
    position = values.astype(np.float64) / period * bins - 0.5
    lower = np.floor(position)
    upper_share = position - lower
    lower_bin = lower.astype(np.int64) % bins
    return _shared(lower_bin, (lower_bin + 1) % bins, upper_share, weights, bins)


NEIGHBOUR_SHARE = 0.25
"""The share of a circular histogram's bin given to each neighbouring bin
(`_spread_to_neighbours`): a value near a bin's edge then counts in both bins."""


def _spread_to_neighbours(histogram: np.ndarray) -> np.ndarray:
    """A circular histogram with `NEIGHBOUR_SHARE` of each bin moved to either neighbour."""
    spread = (1 - 2 * NEIGHBOUR_SHARE) * histogram
    return spread + NEIGHBOUR_SHARE * (np.roll(histogram, 1) + np.roll(histogram, -1))


def _linear_histogram(values: np.ndarray, bins: int, top: float, weights: np.ndarray) -> np.ndarray:
    """A histogram over 0..`top` with bin centres at both ends, every value shared between
    its two nearest centres (as `_circular_histogram`, without wrapping round)."""
    position = np.clip(values.astype(np.float64) / top * (bins - 1), 0, bins - 1)
    lower_bin = np.minimum(np.floor(position).astype(np.int64), bins - 2)
    upper_share = position - lower_bin
    return _shared(lower_bin, lower_bin + 1, upper_share, weights, bins)


def _shared(
    lower_bin: np.ndarray,
    upper_bin: np.ndarray,
    upper_share: np.ndarray,
    weights: np.ndarray,
    bins: int,
) -> np.ndarray:
    """Each weight split between its lower and upper bin."""
    counts = np.bincount(lower_bin, weights * (1 - upper_share), minlength=bins)
    return counts + np.bincount(upper_bin, weights * upper_share, minlength=bins)


def _normalised(values: np.ndarray) -> np.ndarray:
    total = float(values.sum())
    return values / total if total > 0 else values
