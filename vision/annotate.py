"""Drawing what vision found, for `--annotate` images a person can check."""

from __future__ import annotations

import unicodedata
import zlib
from dataclasses import replace

import cv2
import numpy as np

from vision.detections import CardDetection
from vision.geometry import CARD_HEIGHT_MM, CARD_WIDTH_MM, visible_centre

BGR = tuple[int, int, int]

FACE_UP_BGR = (40, 200, 40)
UNNAMED_BGR = (0, 160, 255)
FACE_DOWN_BGR = (255, 120, 0)
BACK_BGR: tuple[BGR, ...] = (
    (255, 0, 255),
    (255, 255, 0),
    (255, 255, 255),
    (160, 90, 255),
    (150, 40, 110),
    (0, 215, 255),
    (80, 255, 80),
    (0, 120, 255),
)
"""Magenta, cyan, white, pink, purple, then yellow, green and orange: one per registered back,
in the order given (cycled past eight), told apart at a glance whatever the backs' own colours.
A card matched to a back is outlined in its colour, and the legend frames the back in it, so a
card counted for the wrong player stands out. The last three come last as they are near the
colours of face-up cards, named and not (`identify --backs` draws both kinds)."""
LIGHT_LABEL_MIN = 128
"""A label ground at least this bright (weighted by `LUMA_BGR`) takes black text, a darker one
white."""
LUMA_BGR = (0.114, 0.587, 0.299)
"""How much blue, green and red each add to the brightness the eye sees (ITU-R BT.601)."""


TEXT_SIZE_FOR_PX = 900
"""Labels and lines are drawn at their base size on a photo this many pixels on its short
side, and scaled with it, so they read alike on a phone snap and a 24 MP photo."""
MIN_SCALE = 0.4
"""Smallest drawing scale: labels stay legible on small photos."""
LINE_PX = 2.0
LABEL_HEIGHT_PX = 18.0
LABEL_FONT_SCALE = 0.55
LABEL_OUTLINE_PX = 4.0
"""A dark outline under each label keeps it readable on light cards and dark felt alike."""
LABEL_STROKE_PX = 1.5


def _drawing_scale(image: np.ndarray) -> float:
    """How much larger than at `TEXT_SIZE_FOR_PX` lines and text are drawn on `image`."""
    return max(MIN_SCALE, min(image.shape[:2]) / TEXT_SIZE_FOR_PX)


def back_colours(names: list[str]) -> dict[str, BGR]:
    """Each back's colour in annotations (`BACK_BGR`), by its place in `names`."""
    return {name: BACK_BGR[number % len(BACK_BGR)] for number, name in enumerate(names)}


def annotate(
    image: np.ndarray, cards: list[CardDetection], backs: dict[str, BGR] | None = None
) -> np.ndarray:
    """The photo with each card outlined: face up named (green, labelled with its name at its
    index) or not (orange, "?"), face down (blue). A face-down card matched to one of `backs`
    is outlined in that back's colour, the back's name on a patch of it at the card's centre
    ("?" after it when the card looks like a back not registered, or its back is in doubt).
    Confidences are left to --json: labels of fanned cards overlap enough as they are."""
    out = image.copy()
    scale = _drawing_scale(out)
    line = max(1, round(LINE_PX * scale))
    backs = backs or {}
    # Every outline first, then every label, so that no card's outline crosses a label.
    for card in cards:
        points = card.quad.reshape(-1, 1, 2).astype(np.int32)
        if not card.face_up and card.back in backs:
            cv2.polylines(out, [points], True, (0, 0, 0), 3 * line, cv2.LINE_AA)
            cv2.polylines(out, [points], True, backs[card.back], line, cv2.LINE_AA)
        else:
            cv2.polylines(out, [points], True, _colour(card), line, cv2.LINE_AA)
    placed: list[tuple[int, int, int, int]] = []  # the names drawn so far, as boxes
    for card in cards:
        if not card.face_up and card.back in backs:
            # Only the nearest of the backs given, or in doubt between two of them.
            doubt = DOUBT_MARK if card.back_unlike or card.back_also else ""
            _patch_label(
                out,
                f"{drawable(card.back)}{doubt}",
                visible_centre(card.quad, (out.shape[1], out.shape[0])),
                scale,
                backs[card.back],
            )
            continue
        if not card.face_up:
            continue  # its outline's colour says all that is known
        x, y = card.quad[0]
        text = card.card or DOUBT_MARK
        outline, stroke = (
            max(2, round(LABEL_OUTLINE_PX * scale)),
            max(1, round(LABEL_STROKE_PX * scale)),
        )
        corner = (int(x) + 3, int(y) + int(LABEL_HEIGHT_PX * scale))
        at = _free_place(placed, corner, text, scale, thickness=outline, picture=out.shape[:2])
        _label(out, text, at, scale, colour=(0, 0, 0), thickness=outline)
        _label(out, text, at, scale, colour=_colour(card), thickness=stroke)
    return out


UNCOUNTED_BGR = (0, 0, 255)
"""Red: what of a count photo looks like cards yet lies outside every counted card."""
UNCOUNTED_TINT = 0.5
"""How strongly those parts are tinted red, their own look still showing through."""


def mark_uncounted(image: np.ndarray, outlines: tuple[np.ndarray, ...]) -> np.ndarray:
    """The photo with the parts `outlines` enclose (`CountResult.uncounted_outlines`) tinted
    and outlined red, so a person sees where cards may have been missed."""
    if not outlines:
        return image
    inside = np.zeros(image.shape[:2], np.uint8)
    cv2.drawContours(inside, list(outlines), -1, 1, cv2.FILLED)
    out = image.copy()
    red = np.array(UNCOUNTED_BGR, np.float32)
    out[inside > 0] = (out[inside > 0] * (1 - UNCOUNTED_TINT) + red * UNCOUNTED_TINT).astype(
        np.uint8
    )
    scale = _drawing_scale(out)
    cv2.drawContours(out, list(outlines), -1, UNCOUNTED_BGR, max(1, round(LINE_PX * scale)))
    return out


DRAWN_SHORT_SIDE_MIN_PX = 720
"""A photo whose short side is smaller is enlarged to it before it is drawn on: on a 378 x 504
phone photo the labels were a few pixels tall."""
DRAWN_LONG_SIDE_MAX_PX = 8192
"""A photo is enlarged no further than to this long side (an 8K frame's): a 40 x 60,000 pixel
strip enlarged to a 720 pixel short side took 4.8 GB and could not be written."""


def for_drawing(
    image: np.ndarray, cards: list[CardDetection]
) -> tuple[np.ndarray, list[CardDetection]]:
    """The photo, and the cards on it, enlarged to `DRAWN_SHORT_SIDE_MIN_PX` if smaller (its
    long side to `DRAWN_LONG_SIDE_MAX_PX` at most)."""
    height, width = image.shape[:2]
    factor = min(
        DRAWN_SHORT_SIDE_MIN_PX / min(height, width), DRAWN_LONG_SIDE_MAX_PX / max(height, width)
    )
    if factor <= 1.0:
        return image, cards
    size = (round(width * factor), round(height * factor))
    enlarged = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)
    return enlarged, [replace(card, quad=card.quad * np.float32(factor)) for card in cards]


LEGEND_ROW_PX = 160.0
"""Height of one back's row in the count's legend, at the base drawing scale (and at most the
photo's height shared among the backs)."""
LEGEND_BGR = (40, 40, 40)
"""The legend's dark ground: light and dark backs both stand out on it."""
LEGEND_TEXT_BGR = (255, 255, 255)
LEGEND_MARGIN_PX = 8.0
"""Space around each reference and its text, at the base drawing scale."""
LEGEND_FONT_FACTOR = 1.5
"""The legend's text is this much larger than a card's label: it is read first."""
CARD_ASPECT = CARD_WIDTH_MM / CARD_HEIGHT_MM
"""A card's width over its length: the legend shows every reference as a portrait card."""


LEGEND_NAME_CHARS_MAX = 32
"""A back's name in the legend is cut in its middle to this many characters: a 300-character
name made a panel 4,401 px wide beside a 1,280 px photo. Cut in the middle, names that differ at
their ends ("..._back_c1", "..._back_c2") still read apart."""


def _within_legend(name: str) -> str:
    if len(name) <= LEGEND_NAME_CHARS_MAX:
        return name
    tail = (LEGEND_NAME_CHARS_MAX - 3) // 2
    return f"{name[: LEGEND_NAME_CHARS_MAX - 3 - tail]}...{name[-tail:]}"


def with_legend(
    image: np.ndarray,
    backs: list[tuple[str, np.ndarray, int]],
    colours: dict[str, BGR] | None = None,
) -> np.ndarray:
    """The photo with a panel on its right listing each (name, reference, count): the
    reference as the count used it (a photo of a card cut to the card), so a person can check
    that the right card was taken for each back; framed in its colour in `colours`."""
    height = image.shape[0]
    scale = _drawing_scale(image)
    margin = max(2, round(LEGEND_MARGIN_PX * scale))
    row = min(round(LEGEND_ROW_PX * scale), height // max(1, len(backs)))
    thumb_height = max(1, row - 2 * margin)
    thumb_width = max(1, round(thumb_height * CARD_ASPECT))
    texts = [f"{_within_legend(drawable(name))}: {count}" for name, _, count in backs]
    font_scale = LABEL_FONT_SCALE * scale * LEGEND_FONT_FACTOR
    stroke = max(1, round(LABEL_STROKE_PX * scale))
    text_width = max(
        (cv2.getTextSize(t, cv2.FONT_HERSHEY_SIMPLEX, font_scale, stroke)[0][0] for t in texts),
        default=0,
    )
    panel = np.full((height, thumb_width + text_width + 3 * margin, 3), LEGEND_BGR, np.uint8)
    for number, ((name, reference, _), text) in enumerate(zip(backs, texts, strict=True)):
        top = number * row + margin
        if colours and name in colours:
            frame = margin // 2
            panel[
                top - frame : top + thumb_height + frame, frame : margin + thumb_width + frame
            ] = colours[name]
        portrait = np.rot90(reference) if reference.shape[1] > reference.shape[0] else reference
        thumb = cv2.resize(portrait, (thumb_width, thumb_height), interpolation=cv2.INTER_AREA)
        panel[top : top + thumb_height, margin : margin + thumb_width] = thumb
        at = (2 * margin + thumb_width, top + thumb_height // 2)
        cv2.putText(
            panel, text, at, cv2.FONT_HERSHEY_SIMPLEX, font_scale, LEGEND_TEXT_BGR, stroke,
            cv2.LINE_AA,
        )  # fmt: skip
    return np.hstack([image, panel])


UNDRAWABLE_MARK = "_"
"""Drawn for a letter of a name the picture's font lacks, and for a '?' in a name: OpenCV's
own mark would be '?', and a '?' after a back's name marks a card in doubt."""
DOUBT_MARK = "?"


def drawable(name: str) -> str:
    """`name` as OpenCV's font can draw it: accents dropped ("Bén" -> "Ben"), any other letter
    past ASCII, and the doubt mark itself ("Who?" -> "Who_"), `UNDRAWABLE_MARK`; a name left
    with no letter or digit ("李", "王") is drawn as a number of its own, so that two such names
    are still told apart ("#37")."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    drawn = "".join(c if " " <= c <= "~" and c != DOUBT_MARK else UNDRAWABLE_MARK for c in bare)
    if any(c.isalnum() for c in drawn):
        return drawn
    return f"#{zlib.crc32(name.encode()) % 100:02d}"


LABEL_SHIFTS = (0, 1, -1, 2, -2)
"""Where a card's name may go, in label heights down from its index corner: the first place
clear of the names drawn before is taken, so that names of cards fanned close together
(whose index corners lie a few pixels apart) are not drawn over each other."""


def _free_place(
    placed: list[tuple[int, int, int, int]],
    at: tuple[int, int],
    text: str,
    scale: float,
    *,
    thickness: int,
    picture: tuple[int, ...],
) -> tuple[int, int]:
    """Where to draw `text` at `at` (its baseline's left end) or shifted by `LABEL_SHIFTS`,
    clear of the `placed` boxes; within a `picture` of that (height, width), also where its
    card's index corner lies beyond the edge. Its box is added to `placed`."""
    (width, height), _ = cv2.getTextSize(
        text, cv2.FONT_HERSHEY_SIMPLEX, LABEL_FONT_SCALE * scale, thickness
    )
    lowest, rightmost = max(height, picture[0] - thickness), max(0, picture[1] - width)
    at = (min(max(at[0], 0), rightmost), min(max(at[1], height), lowest))
    step = height + 2 * thickness
    places = [(at[0], at[1] + shift * step) for shift in LABEL_SHIFTS]
    places = [place for place in places if height <= place[1] <= lowest] or [at]

    def box(place: tuple[int, int]) -> tuple[int, int, int, int]:
        return (place[0], place[1] - height, place[0] + width, place[1] + thickness)

    def clear(place: tuple[int, int]) -> bool:
        left, top, right, bottom = box(place)
        return all(
            right <= other[0] or other[2] <= left or bottom <= other[1] or other[3] <= top
            for other in placed
        )

    chosen = next((place for place in places if clear(place)), places[0])
    placed.append(box(chosen))
    return chosen


def _label(
    out: np.ndarray,
    text: str,
    at: tuple[int, int],
    scale: float,
    *,
    colour: tuple[int, int, int],
    thickness: int,
) -> None:
    font_scale = LABEL_FONT_SCALE * scale
    cv2.putText(out, text, at, cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, thickness, cv2.LINE_AA)


def _colour(card: CardDetection) -> BGR:
    return FACE_DOWN_BGR if not card.face_up else FACE_UP_BGR if card.card else UNNAMED_BGR


def _patch_label(out: np.ndarray, text: str, centre: np.ndarray, scale: float, colour: BGR) -> None:
    """`text` centred on `centre`, on a patch of `colour`, in black or white to suit it."""
    font_scale = LABEL_FONT_SCALE * scale
    stroke = max(1, round(LABEL_STROKE_PX * scale))
    (width, height), baseline = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, stroke)
    pad = stroke + 1
    left, bottom = round(centre[0] - width / 2), round(centre[1] + height / 2)
    top_left = (left - pad, bottom - height - pad)
    cv2.rectangle(out, top_left, (left + width + pad, bottom + baseline + pad), colour, cv2.FILLED)
    ink = (0, 0, 0) if float(np.dot(LUMA_BGR, colour)) >= LIGHT_LABEL_MIN else (255, 255, 255)
    cv2.putText(
        out, text, (left, bottom), cv2.FONT_HERSHEY_SIMPLEX, font_scale, ink, stroke, cv2.LINE_AA
    )
