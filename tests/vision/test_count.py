"""The count: every card-sized detection is a back, matched to the registered ones."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from simulator.backs import back_from_spec
from tests.vision.renders import card_quad, draw_back, table
from vision.back_doubts import FAR_FROM_BACK_MIN, OTHER_BACK_APART_MIN, other_backs
from vision.back_features import BackFeature, back_feature
from vision.backs import BackMatcher, _on_white
from vision.count import (
    _better_scored,
    _card_sized,
    _covering,
    _doubted_backs,
    _leans_among,
    _matched,
    _mostly_covered_share,
    _near_a_back,
    _not_between,
    _not_table,
    _well_scored,
    count_backs,
    unlike_cards,
)
from vision.count_settings import (
    COLOURS_TAUGHT_SCORE_SHARE,
    COUNT_IOU_MAX,
    ON_TOP_SURE_LEAN,
    RESCUE_SCORE_SHARE,
    SURE_CARD_SCORE_SHARE,
)
from vision.detections import CardDetection
from vision.geometry import RECTIFIED_SIZE, uncovered
from vision.onnx_models import LETTERBOX_GREY, RawCard
from vision.stacking import cards_above, stacking_leans
from vision.table_colours import (
    PhotoColours,
    photo_colours,
    uncounted_parts,
)


def _card(x: float, scale: float = 1.0) -> CardDetection:
    quad = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float32) * scale + [x, 0]
    return CardDetection(quad, False, 0.9)


def test_pieces_of_cards_and_boxes_around_two_are_not_counted() -> None:
    cards = [_card(100.0 * i) for i in range(5)]
    piece, pair = _card(600, scale=0.6), _card(800, scale=1.5)
    kept = _card_sized([*cards, piece, pair])
    assert kept == cards


def test_a_box_across_the_gap_between_two_cards_is_not_counted() -> None:
    left, right = _card(0), _card(50)  # overlapping by 13 of 63 px
    between = replace(_card(25), score=0.5)  # half on each
    covered = replace(_card(80), score=0.8)  # 52% under the right one: a card, counted
    cards = [between, left, right, covered]
    assert _not_between(cards, _better_scored(cards)) == [left, right, covered]


def _spread_on_wood(painted: bool = True) -> tuple[np.ndarray, list[CardDetection]]:
    """Two rows of blue cards on brown wood, a gap between the cards of a row; not `painted`,
    the backs show the wood's own colours and grain."""
    rng = np.random.default_rng(0)
    image = np.empty((300, 500, 3), np.uint8)
    image[:] = (40, 90, 150)
    image += rng.integers(0, 25, image.shape, dtype=np.uint8)  # grain
    cards = []
    for row in range(2):
        for column in range(5):
            card = replace(_card(20 + 90 * column), score=0.9 - 0.01 * column)
            card = replace(card, quad=card.quad + np.array([0, 20 + 120 * row], np.float32))
            if painted:
                cv2.fillPoly(image, [card.quad.astype(np.int32)], (200, 90, 40))
            cards.append(card)
    return image, cards


def test_a_box_over_the_table_between_two_cards_is_not_counted() -> None:
    image, cards = _spread_on_wood()
    gap = replace(_card(65), score=0.5)  # half over each neighbour's edge and the wood between
    gap = replace(gap, quad=gap.quad + np.array([0, 20], np.float32))
    half_on_a_card = replace(_card(40), score=0.8)  # the same, its own part mostly wood
    half_on_a_card = replace(
        half_on_a_card, quad=half_on_a_card.quad + np.array([0, 140], np.float32)
    )
    found = [*cards, gap, half_on_a_card]
    assert _not_table(found, _better_scored(found), _table(image, found)) == cards


def _wood_below(image: np.ndarray, height: int) -> np.ndarray:
    """The photo with `height` more rows of bare wood below it."""
    rng = np.random.default_rng(1)
    wood = np.empty((height, image.shape[1], 3), np.uint8)
    wood[:] = (40, 90, 150)
    wood += rng.integers(0, 25, wood.shape, dtype=np.uint8)
    return np.concatenate([image, wood])


def test_a_sure_card_in_the_tables_colours_is_kept_where_it_looks_like_a_back() -> None:
    """A silver back on grey felt shows the table's colours: a detection scored as surely as
    the photo's cards that looks like a registered back is a card; one scored lower, or like
    no back, is table."""
    image, cards = _spread_on_wood()
    image = _wood_below(image, 150)
    on_wood = [
        replace(_card(20 + 120 * n), quad=_card(20 + 120 * n).quad + np.array([0, 320], np.float32))
        for n in range(3)
    ]
    like_a_back, like_no_back = (replace(card, score=0.9) for card in on_wood[:2])
    unsure = replace(on_wood[2], score=SURE_CARD_SCORE_SHARE * 0.88 - 0.01)
    found = [*cards, like_a_back, like_no_back, unsure]
    assert float(np.median([card.score for card in found])) == pytest.approx(0.88)
    photo = photo_colours(image, found, cards)
    assert photo is not None
    covering = _better_scored(found)
    assert _not_table(found, covering, photo.table()) == cards
    looked_at = []

    def near_a_back(card: CardDetection) -> bool:
        looked_at.append(card)
        return card is not like_no_back

    assert _not_table(found, covering, photo.table(), near_a_back) == [*cards, like_a_back]
    assert looked_at == [like_a_back, like_no_back]  # the unsure one is not looked at


def test_a_card_looks_like_a_back_by_what_no_other_card_overlaps_of_it() -> None:
    image, cards = _spread_on_wood()
    image = _wood_below(image, 150)
    # On the wood below, a card of a wood-coloured back half under a blue card.
    blue_card = replace(cards[0], quad=cards[0].quad + np.array([200, 320], np.float32))
    cv2.fillPoly(image, [blue_card.quad.astype(np.int32)], (200, 90, 40))
    wood_card = replace(blue_card, quad=blue_card.quad - np.array([30, 0], np.float32))
    found = [*cards, blue_card, wood_card]
    blue = np.full((88, 63, 3), (200, 90, 40), np.uint8)
    near = _near_a_back(image, BackMatcher({"blue": blue}), found)
    assert near(cards[0]) and near(blue_card) and not near(wood_card)
    wood_coloured = _wood_below(np.zeros((0, 63, 3), np.uint8), 88)
    near = _near_a_back(image, BackMatcher({"blue": blue, "wood": wood_coloured}), found)
    assert near(wood_card) and near(cards[0])
    # A box over half of each of two blue cards is judged by the gap of wood between them.
    across = replace(cards[0], quad=cards[0].quad + np.array([45, 0], np.float32))
    near = _near_a_back(image, BackMatcher({"blue": blue}), [*cards, across])
    assert near(cards[2]) and not near(across)


def test_the_cards_colours_are_learnt_from_the_well_scored_cards() -> None:
    """Boxes across the gaps show much wood: taught as the cards' colours, the wood looks
    like the cards, and no box is judged table."""
    image, cards = _spread_on_wood()
    across_rows = [
        replace(card, quad=card.quad + np.array([0, 60], np.float32)) for card in cards[:5]
    ]
    across_columns = [
        replace(card, quad=card.quad + np.array([45, 0], np.float32)) for card in cards[:4]
    ]
    boxes = [replace(box, score=0.5) for box in across_rows + across_columns]
    found = [*cards, *boxes]
    assert photo_colours(image, found) is None
    assert _well_scored(found, COLOURS_TAUGHT_SCORE_SHARE) == cards
    photo = photo_colours(image, found, cards)
    assert photo is not None
    assert _not_table(found, _better_scored(found), photo.table()) == cards


def test_boxes_at_and_beyond_the_photo_edge_are_judged_by_what_the_photo_shows() -> None:
    image, cards = _spread_on_wood()
    off_left = replace(_card(-40), score=0.5)  # its part in the photo is wood
    off_left = replace(off_left, quad=off_left.quad + np.array([0, 20], np.float32))
    beyond = [
        replace(_card(x), quad=_card(x).quad + np.array([0, y], np.float32), score=0.5)
        for x, y in ((520, 20), (-200, 20), (20, 400), (20, -200))
    ]
    found = [*cards, off_left, *beyond]
    kept = _not_table(found, _better_scored(found), _table(image, found))
    assert kept == [*cards, *beyond]  # nothing of the photo to judge those by


def test_without_table_in_view_nothing_is_judged_table() -> None:
    image, cards = _spread_on_wood()
    close_up = image[20:108, 20:83]  # one card fills the photo
    card = replace(cards[0], quad=cards[0].quad - np.array([20, 20], np.float32))
    assert _table(close_up, [card]) is None


def _table(image: np.ndarray, cards: list[CardDetection]) -> np.ndarray | None:
    photo = photo_colours(image, cards)
    return None if photo is None else photo.table()


def _card_like(image: np.ndarray, cards: list[CardDetection]) -> np.ndarray:
    photo = photo_colours(image, cards)
    assert photo is not None
    return photo.cards()


def test_a_card_missed_under_others_is_seen_as_part_of_the_photo_left_uncounted() -> None:
    image, cards = _spread_on_wood()
    card_like = _card_like(image, cards)
    assert uncounted_parts(card_like, cards, []) == (0.0, [])
    # Corners found a little off leave slivers of the cards outside them: not counted.
    askew = [replace(card, quad=card.quad + np.float32(4)) for card in cards]
    assert uncounted_parts(card_like, askew, []) == (0.0, [])
    # A card the detector missed, under two counted ones, shows in the 27 px gap between them:
    # that strip, less the edge kept around each counted card (3 px), is left uncounted.
    under = cards[3].quad + np.array([32, 0], np.float32)
    cv2.fillPoly(image, [under.astype(np.int32)], (200, 90, 40))
    for card in cards[3:5]:
        cv2.fillPoly(image, [card.quad.astype(np.int32)], (200, 90, 40))
    card_like = _card_like(image, cards)
    area, outlines = uncounted_parts(card_like, cards, [])
    assert area == pytest.approx((27 - 2 * 3) * 89 / (63 * 88), abs=0.02) and len(outlines) == 1
    assert cv2.pointPolygonTest(outlines[0], (366.0, 64.0), False) > 0  # the gap's middle
    # A known quad (a table marker) there is not counted as uncounted.
    assert uncounted_parts(card_like, cards, [under]) == (0.0, [])
    # Where the colours are not known, nothing is measured.
    assert uncounted_parts(None, cards, []) == (0.0, [])
    # A thing put aside, away from every card, is no card missed under them.
    cv2.circle(image, (470, 270), 20, (200, 90, 40), -1)
    beside_a_thing, outlines = uncounted_parts(_card_like(image, cards), cards, [])
    assert beside_a_thing == pytest.approx(area) and len(outlines) == 1


def test_only_colours_surely_the_cards_own_look_like_cards() -> None:
    """A colour seen on neither (a shadow in a narrow gap between cards, a darkened corner of
    the table) takes a like share of both, and is not taken for a card's."""
    # Colours: the table's, the cards', one seen on neither (the one count each colour gets
    # weighs more among the cards' fewer pixels), one on both but surely more on the cards.
    on_table = np.array([0.9, 0.01, 0.001, 0.089])
    on_cards = np.array([0.01, 0.7, 0.0018, 0.2882])
    photo = PhotoColours(np.array([[0, 1, 2, 3]]), on_table, on_cards)
    assert photo.table().tolist() == [[True, False, False, False]]
    assert photo.cards().tolist() == [[False, True, False, True]]


def test_backs_the_colour_of_the_table_are_not_taken_for_table() -> None:
    image, cards = _spread_on_wood(painted=False)
    assert _table(image, cards) is None
    assert _not_table(cards, _better_scored(cards), _table(image, cards)) == cards


def test_nothing_found_counts_nothing() -> None:
    assert _card_sized([]) == []


def test_every_card_of_a_count_photo_is_counted_as_a_back_even_one_taken_for_a_face() -> None:
    colours = {"blue": (200, 60, 30), "pink": (180, 60, 230)}
    image = np.zeros((360, 640, 3), np.uint8)
    layout = ["blue", "pink", "blue", "pink", "blue"]
    for i, name in enumerate(layout):
        box = cv2.boxPoints(((80 + 110 * i, 180), (63, 88), 5.0)).astype(np.int32)
        cv2.fillPoly(image, [box], colours[name])
    cv2.circle(image, (600, 40), 8, colours["blue"], -1)  # a crumb, not a card

    def detector(view: np.ndarray, iou_max: float) -> list[RawCard]:
        assert iou_max == COUNT_IOU_MAX
        mask = (view.max(axis=2) > 100).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        # All called face up, as the detector calls a back printed with a picture; and a
        # picture may show an index corner, which is no card of its own.
        cards = [RawCard(cv2.boxPoints(cv2.minAreaRect(c)), True, 0.9) for c in contours]
        corners = [RawCard(c.quad * 0.3 + c.quad[0] * 0.7, True, 0.95, True) for c in cards]
        return cards + corners

    references = {name: np.full((88, 63, 3), colour, np.uint8) for name, colour in colours.items()}

    def name_cards(view: np.ndarray, cards: list[RawCard]) -> list[CardDetection]:
        # No index reads as a card: plain backs.
        return [CardDetection(card.quad, True, card.score) for card in cards]

    reader = SimpleNamespace(detector=detector, name_cards=name_cards)
    result = count_backs(image, reader, BackMatcher(references), tiled=False)  # type: ignore[arg-type]
    assert result.counts == {"blue": 3, "pink": 2} and not result.faces_shown
    assert len(result.cards) == 5 and not any(card.face_up for card in result.cards)
    assert result.crowded == 0.0  # cards apart; the crumb is no card found
    # The crumb lies apart from the cards: no card missed under them.
    assert result.uncounted == 0.0 and not result.uncounted_outlines


def test_more_cards_than_a_deck_are_kept_where_a_recount_from_further_away_finds_none() -> None:
    """The count from further away is kept only where it is surer: one of nothing is not."""
    image = np.zeros((1000, 1400, 3), np.uint8)
    for row in range(8):
        for column in range(8):
            box = cv2.boxPoints(((80 + 160 * column, 60 + 120 * row), (63, 88), 0.0))
            cv2.fillPoly(image, [box.astype(np.int32)], (200, 60, 30))
    looked_at: list[bool] = []

    def detector(view: np.ndarray, iou_max: float) -> list[RawCard]:
        stepped = bool((view[0, 0] == LETTERBOX_GREY).all())
        looked_at.append(stepped)
        if stepped:
            return []
        mask = (view.max(axis=2) > 100).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        return [RawCard(cv2.boxPoints(cv2.minAreaRect(c)), False, 0.9) for c in contours]

    def name_cards(view: np.ndarray, cards: list[RawCard]) -> list[CardDetection]:
        return [CardDetection(card.quad, True, card.score) for card in cards]

    reader = SimpleNamespace(detector=detector, name_cards=name_cards)
    references = {"blue": np.full((88, 63, 3), (200, 60, 30), np.uint8)}
    result = count_backs(image, reader, BackMatcher(references), tiled=False)  # type: ignore[arg-type]
    assert looked_at == [False, True]
    assert result.counts == {"blue": 64} and result.beyond_decks == ["blue"]


def _back_of(spec: str) -> BackFeature:
    """The feature of a simulator back design ("red:lattice") seen whole."""
    return back_feature(cv2.resize(_on_white(back_from_spec(spec).image), RECTIFIED_SIZE))


def test_far_cards_unlike_a_backs_near_ones_are_told_as_another_back() -> None:
    red, green = _back_of("red:lattice"), _back_of("green:checks")
    assert red.distance(green) > OTHER_BACK_APART_MIN
    cards = [replace(_card(100.0 * k), back="anna") for k in range(6)]
    near, far = FAR_FROM_BACK_MIN - 0.1, FAR_FROM_BACK_MIN
    distances = [near, near, far, far, far, near]
    # Three red cards near anna's reference, three green ones far from it: another back.
    assert other_backs(cards, [red, red, green, green, green, red], distances) == {2, 3, 4}
    # Of the far cards only those unlike the near ones: a far red card is anna's own.
    assert other_backs(cards, [red, red, green, green, red, red], distances) == {2, 3}
    # Far, but as red as the near ones (a dim corner, a design file): anna's own.
    assert other_backs(cards, [red] * 6, distances) == set()
    # One far card says little; with no near card there is nothing to tell them from.
    one_far = [near, near, near, near, far, near]
    assert other_backs(cards, [red, red, red, red, green, red], one_far) == set()
    assert other_backs(cards, [green] * 6, [far] * 6) == set()
    # One near card does not show what the back's own cards look like: it may be the odd one.
    one_near = [far, far, far, far, far, near]
    assert other_backs(cards, [green] * 5 + [red], one_near) == set()
    # Each back's cards are judged apart: ben's far card does not join anna's.
    mixed = [*cards[:4], replace(cards[4], back="ben"), cards[5]]
    assert other_backs(mixed, [red, red, green, green, green, red], distances) == {2, 3}
    marked = [replace(card, back_unlike=k in {2, 3}) for k, card in enumerate(cards)]
    assert unlike_cards(marked) == [marked[2], marked[3]]


def test_cards_of_a_spread_pushed_close_are_told_from_boxes_across_them() -> None:
    """Each card shows 60% of its width, each neighbour covering 40% of it: a card scored below
    both neighbours lies 80% under better-scored cards, as a box across two does, but the photo
    shows it on top of the one before it."""
    image = table(160, 420)
    quads = [card_quad(20 + 38 * n, 30) for n in range(8)]
    for n, quad in enumerate(quads):
        draw_back(image, quad, ((150, 60, 20), (30, 40, 170))[n % 2])
    cards = [CardDetection(q, False, 0.9 if n % 2 == 0 else 0.8) for n, q in enumerate(quads)]
    across = CardDetection(card_quad(20 + 38 * 3 + 19, 30), False, 0.5)  # half on each of two
    found = [*cards, across]
    # By scores alone, every card scored below both its neighbours is lost (not the last).
    assert _not_between(found, _better_scored(found)) == [*cards[::2], cards[-1]]
    leans = stacking_leans([card.quad for card in found], image)
    assert _not_between(found, _covering(found, leans)) == cards


def test_a_card_scored_like_the_others_that_lies_on_top_of_one_is_no_box() -> None:
    """A box across a gap has no outline of its own to lie on top with: a card scored like
    the photo's cards that the photo surely shows on top of another is not judged by what
    covers it. A box scores low, and its outline, running along the real cards', can look
    like a card on top: it is judged by the better-scored cards."""
    top, under = replace(_card(0), score=0.8), replace(_card(40), score=0.95)
    box = replace(_card(20), score=0.5)
    far = [replace(_card(400 + 100 * n), score=0.95) for n in range(2)]  # the median: 0.95
    surely_on = {(0, 1): ON_TOP_SURE_LEAN, (1, 2): -ON_TOP_SURE_LEAN}  # 0 on 1, the box on 1
    # No card scores better than card 1 and the far ones: none covers them.
    assert _covering([top, under, box, *far], surely_on) == [
        set(),
        set(),
        {0, 1, 3, 4},
        set(),
        set(),
    ]
    # From `RESCUE_SCORE_SHARE` of the median it is judged: it lies on card 1, so nothing
    # counts as covering it, not even card 0, which the photo does not show it on.
    just = replace(box, score=RESCUE_SCORE_SHARE * 0.95 + 1e-6)
    assert _covering([top, under, just, *far], surely_on) == [set()] * 5
    # The photo must show it surely.
    unsure = {pair: lean * 0.99 for pair, lean in surely_on.items()}
    judged_by_better = [{1, 3, 4}, set(), {0, 1, 3, 4}, set(), set()]
    assert _covering([top, under, box, *far], unsure) == judged_by_better
    assert _covering([top, under, just, *far], unsure) == judged_by_better


def test_a_card_scored_as_surely_as_the_others_is_no_box_though_on_top_of_none() -> None:
    """The first card of a row, or one pushed under both neighbours, lies on top of no card;
    scored like the photo's cards, it is a card however much the better-scored ones cover."""
    cards = [replace(_card(30 * n), score=0.95) for n in range(4)]  # each 33 px under the next
    pushed_under = replace(_card(45), score=SURE_CARD_SCORE_SHARE * 0.95)
    found = [*cards, pushed_under]
    assert _not_between(found, _covering(found, {})) == found
    less_sure = replace(pushed_under, score=SURE_CARD_SCORE_SHARE * 0.95 - 1e-3)
    found = [*cards, less_sure]
    assert _not_between(found, _covering(found, {})) == cards
    assert _covering(found, {}) == [set()] * 4 + [{0, 1, 2, 3}]


def _row(step: int) -> tuple[np.ndarray, list[CardDetection], dict[tuple[int, int], float]]:
    """Eight cards in a row, each laid on the last `step` px to its right."""
    image = table(160, 520)
    quads = [card_quad(20 + step * n, 30) for n in range(8)]
    for n, quad in enumerate(quads):
        draw_back(image, quad, ((150, 60, 20), (30, 40, 170))[n % 2])
    return image, [CardDetection(q, False, 0.9) for q in quads], stacking_leans(quads, image)


def test_a_spread_is_crowded_by_the_cards_found_mostly_under_others() -> None:
    _, wide, leans = _row(50)  # each shows 79% of its width
    assert _mostly_covered_share(8, _shown(wide, cards_above(8, leans))) == 0.0
    kept = wide[:6]  # two dropped
    above = cards_above(6, _leans_among(wide, kept, leans))
    assert _mostly_covered_share(8, _shown(kept, above)) == 2 / 8
    _, close, leans = _row(19)  # each shows 30%, but the top one
    assert _mostly_covered_share(8, _shown(close, cards_above(8, leans))) == 7 / 8
    assert _mostly_covered_share(0, []) == 0.0


def _shown(cards: list[CardDetection], above: list[set[int]]) -> list[np.ndarray]:
    return [
        uncovered(card.quad, [cards[other].quad for other in on_top])
        for card, on_top in zip(cards, above, strict=True)
    ]


def test_a_card_mostly_under_another_is_matched_by_what_shows_of_it() -> None:
    """A red card 75% under a blue one: measured whole it looks mostly blue; measured where
    the photo shows it (the blue one on top), red."""
    image = table(160, 260)
    under, over = card_quad(40, 30), card_quad(40 + 16, 34)
    draw_back(image, under, (30, 40, 170))  # red, in BGR
    draw_back(image, over, (170, 60, 20))  # blue
    references = {
        name: np.full((88, 63, 3), colour, np.uint8)
        for name, colour in (("red", (30, 40, 170)), ("blue", (170, 60, 20)))
    }
    matcher = BackMatcher(references)
    cards = [CardDetection(under, False, 0.9), CardDetection(over, False, 0.9)]
    above = cards_above(2, stacking_leans([under, over], image))
    assert above == [{1}, set()]
    shown = _shown(cards, above)
    assert [card.back for card in _matched(cards, shown, image, matcher)] == ["red", "blue"]
    whole = _shown(cards, [set(), set()])  # measured whole, as before
    assert [card.back for card in _matched(cards, whole, image, matcher)] == ["blue"] * 2


def test_no_card_is_doubted_between_backs_the_count_already_warns_look_alike() -> None:
    # Four cards that look the same; the fourth lies a little nearer b's reference.
    layout = np.full((22, 16, 3), 128, np.float32), np.ones((22, 16), np.float32)
    features = [BackFeature(np.full(6, 1 / 6), np.full(4, 1 / 4), layout) for _ in range(4)]
    distances = [{"a": 0.10, "b": 0.30}] * 3 + [{"a": 0.20, "b": 0.18}]
    counted = ["a", "a", "a", "b"]
    assert _doubted_backs(features, distances, counted, []) == {3: "a"}
    assert _doubted_backs(features, distances, counted, [("b", "a")]) == {}
    assert _doubted_backs(features, distances, counted, [("a", "c")]) == {3: "a"}
