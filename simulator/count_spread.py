"""The end-of-round count as a photo: a round's foundation cards turned face down and pushed
into overlapping rows, sorted by nobody, photographed from above. The benchmarks count such
spreads (`benchmarks/recognition_data.py`) and `nerts demo` counts its round's."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from simulator.backs import BackDesign
from simulator.faces import builtin_design
from simulator.render import RenderSettings, TableRenderer
from simulator.scene import CARD_HEIGHT_MM, CARD_WIDTH_MM, CardPose, Scene
from simulator.sensor import LightSettings
from simulator.table import TABLES

COUNT_TABLE_MM = (900.0, 506.0)
"""The table a count photo shows: cards about 125 px long at 1280x720."""
COUNT_PHOTO_SIZE = (1280, 720)
"""A count photo's size, unless asked for another."""
SPREAD_EDGE_MM = 80.0
"""The first row and column of cards lie this far from the table's top-left corner."""
LOOSE_ROWS = 5
"""Rows of a loose spread: as many cards to a row as that takes, at least `LOOSE_PER_ROW_MIN`."""
LOOSE_PER_ROW_MIN = 6
LOOSE_ROW_STEP_SHARE = 0.85
"""A loose spread's rows lie this share of a card's length apart."""
LOOSE_TURN_SD_DEG = 12.0
"""How far a loose spread's cards are turned (standard deviation, degrees)."""
CLOSE_ROWS_PER_SPREAD = 4
"""Rows of a close spread (`shown` given): at least `CLOSE_PER_ROW_MIN` cards to a row."""
CLOSE_PER_ROW_MIN = 8
CLOSE_ROW_STEP_SHARE = 0.8
"""A close spread's rows lie this share of a card's length apart (overlapping by a fifth)."""
CLOSE_TURN_SD_DEG = 8.0
"""How far a close spread's cards are turned (standard deviation), less than a loose row's."""
PLACE_SD_MM = 4.0
"""How far a hand puts each card off its place in the rows (standard deviation)."""


def spread_poses(
    backs_of_cards: Sequence[int],
    rng: np.random.Generator,
    shown: tuple[float, float] | None = None,
) -> tuple[CardPose, ...]:
    """Face-down cards in overlapping rows, in the order given (`backs_of_cards`: each card's
    back, as an index into the renderer's backs). `shown` (low, high): rows pushed closer,
    each card showing that share of its width (drawn per spread) beside the next."""
    n_cards = len(backs_of_cards)
    if shown is None:
        per_row = max(LOOSE_PER_ROW_MIN, math.ceil(n_cards / LOOSE_ROWS))
        step = (COUNT_TABLE_MM[0] - 2 * SPREAD_EDGE_MM) / per_row
        row_step, turn_sd = CARD_HEIGHT_MM * LOOSE_ROW_STEP_SHARE, LOOSE_TURN_SD_DEG
    else:
        per_row = max(CLOSE_PER_ROW_MIN, math.ceil(n_cards / CLOSE_ROWS_PER_SPREAD))
        step = CARD_WIDTH_MM * float(rng.uniform(*shown))
        row_step, turn_sd = CARD_HEIGHT_MM * CLOSE_ROW_STEP_SHARE, CLOSE_TURN_SD_DEG
    poses = []
    for i, back in enumerate(backs_of_cards):
        row, column = divmod(i, per_row)
        x = SPREAD_EDGE_MM + column * step + rng.normal(0, PLACE_SD_MM)
        y = SPREAD_EDGE_MM + row * row_step + rng.normal(0, PLACE_SD_MM)
        turn = float(rng.normal(0, turn_sd))
        poses.append(CardPose("AS", int(back), float(x), float(y), turn, False))
    return tuple(poses)


def count_table_renderer(
    rng: np.random.Generator,
    seed: int,
    backs: list[BackDesign],
    lights: LightSettings | None = None,
    table_mm: tuple[float, float] = COUNT_TABLE_MM,
    *,
    size: tuple[int, int] = COUNT_PHOTO_SIZE,
) -> TableRenderer:
    """A view `size` large of the count's table (or of one `table_mm` large), a table drawn by
    `rng`, without the referee's markers; `lights` other than the renderer's own."""
    return TableRenderer(
        RenderSettings(
            size=size,
            table=str(rng.choice(TABLES)),
            table_mm=table_mm,
            seed=seed,
            markers=False,
            lights=lights or LightSettings(),
        ),
        [builtin_design()],
        backs,
    )


def count_photo(cards_by_back: Sequence[int], backs: list[BackDesign], seed: int) -> np.ndarray:
    """A photo of a round's count: `cards_by_back[i]` cards of `backs[i]`, shuffled as players
    gather them, spread loosely in rows on a table drawn by `seed`."""
    rng = np.random.default_rng(seed)
    order = np.repeat(np.arange(len(backs)), cards_by_back)
    rng.shuffle(order)
    poses = spread_poses(order.tolist(), rng)
    renderer = count_table_renderer(rng, seed, backs)
    return renderer.render(Scene(poses, ()), 0)
