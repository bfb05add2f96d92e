"""The count's spreads as the benchmarks draw them: kinds of spread, each counted and its
figures printed. `bench_recognition.py` counts the benchmark's spreads (rng seed 7, scenes
from 0); `bench_count_tuning.py` draws others of the same kinds to tune on."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
from recognition_data import (
    HARSH_LIGHT,
    back_reference,
    count_scene,
    photo_reference,
    scattered_count_scene,
    uncropped_reference,
)

from simulator.backs import BackDesign, back_from_spec
from simulator.count_spread import COUNT_PHOTO_SIZE
from simulator.sensor import LightSettings
from vision.back_references import back_image
from vision.backs import BackMatcher
from vision.count import count_backs, unlike_cards
from vision.identify import CardReader

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
BENCHMARK_SEED = 7
"""The seed of the benchmark's spreads (`bench_recognition.py`): never tuned on."""

COUNT_BACKS = [
    "red:lattice",
    "blue:dots",
    "blue:stripes",
    "green:checks",
    "black:rings",
    str(SHARED / "decks" / "backs" / "npm-svgcards-png__back-blue.png"),
    str(SHARED / "decks" / "backs" / "kde-nicu-white__back_c1.png"),
]
"""Backs as unlike as a family's decks."""
ALL_BACKS = sorted(str(path) for path in (SHARED / "decks" / "backs").glob("*.png"))
"""What `--count-all-backs` draws from: some of these designs differ only in a faint picture
or a shade of one colour."""

SHADE_TWINS = [
    ("blue", "navy"),
    ("red", "maroon"),
    ("lime", "green"),
    ("fuchsia", "purple"),
    ("aqua", "teal"),
    ("yellow", "olive"),
]
"""Published backs printed in a bright and a dark shade of one colour."""
SHADE_BACKS = [
    str(SHARED / "decks" / "backs" / f"npm-svgcards-png__back-{shade}.png")
    for twins in SHADE_TWINS
    for shade in twins
]
"""What `--count-shades` draws from: a spread of 2-4 of them mostly holds a pair of twins."""

SCATTER_CARDS_MAX = 40
"""Most cards of a scattered spread (`--count-scattered`): with more, hardly a draw shows every
card (`SCATTER_SHOWN_MIN`)."""
CLOSE_SHOWN = (0.65, 0.8)
"""Share of each card's width showing in the close spreads of `--count-close`."""
HIGH_RES = (3840, 2160)
"""A phone photo's size for `--count-high-res` (cards about 375 px long): the count's crops
then come from far more pixels than the benchmark's other photos."""
HALF_SHOWN = (0.45, 0.55)
"""The same, pushed closer still: about half of each card shows."""
UNEVEN_CONCENTRATION = 0.5
"""Each back's share of an uneven spread's cards is drawn from a Dirichlet distribution of
this concentration: under 1, one player's few foundation cards often lie beside another's
many, and a back may have none at all, as at a real table."""


@dataclass(frozen=True)
class SpreadKind:
    """A kind of count spread: its `label`, the backs it draws from (`pool`, 2-4 a spread),
    the light, each back's reference (`reference(back, seed)`, default: its design file),
    spreads pushed close (`shown`: the share of each card's width showing) or cards tossed
    anywhere at any angle (`scattered`, `scattered_count_scene`), photographed `size` large,
    the backs' shares of the cards even or drawn `uneven` (`UNEVEN_CONCENTRATION`)."""

    label: str
    pool: list[str]
    lights: LightSettings | None = None
    reference: Callable[[BackDesign, int], np.ndarray] | None = None
    shown: tuple[float, float] | None = None
    scattered: bool = False
    size: tuple[int, int] = COUNT_PHOTO_SIZE
    uneven: bool = False

    def __post_init__(self) -> None:
        if self.scattered and self.uneven:
            raise ValueError(f"{self.label}: scattered spreads are dealt evenly")


PHOTOGRAPHED: Callable[[BackDesign, int], np.ndarray] = partial(photo_reference, lights=HARSH_LIGHT)
SPREAD_KINDS = {
    "unlike": SpreadKind("unlike backs", COUNT_BACKS),
    "all": SpreadKind("all decks/backs designs", ALL_BACKS),
    "harsh": SpreadKind("unlike backs, harsh light", COUNT_BACKS, lights=HARSH_LIGHT),
    "photo": SpreadKind(
        "unlike backs, references photographed under harsh light",
        COUNT_BACKS,
        reference=PHOTOGRAPHED,
    ),
    "allharsh": SpreadKind("all decks/backs designs, harsh light", ALL_BACKS, lights=HARSH_LIGHT),
    "allphoto": SpreadKind(
        "all decks/backs designs, references photographed under harsh light",
        ALL_BACKS,
        reference=PHOTOGRAPHED,
    ),
    "close": SpreadKind(
        f"unlike backs, each card showing {CLOSE_SHOWN[0]:.0%}-{CLOSE_SHOWN[1]:.0%} of it",
        COUNT_BACKS,
        shown=CLOSE_SHOWN,
    ),
    "half": SpreadKind(
        f"unlike backs, each card showing {HALF_SHOWN[0]:.0%}-{HALF_SHOWN[1]:.0%} of it",
        COUNT_BACKS,
        shown=HALF_SHOWN,
    ),
    "scattered": SpreadKind(
        f"unlike backs, 10-{SCATTER_CARDS_MAX} cards scattered at any angle",
        COUNT_BACKS,
        scattered=True,
    ),
    "shades": SpreadKind("backs in a bright and a dark shade of one colour", SHADE_BACKS),
    "highres": SpreadKind(
        f"all decks/backs designs, photographed {HIGH_RES[0]}x{HIGH_RES[1]}",
        ALL_BACKS,
        size=HIGH_RES,
    ),
    "uncropped": SpreadKind(
        "unlike backs, references uncropped photos of one card under harsh light",
        COUNT_BACKS,
        reference=partial(uncropped_reference, lights=HARSH_LIGHT),
    ),
    "uneven": SpreadKind("unlike backs, uneven shares of the cards", COUNT_BACKS, uneven=True),
    "shadesuneven": SpreadKind(
        "backs in a bright and a dark shade of one colour, uneven shares of the cards",
        SHADE_BACKS,
        uneven=True,
    ),
    "allphotouneven": SpreadKind(
        "all decks/backs designs, references photographed under harsh light, uneven shares",
        ALL_BACKS,
        reference=PHOTOGRAPHED,
        uneven=True,
    ),
}
"""Every kind of spread, by the name `bench_count_tuning.py` takes."""


def counting(
    reader: CardReader,
    scenes: int,
    kind: SpreadKind,
    *,
    seed: int = BENCHMARK_SEED,
    first_scene: int = 0,
    each: bool = False,
) -> dict[str, object]:
    """Counts `scenes` spreads of `kind` drawn at `seed`, numbered from `first_scene` (which
    seeds each render), prints the figures and returns them; `each`: also every spread counted
    wrong or warned of, its backs' true and counted cards."""
    rng = np.random.default_rng(seed)
    pool, lights, reference, shown = kind.pool, kind.lights, kind.reference, kind.shown
    exact = 0
    errors = []
    warned = warned_exact = unlike_warned = crowded_warned = uncounted_warned = silent = 0
    doubt_warned = doubt_exact = 0
    for scene in range(first_scene, first_scene + scenes):
        picked = rng.choice(len(pool), size=int(rng.integers(2, 5)), replace=False)
        # Named by spec: "blue:dots" and "blue:stripes" are both called "blue" by the simulator.
        backs = [replace(back_from_spec(pool[i]), name=Path(pool[i]).name) for i in picked]
        if kind.scattered:
            cards_drawn = int(rng.integers(10, SCATTER_CARDS_MAX + 1))
            image, truth = scattered_count_scene(cards_drawn, backs, scene, lights, size=kind.size)
        else:
            cards_drawn = int(rng.integers(10, 61))
            shares = rng.dirichlet([UNEVEN_CONCENTRATION] * len(backs)) if kind.uneven else None
            image, truth = count_scene(
                cards_drawn, backs, scene, lights, shown, size=kind.size, shares=shares
            )
        # Each reference as `nerts count` takes it: a photo of a card is cut to the card.
        matcher = BackMatcher(
            {
                b.name: back_image(
                    back_reference(b) if reference is None else reference(b, 1000 * scene + k),
                    reader.detector,
                ).image
                for k, b in enumerate(backs)
            }
        )
        result = count_backs(image, reader, matcher)
        counted, cards = result.counts, result.cards
        crowded_warned += result.too_close
        uncounted_warned += result.parts_uncounted
        washed_out = bool(matcher.washed_out())
        backs_alike = bool(matcher.alike())
        # As `nerts count` warns of backs in doubt: not in a spread it asks to lay wider first.
        doubted = any(card.back_also for card in cards) and not result.too_close
        doubt_warned += doubted
        doubt_exact += doubted and counted == truth
        # As `nerts count` warns: not in a spread it asks to lay wider first.
        unlike = bool(unlike_cards(cards)) and not result.too_close
        unlike_warned += unlike
        warned_any = (
            result.too_close
            or result.parts_uncounted
            or washed_out
            or backs_alike
            or doubted
            or unlike
        )
        silent += counted != truth and not warned_any
        exact += counted == truth
        errors.append(sum(abs(counted[k] - truth[k]) for k in truth))
        if backs_alike:
            warned += 1
            warned_exact += counted == truth
        if each and (counted != truth or warned_any):
            cards_of = {name: (truth[name], counted[name]) for name in truth}
            print(f"  spread {scene}: backs (true, counted) {cards_of}; warned {warned_any}")
    alike = (
        f"; of the {scenes - warned} spreads without two backs `nerts count` warns look the "
        f"same, {exact - warned_exact} exact"
        if warned
        else ""
    )
    print(
        f"count ({kind.label}): {exact}/{scenes} spreads counted exactly (target all); mean cards "
        f"off per spread {statistics.mean(errors):.1f}{alike}; every back given, yet "
        f"warned of cards of a back not given in {unlike_warned}; warned the spread is too "
        f"close in {crowded_warned}, of parts looking like cards left uncounted in "
        f"{uncounted_warned}, of backs in doubt in {doubt_warned} ({doubt_exact} of them "
        f"exact); counted wrong with none of those warnings, nor two backs alike, nor a "
        f"reference washed out, in {silent}"
    )
    return {
        "spreads": scenes,
        "exact": exact,
        "mean cards off": round(statistics.mean(errors), 2),
        "two backs warned alike": warned,
        "warned of a back not given": unlike_warned,
        "warned too close": crowded_warned,
        "warned of parts uncounted": uncounted_warned,
        "warned of backs in doubt": doubt_warned,
        "wrong without a warning": silent,
    }
