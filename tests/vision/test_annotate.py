"""Annotated images: the count's legend shows each back as it was matched, with its count."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.annotate import (
    BACK_BGR,
    DRAWN_SHORT_SIDE_MIN_PX,
    FACE_DOWN_BGR,
    FACE_UP_BGR,
    LEGEND_BGR,
    LEGEND_NAME_CHARS_MAX,
    UNNAMED_BGR,
    _free_place,
    _within_legend,
    annotate,
    back_colours,
    drawable,
    for_drawing,
    with_legend,
)
from vision.detections import CardDetection


def _plain(colour: tuple[int, int, int], height: int, width: int) -> np.ndarray:
    return np.full((height, width, 3), colour, np.uint8)


def test_the_legend_shows_each_reference_in_its_row_beside_the_photo() -> None:
    photo = _plain((90, 90, 90), 720, 1280)
    red, blue, green = (30, 30, 200), (200, 60, 20), (40, 180, 40)
    wide = _plain(blue, 189, 264)
    wide[:, 132:] = green  # its right half: the top once turned portrait
    backs = [("anna", _plain(red, 264, 189), 9), ("ben", wide, 12)]
    out = with_legend(photo, backs)
    assert out.shape[0] == 720 and out.shape[1] > 1280
    assert np.array_equal(out[:, :1280], photo)
    panel = out[:, 1280:]
    # Each row holds its back's colour (the wide one turned portrait), in the order given.
    rows = [np.flatnonzero(np.all(panel == colour, axis=2).any(axis=1)) for colour in (red, blue)]
    assert rows[0].size and rows[1].size and rows[0].max() < rows[1].min()
    columns = np.flatnonzero(np.all(panel == blue, axis=2).any(axis=0))
    greens = np.flatnonzero(np.all(panel == green, axis=2).any(axis=1))
    assert greens.max() < rows[1].min()  # the wide reference turned a quarter, portrait
    # Beside each reference its name and count are written.
    text = np.all(panel > 150, axis=2)  # white, anti-aliased
    for first, last in ((rows[0].min(), rows[0].max()), (greens.min(), rows[1].max())):
        assert text[first : last + 1, columns.max() + 1 :].any()
    assert np.all(panel[-5:] == LEGEND_BGR)


def test_a_long_back_name_is_cut_in_its_middle_in_the_legend() -> None:
    photo = _plain((90, 90, 90), 720, 1280)
    reference = _plain((30, 30, 200), 88, 63)
    named = [
        with_legend(photo, [(name, reference, 9)])
        for name in ("x" * 15 + "..." + "x" * 14, "x" * 300)
    ]
    assert np.array_equal(named[0], named[1])  # the long name drawn as 32 characters
    long_name = "kde-nicu-white__back_c1" * 2
    assert _within_legend(long_name) == "kde-nicu-white_...white__back_c1"
    assert len(_within_legend(long_name)) == LEGEND_NAME_CHARS_MAX == 32
    assert _within_legend("a" * 32) == "a" * 32


def test_many_backs_share_the_photo_height() -> None:
    photo = _plain((90, 90, 90), 200, 300)
    backs = [(f"player {n}", _plain((0, 0, 25 * n), 88, 63), n) for n in range(1, 9)]
    out = with_legend(photo, backs)
    assert out.shape[0] == 200
    for n in range(1, 9):
        assert np.all(out[:, 300:] == (0, 0, 25 * n), axis=2).any()


def test_each_back_has_its_own_colour_cycled_past_the_palette() -> None:
    names = [f"p{n}" for n in range(len(BACK_BGR) + 1)]
    colours = back_colours(names)
    assert [colours[n] for n in names[:-1]] == list(BACK_BGR)
    assert len(set(BACK_BGR)) == len(BACK_BGR)
    assert colours[names[-1]] == BACK_BGR[0]


def _face_down(left: int, back: str | None) -> CardDetection:
    quad = np.array([[left, 100], [left + 126, 100], [left + 126, 276], [left, 276]], np.float32)
    return CardDetection(quad, False, 0.9, back=back, back_score=0.8)


def test_a_card_matched_to_a_back_is_drawn_in_its_colour_and_labelled_at_its_centre() -> None:
    photo = _plain((90, 90, 90), 400, 700)
    colours = back_colours(["anna", "ben"])
    cards = [_face_down(50, "anna"), _face_down(300, "ben"), _face_down(500, None)]
    out = annotate(photo, cards, colours)
    for card, colour in zip(cards, (colours["anna"], colours["ben"], FACE_DOWN_BGR), strict=True):
        left = int(card.quad[0, 0])
        # The outline: the card's left edge in its colour.
        edge = out[150:230, left - 2 : left + 3].astype(int)
        assert (np.abs(edge - colour).max(axis=2) < 30).any()
        # The label patch: its colour at the card's centre, only for a matched back.
        centre = out[180:196, left + 20 : left + 106]
        assert np.all(centre == colour, axis=2).any() == (card.back is not None)
    # Text on a light patch is black: inside ben's (cyan) patch lie darker pixels.
    rows, columns = np.nonzero(np.all(out[150:230, 310:420] == colours["ben"], axis=2))
    patch = out[150:230, 310:420][rows.min() : rows.max() + 1, columns.min() : columns.max() + 1]
    assert (patch.max(axis=2) < 128).any()


def test_the_legend_frames_each_back_in_its_colour() -> None:
    photo = _plain((90, 90, 90), 720, 1280)
    backs = [
        ("anna", _plain((30, 30, 200), 264, 189), 9),
        ("ben", _plain((200, 60, 20), 264, 189), 3),
    ]
    colours = back_colours(["anna", "ben"])
    panel = with_legend(photo, backs, colours)[:, 1280:]
    rows = [np.flatnonzero(np.all(panel == colours[name], axis=2).any(axis=1)) for name in colours]
    assert rows[0].size and rows[1].size and rows[0].max() < rows[1].min()
    assert not np.all(with_legend(photo, backs)[:, 1280:] == colours["anna"], axis=2).any()


def test_a_card_unlike_every_back_is_labelled_with_a_question_mark() -> None:
    photo = _plain((90, 90, 90), 400, 300)
    colours = back_colours(["anna"])
    card = _face_down(80, "anna")

    def patch_width(unlike: bool = False, also: str | None = None) -> int:
        out = annotate(photo, [replace(card, back_unlike=unlike, back_also=also)], colours)
        # The patch around its text, inside the card's outline (drawn in the same colour).
        band = np.all(out[150:230, 90:196] == colours["anna"], axis=2)
        return int(np.ptp(np.flatnonzero(band.any(axis=0))))

    assert patch_width(unlike=True) > patch_width()  # "anna?" against "anna"
    # A card whose back is in doubt (`vision.back_doubts`) is marked alike.
    assert patch_width(also="ben") == patch_width(unlike=True)


def test_a_small_photo_is_enlarged_to_be_drawn_on_and_a_large_one_kept() -> None:
    card = _face_down(50, "anna")
    small = _plain((90, 90, 90), 360, 480)
    enlarged, [moved] = for_drawing(small, [card])
    factor = DRAWN_SHORT_SIDE_MIN_PX / 360
    assert enlarged.shape == (DRAWN_SHORT_SIDE_MIN_PX, round(480 * factor), 3)
    assert np.allclose(moved.quad, card.quad * factor)
    large = _plain((90, 90, 90), 720, 1280)
    kept, cards = for_drawing(large, [card])
    assert kept is large and cards[0] is card
    strip = _plain((90, 90, 90), 40, 4000)  # enlarged 18 times, it would be 72,000 wide
    widened, [moved] = for_drawing(strip, [card])
    assert widened.shape == (round(40 * 8192 / 4000), 8192, 3)


def test_a_name_is_drawn_without_letters_the_font_lacks_and_never_as_a_doubt() -> None:
    assert drawable("Bén") == "Ben"
    assert drawable("Zoë & Jörg") == "Zoe & Jorg"
    assert drawable("ann\U0001f600") == "ann_"
    assert drawable("ann\u674e") == "ann_"
    # Names of no Latin letter at all are drawn as numbers of their own.
    assert drawable("さくら").startswith("#") and drawable("\u674e") != drawable("\u738b")
    assert drawable("\u674e") == drawable("\u674e")
    assert "?" not in drawable("\u00bf\U0001f0a1")
    # A '?' of the name's own would read as the doubt mark drawn after a back's name.
    assert drawable("Who?") == "Who_"
    assert drawable("??").startswith("#")


def test_the_first_five_backs_colours_are_far_from_the_other_cards() -> None:
    """`identify --backs` draws face-up and face-down cards in one picture."""
    others = np.array([FACE_UP_BGR, UNNAMED_BGR, FACE_DOWN_BGR])
    for colour in BACK_BGR[:5]:
        assert np.abs(others - np.array(colour)).max(axis=1).min() >= 100


def test_names_of_cards_fanned_close_are_not_drawn_over_each_other() -> None:
    placed: list[tuple[int, int, int, int]] = []
    picture = (720, 1280)
    first = _free_place(placed, (100, 100), "10H", 1.0, thickness=2, picture=picture)
    second = _free_place(
        placed, (103, 104), "QS", 1.0, thickness=2, picture=picture
    )  # its index 4 px lower
    third = _free_place(
        placed, (400, 100), "AS", 1.0, thickness=2, picture=picture
    )  # far off: where it is
    assert first == (100, 100) and third == (400, 100)
    assert second[0] == 103 and second[1] > 100  # moved down, clear of the first
    (_, top, _, bottom), (_, second_top, _, _) = placed[0], placed[1]
    assert second_top >= bottom and top < second_top
    # An index corner beyond the picture's edge: the name within it, whole.
    left, lower = _free_place(placed, (-30, 900), "KS", 1.0, thickness=2, picture=picture)
    assert left == 0 and lower <= 720 - 2
