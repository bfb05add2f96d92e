"""Name every card in a photo: find each card's corners, rectify it, read its index corners."""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from models import CARDS_INT8_ONNX, CORNERS_INT8_ONNX, FACES_ONNX, INDEX_INT8_ONNX
from vision.close_ups import (
    in_photo,
    may_hold_pieces,
    named_count,
    pieces_found,
    stepped_back,
    taken_close,
    without_pieces,
)
from vision.detections import CardDetection
from vision.geometry import (
    RECTIFIED_PX_PER_MM,
    card_from_window,
    card_window,
    face_crop,
    index_crops,
    moved_card,
    portrait_order,
    rectify,
)
from vision.markers import off_markers
from vision.merging import (
    SAME_WINDOW_IOU,
    IndexWindow,
    own_windows,
    with_index_readings,
    without_backs_over_faces,
    without_duplicates,
)
from vision.onnx_models import (
    CORNER_WINDOW_MM,
    CardDetector,
    IndexClassifier,
    Letterboxed,
    ModelFileError,
    RawCard,
    implied_card_length,
)
from vision.reading_settings import (
    CARD_IOU_MAX,
    CLOSE_LOOK_CARD_PX,
    CLOSE_LOOK_SIDE,
    CORNER_IOU_MAX,
    CORNER_SCORE_MIN,
    COVERED_INDEX_MIN,
    FACE_DOWN_READ_MIN,
    FAINT_CORNER_READ_MIN,
    FAINT_CORNER_SCORE,
    FAN_FIRST_READ_MIN,
    FAN_INK_CONTRAST_MIN,
    FAN_INK_PATCH_MM,
    FAN_INK_PERCENTILES,
    FAN_LOOK_CUTS,
    FAN_LOOKS_MM,
    FAN_READ_MIN,
    INDEX_SCORE_MIN,
    NO_INDEX_READ_MIN,
    NONE_CLASS,
    READ_CUTS,
    READ_EXTENT_SCALE,
    READ_MARGIN_MM,
    STOCK_BRIGHTEST_PERCENTILE,
    STOCK_BRIGHTNESS_MIN,
    STOCK_SATURATION_MAX,
    STOCK_SHARE_MIN,
    SURE_CARD_IOU_MAX,
    SURE_CARD_SCORE_MIN,
    SURE_READ_MIN,
    WHOLE_PHOTO_CARD_PX,
    WindowCut,
)
from vision.tiles import detect_tiled, grid_for_size
from vision.votes import agreed, with_face

log = logging.getLogger(__name__)


class CardReader:
    """Loads the models once; `read(image)` then names the cards of any number of photos.
    `corners_model` (None: not used) finds index corners on their own, for cards fanned so far
    under others that the card detector misses them; `faces_model` (None: not used) reads the
    whole face of every card found whole, besides its index corners."""

    def __init__(
        self,
        cards_model: Path = CARDS_INT8_ONNX,
        index_model: Path = INDEX_INT8_ONNX,
        corners_model: Path | None = CORNERS_INT8_ONNX,
        faces_model: Path | None = FACES_ONNX,
    ) -> None:
        self.detector = CardDetector(cards_model, iou_max=CARD_IOU_MAX)
        self.classifier = IndexClassifier(index_model)
        self.corner_detector = (
            None
            if corners_model is None
            else CardDetector(corners_model, CORNER_SCORE_MIN, CORNER_IOU_MAX)
        )
        self.none_column = self.classifier.names.index(NONE_CLASS)
        self.sure_read_min = SURE_READ_MIN
        self.step_back = True  # look again from further away at a photo taken close
        self.close_look_side: int | None = CLOSE_LOOK_SIDE
        self.close_look_card_px = CLOSE_LOOK_CARD_PX
        self.fan_looks_mm: tuple[tuple[float, float], ...] = FAN_LOOKS_MM
        self.sure_overlap: tuple[float, float] | None = (SURE_CARD_IOU_MAX, SURE_CARD_SCORE_MIN)
        self.face_classifier = None if faces_model is None else IndexClassifier(faces_model)
        if self.face_classifier is not None and self.face_classifier.names != self.classifier.names:
            raise ModelFileError(f"{faces_model} names other classes than {index_model}")

    def find(self, image: np.ndarray) -> list[RawCard]:
        """Cards and index corners, from one or both detectors: the index corners first, as
        they tell how large the cards are, and the card detector looks closer at small ones."""
        boxed = self.detector.letterbox(image)
        corners = [] if self.corner_detector is None else self.corner_detector(image, boxed)
        cards = self.detector(
            image,
            boxed,
            long_side=self._card_search_side(corners, boxed),
            sure_overlap=self.sure_overlap,
        )
        return cards + corners

    def _card_search_side(self, corners: list[RawCard], boxed: Letterboxed) -> int | None:
        """`self.close_look_side` when the surely found index corners imply cards shorter than
        `CLOSE_LOOK_CARD_PX` (their median) in the detector's own input; None (its own size)
        otherwise, or when none is sure or the detector export takes one size only."""
        if not self.detector.resizable or self.close_look_side is None:
            return None
        lengths = [
            implied_card_length(corner.quad, index_corner=True)
            for corner in corners
            if corner.score >= FAINT_CORNER_SCORE
        ]
        if not lengths:
            return None
        small = float(np.median(lengths)) * boxed[1] < self.close_look_card_px
        return self.close_look_side if small else None

    def read(self, image: np.ndarray, tiled: bool = False) -> list[CardDetection]:
        """Every card found; `tiled` also looks at tiles of the photo (`vision/tiles.py`):
        slower, for small cards; a large photo is always looked at in tiles (`grid_for_size`).
        A photo taken close (`vision/close_ups.py`) is also looked at from further away, and
        what names more cards is kept."""
        height, width = image.shape[:2]
        # The cards too short for the detector's view of the whole photo: the tiles' to find.
        small_px = WHOLE_PHOTO_CARD_PX * max(height, width) / self.detector.own_side
        large = grid_for_size(width, height, small_px)
        if large is not None:
            shorter_than = min(small_px, large.card_px_max)  # and that a tile holds whole
            raw = detect_tiled(self.find, image, large, partial(_shorter, shorter_than))
        else:
            raw = detect_tiled(self.find, image) if tiled else self.find(image)
        found = self._named_found(image, raw)
        if self.step_back and (taken_close(image, found) or may_hold_pieces(found)):
            frame, corner, scale = stepped_back(image)
            size = (image.shape[1], image.shape[0])
            further = without_pieces(
                self._named_found(image, in_photo(self.find(frame), corner, scale)), size
            )
            if named_count(further) > named_count(found) or pieces_found(found, further, size):
                log.debug(
                    "a photo taken close: %d cards found from further away (%d named), %d "
                    "at its own size", len(further), named_count(further), len(found),
                )  # fmt: skip
                return further
        return found

    def _named_found(self, image: np.ndarray, raw: list[RawCard]) -> list[CardDetection]:
        """The cards and index corners found in `image`, named."""
        face_up = [card for card in raw if card.face_up and not card.index_corner]
        found = self._face_down(image, [card for card in raw if not card.face_up])
        found += self.name_cards(image, face_up)
        corners = self._not_surely_named([card for card in raw if card.index_corner], found)
        extent = _read_extent(self.classifier.window_mm)
        # An index corner is read like the top-left corner of the card its window implies.
        implied = [card_from_window(corner.quad, CORNER_WINDOW_MM) for corner in corners]
        views = [rectify(image, quad, READ_MARGIN_MM, extent_mm=extent) for quad in implied]
        alone = self._read_windows(views)
        named_alone = [
            (named, corner.quad)
            for corner, quad, reading in zip(corners, implied, agreed(alone, axis=1), strict=True)
            for named in [self._named(quad, corner.score, reading[None])]
            if _names_a_card(named, corner.score)
        ]
        found = with_index_readings(found, named_alone, CORNER_WINDOW_MM)
        found += self.fanned_under(image, found)
        log.debug(
            "%d face-up cards found; %d index corners read (of cards not named surely), %d "
            "of them name a card", len(face_up), len(corners), len(named_alone),
        )  # fmt: skip
        # The referee's table markers look like cards to the detectors.
        return without_backs_over_faces(off_markers(without_duplicates(found), image))

    def _not_surely_named(
        self, corners: list[RawCard], found: list[CardDetection]
    ) -> list[RawCard]:
        """The index corners found on their own less those that are the own corner of a
        card `found` named `sure_read_min` surely: read, such a corner could only name that
        card again, or overrule so sure a name, and a photo of small cards holds dozens."""
        sure = [
            own
            for card in found
            if card.card is not None and card.card_score >= self.sure_read_min
            for own in own_windows(card, CORNER_WINDOW_MM)
        ]
        return [
            corner
            for corner in corners
            for window in [IndexWindow.of(corner.quad)]
            if not any(own.overlaps(window, SAME_WINDOW_IOU) for own in sure)
        ]

    def name_cards(self, image: np.ndarray, cards: list[RawCard]) -> list[CardDetection]:
        """Each card read as face up: named from its two index corners and its whole face
        (`_named`), or unnamed where they do not name it surely."""
        # Each window is read at the top left of a view: the card's two ends in turn.
        views = [
            view
            for card in cards
            for whole in [rectify(image, card.quad, READ_MARGIN_MM)]
            for view in (whole, cv2.rotate(whole, cv2.ROTATE_180))
        ]
        readings = self._read_windows(views)
        faces = self._read_faces(views[::2])
        sides = agreed(readings.reshape(len(cards), 2, *readings.shape[1:]), axis=2)
        return [
            self._named(card.quad, card.score, reading, face)
            for card, reading, face in zip(cards, sides, faces, strict=True)
        ]

    def fanned_under(self, image: np.ndarray, found: list[CardDetection]) -> list[CardDetection]:
        """Cards fanned under named ones that neither detector found: an index is looked for
        at `FAN_LOOKS_MM` from each named card's own, and a card read there (another than the
        named one, `FAN_READ_MIN` surely, whose window is no found card's) is added, its
        outline the named card's moved by the look."""
        window = self.classifier.window_mm
        taken = [own for card in found for own in own_windows(card, window)]
        # A look whose window is a found card's own is not read: that card is named there.
        looks = [
            (card, quad)
            for card in found
            if card.face_up and card.card is not None
            for left, up in self.fan_looks_mm
            for quad in [moved_card(card.quad, -left, -up)]
            for own in [IndexWindow.of(card_window(quad, 0, window))]
            if not any(other.overlaps(own, SAME_WINDOW_IOU) for other in taken)
        ]
        # Most looks show table, which the classifier need not be asked about.
        patches = [rectify(image, quad, READ_MARGIN_MM, FAN_INK_PATCH_MM) for _, quad in looks]
        looks = [looks[i] for i in _show_ink(patches)]
        extent = _read_extent(window)
        views = [rectify(image, quad, READ_MARGIN_MM, extent_mm=extent) for _, quad in looks]
        first = self.classifier.probabilities([self._crop(view) for view in views])
        named = first.copy()
        named[:, self.none_column] = 0.0
        likely = [
            number
            for number, ((card, _), reading) in enumerate(zip(looks, named, strict=True))
            if reading.max() >= FAN_FIRST_READ_MIN
            and self.classifier.names[int(reading.argmax())] != card.card
        ]
        readings = self._read_windows([views[i] for i in likely], first[likely], FAN_LOOK_CUTS)
        under: list[CardDetection] = []
        for number, reading in zip(likely, agreed(readings, axis=1), strict=True):
            over, quad = looks[number]
            card = self._named(quad, over.score, reading[None])
            if card.card is not None and card.card != over.card and card.card_score >= FAN_READ_MIN:
                under.append(card)
        log.debug(
            "%d looks under fans, %d read again, %d cards", len(looks), len(likely), len(under)
        )
        return under

    def _face_down(self, image: np.ndarray, cards: list[RawCard]) -> list[CardDetection]:
        """The cards the detector found face down, each reported so unless an index window of
        it shows card stock (`STOCK_SHARE_MIN`) and its index corners name a card at least
        `FACE_DOWN_READ_MIN` surely: the detector takes some ornate court cards for backs."""
        found = [CardDetection(portrait_order(card.quad), False, card.score) for card in cards]
        window = self.classifier.window_mm
        extent = _read_extent(window)
        views = [
            rectify(image, np.roll(card.quad, -2 * corner, axis=0), READ_MARGIN_MM, extent)
            for card in found
            for corner in (0, 1)
        ]
        # The stock is looked for in the window itself (and its margin), as it was tuned.
        width, height = (
            round((side + 2 * READ_MARGIN_MM) * RECTIFIED_PX_PER_MM) for side in window
        )
        stock = _stock_shares([view[:height, :width] for view in views])
        stock = stock.reshape(len(found), 2).max(axis=1)
        pale = np.flatnonzero(stock >= STOCK_SHARE_MIN).tolist()
        readings = self._read_windows([views[2 * i + corner] for i in pale for corner in (0, 1)])
        sides = agreed(readings.reshape(len(pale), 2, *readings.shape[1:]), axis=2)
        for number, reading in zip(pale, sides, strict=True):
            card = found[number]
            named = self._named(card.quad, card.score, reading)
            if named.card is not None and named.card_score >= FACE_DOWN_READ_MIN:
                found[number] = named
        return found

    def _crop(self, view: np.ndarray, cut: WindowCut = READ_CUTS[0]) -> np.ndarray:
        """The index window at the top left of a view rectified with `READ_MARGIN_MM`, cut
        as `cut` says."""
        width, height = (side * cut.scale for side in self.classifier.window_mm)
        shift = ((cut.right_mm, cut.down_mm),)
        return index_crops(view, shift, READ_MARGIN_MM, (width, height), opposite=False)[0]

    def _read_windows(
        self,
        views: list[np.ndarray],
        first: np.ndarray | None = None,
        cuts_read: tuple[WindowCut, ...] = READ_CUTS,
    ) -> np.ndarray:
        """Class probabilities of the index window at the top left of every view (a card
        rectified with `READ_MARGIN_MM`, or only its window `_read_extent`), from each of the
        `cuts_read`: shaped (views, cuts, classes). The windows themselves are read first
        (unless their readings are given as `first`); one read `sure_read_min` surely
        (`SURE_READ_MIN`; infinity reads every cut) is not cut and read again, and its first
        reading stands for every cut."""
        cuts, classes = len(cuts_read), len(self.classifier.names)
        if not views:
            return np.zeros((0, cuts, classes), np.float32)
        if first is None:
            first = self.classifier.probabilities([self._crop(view) for view in views])
        readings = np.repeat(first[:, None], cuts, axis=1)
        unsure = np.flatnonzero(first.max(axis=1) < self.sure_read_min)
        log.debug("%d of %d index windows read again, cut otherwise", len(unsure), len(views))
        if len(unsure):
            others = self.classifier.probabilities(
                [self._crop(views[i], cut) for i in unsure for cut in cuts_read[1:]]
            )
            readings[unsure, 1:] = others.reshape(len(unsure), cuts - 1, classes)
        return readings

    def _read_faces(self, views: list[np.ndarray]) -> list[np.ndarray | None]:
        """Class probabilities of each rectified card's whole face (None without the model)."""
        if self.face_classifier is None:
            return [None] * len(views)
        crops = [face_crop(view, READ_MARGIN_MM) for view in views]
        return list(self.face_classifier.probabilities(crops))

    def _named(
        self, quad: np.ndarray, score: float, corners: np.ndarray, face: np.ndarray | None = None
    ) -> CardDetection:
        """A face-up card from the class probabilities of its index corners: both corners
        vote (one is often covered), unless both read as no index, and with them its whole
        `face` where that shows (`with_face`; the name's confidence is then the surer of its
        corner's reading and the combined one); a face-down card when both corners surely
        show none."""
        quad = portrait_order(quad)
        no_index = corners[:, self.none_column].min()
        if no_index >= NO_INDEX_READ_MIN:
            return CardDetection(quad, False, score)
        if no_index > COVERED_INDEX_MIN:
            return CardDetection(quad, True, score)
        votes = corners.copy()
        votes[:, self.none_column] = 0.0
        index = votes.sum(axis=0)
        fused = None if face is None else with_face(index, face, self.none_column)
        best = int((index if fused is None else fused).argmax())
        corner = int(corners[:, best].argmax())
        confidence = float(corners[corner, best])
        if fused is not None:
            confidence = max(confidence, float(fused[best]))
        if confidence < INDEX_SCORE_MIN:
            return CardDetection(quad, True, score)
        # The read corner comes first, so the quad says where the index is.
        name = self.classifier.names[best]
        return CardDetection(np.roll(quad, -2 * corner, axis=0), True, score, name, confidence)


def _show_ink(views: list[np.ndarray]) -> list[int]:
    """Which of the looks' views (rectified with `READ_MARGIN_MM`, at least `FAN_INK_PATCH_MM`
    of them) show at their top left the contrast of a printed index (`FAN_INK_CONTRAST_MIN`)."""
    if not views:
        return []
    start = round(READ_MARGIN_MM * RECTIFIED_PX_PER_MM)
    width, height = (round(side * RECTIFIED_PX_PER_MM) for side in FAN_INK_PATCH_MM)
    patches = np.concatenate(
        [view[start : start + height, start : start + width] for view in views]
    )
    grey = cv2.cvtColor(patches, cv2.COLOR_BGR2GRAY).reshape(len(views), -1)
    darkest, brightest = np.percentile(grey, FAN_INK_PERCENTILES, axis=1)
    return np.flatnonzero(brightest - darkest >= FAN_INK_CONTRAST_MIN).tolist()


def _read_extent(window_mm: tuple[float, float]) -> tuple[float, float]:
    """How much of a card, from its corner, a view must hold to cut every one of `READ_CUTS`
    of an index window `window_mm` large."""
    width, height = window_mm
    return width * READ_EXTENT_SCALE, height * READ_EXTENT_SCALE


def _stock_shares(views: list[np.ndarray]) -> np.ndarray:
    """The share of each view's pixels that look like card stock: unsaturated
    (`STOCK_SATURATION_MAX`) and at least `STOCK_BRIGHTNESS_MIN` as bright as the view's
    brightest (its 95th percentile), so that a shadowed or dim photo's white still counts."""
    if not views:
        return np.zeros(0)
    # One conversion for all: the views are the same size, as in `_show_ink`.
    hsv = cv2.cvtColor(np.concatenate(views), cv2.COLOR_BGR2HSV).reshape(len(views), -1, 3)
    value = hsv[..., 2].astype(np.float32)
    brightest = np.percentile(value, STOCK_BRIGHTEST_PERCENTILE, axis=1, keepdims=True)
    bright = value >= STOCK_BRIGHTNESS_MIN * brightest
    return np.mean(bright & (hsv[..., 1] < STOCK_SATURATION_MAX), axis=1)


def _names_a_card(reading: CardDetection, corner_score: float) -> bool:
    """Whether an index corner found on its own, read as `reading`, names a card."""
    if reading.card is None:
        return False
    return corner_score >= FAINT_CORNER_SCORE or reading.card_score >= FAINT_CORNER_READ_MIN


def _shorter(length_px: float, card: RawCard) -> bool:
    """Whether the card a detection outlines (or whose index corner it outlines) is shorter
    than `length_px` in the photo."""
    return implied_card_length(card.quad, card.index_corner) < length_px
