"""The ONNX models on onnxruntime: detectors (`CardDetector`: whole cards, index corners) and
classifiers (`IndexClassifier`: index corners, whole faces)."""

from __future__ import annotations

import ast
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.geometry import (
    INDEX_WINDOW_MM,
    LEGACY_INDEX_WINDOW_MM,
    card_from_window,
    card_length,
)

if TYPE_CHECKING:  # for annotations only: `_session` imports it, saying so if it is missing
    from onnxruntime import InferenceSession

log = logging.getLogger(__name__)

DETECTION_SCORE_MIN = 0.35
"""A card needs at least this detector score to be reported (chosen when the detector was
first wired in, not tuned since: the reading's own thresholds decide what is named)."""
MIN_FOUND_CARD_PX = 25.0
"""A detection of a card (or an index corner implying one) shorter than this in the photo is
dropped: half the smallest card the commands are made for (50 px) and under the smallest the
detectors were trained on (37 px). A small photo is enlarged to the detector's input, and there
the detector had found hundreds of specks 1-6 px long in a 40 px picture of noise, and on tiles
specks 12-25 px long along a table's edge. On the tuning renders (val seed 9, hand fans seed
11) and the edje train photos, floors of 20, 25 and 30 px named the same cards and dropped 2
of 54 face-down reports on no card."""
DETECTION_IOU_MAX = 0.45
"""Two detections overlapping more than this are one card (non-maximum suppression; the
usual YOLO value, not tuned here; surely found cards may overlap more: `_with_sure_overlaps`)."""
LETTERBOX_GREY = 114
"""Grey of the padding around a letterboxed photo: what ultralytics pads with in training, so
the detectors see the border they learnt."""
INDEX_WINDOW_KEY = "index_window_mm"
"""ONNX metadata of the index classifier: the corner window ("26,32", mm) its crops were cut
with, which the runtime must cut alike."""
THREADS = 2
"""onnxruntime threads per model: the 2 cores of the machines the 200 ms target is set on."""
ORT_LOG_ERRORS_ONLY = 3
"""onnxruntime's own log level (0 verbose .. 4 fatal): it writes straight to the terminal,
past the command's logging, so only its errors are let through."""
SPIN_WAITING_THREADS = False
"""Whether a session's threads keep spinning after a run, waiting for the next one. The
reader runs up to four sessions in turn on the same cores, and the threads of the one just run
spun on through the next one's run: a 1280x720 photo read in 280-320 ms with spinning and
165-175 ms without (2 cores, 15 reads, median)."""


INT8_SUFFIX = ".int8.onnx"
"""How the 8-bit models the runtime reads are named beside their exports (`models.QUANTIZED`)."""


class ModelFileError(FileNotFoundError):
    """A model file is missing or unreadable; the message names it and how to get it."""


TELEMETRY_SWITCH = "ORT_DISABLE_TELEMETRY"
"""onnxruntime from 1.29 on sends Microsoft usage events from Linux and macOS too, keeping a
device id under ~/.cache, unless this is set before it loads. A family's card table is no
business of anyone else's: it is set (to "1") unless the user set it themselves."""


def _session(path: Path) -> InferenceSession:
    os.environ.setdefault(TELEMETRY_SWITCH, "1")
    import onnxruntime  # noqa: PLC0415  (imported late: a clear error if the extra is missing)

    if not path.is_file():
        # An 8-bit model is made from its export, no training needed.
        remedy = (
            "make it from its export with 'python -m models.train quantize'"
            if path.name.endswith(INT8_SUFFIX)
            else "retrain with 'python -m models.train --help'"
        )
        raise ModelFileError(f"model file not found: {path} (it is committed in models/; {remedy})")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = THREADS
    spin = "1" if SPIN_WAITING_THREADS else "0"
    options.add_session_config_entry("session.intra_op.allow_spinning", spin)
    options.log_severity_level = ORT_LOG_ERRORS_ONLY
    load_errors: tuple[type[Exception], ...] = (
        RuntimeError,
        OSError,
        ValueError,
        *_onnxruntime_load_errors(),
    )
    try:
        session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
    except load_errors as error:
        raise ModelFileError(f"cannot load model {path}: {error}") from None
    log.debug("loaded %s (input %s)", path, session.get_inputs()[0].shape)
    return session


def _onnxruntime_load_errors() -> tuple[type[Exception], ...]:
    """What onnxruntime raises for a file that is no model (a truncated download, a Git LFS
    pointer): its own classes, derived from Exception alone, not RuntimeError."""
    from onnxruntime.capi import onnxruntime_pybind11_state as state  # noqa: PLC0415

    names = ("Fail", "InvalidArgument", "InvalidGraph", "InvalidProtobuf", "NoSuchFile")
    return tuple(getattr(state, name) for name in names if hasattr(state, name))


def _class_names_of_kind(session: InferenceSession, path: Path, task: str) -> list[str]:
    """The class names of an ultralytics export of `task` ("pose": a detector of cards and
    their corners; "classify"); a `ModelFileError` for a model file of another kind in its
    place (a classifier copied over a detector), whose output would be misread or end in a
    traceback."""
    metadata = session.get_modelmeta().custom_metadata_map
    try:
        listed = ast.literal_eval(metadata.get("names", "{}"))
        names = [str(listed[i]) for i in sorted(listed)]
    except (ValueError, TypeError, SyntaxError, KeyError):
        raise ModelFileError(f"{path}: its class names cannot be read. {MODEL_REMEDY}") from None
    try:
        keypoints, per_keypoint = ast.literal_eval(metadata.get("kpt_shape", CARD_KEYPOINTS))
        keypoint_values = int(keypoints) * int(per_keypoint)
    except (ValueError, TypeError, SyntaxError, OverflowError):
        raise ModelFileError(f"{path}: its keypoint shape cannot be read. {MODEL_REMEDY}") from None
    input_shape, output_shape = session.get_inputs()[0].shape, session.get_outputs()[0].shape
    channels = output_shape[1] if len(output_shape) > 1 else None
    rank, values = TASK_OUTPUTS[task]
    expected = values + len(names)
    if task == "pose":  # then each keypoint's values: (x, y, visible)
        expected += keypoint_values
    fits = channels == expected or not isinstance(channels, int)
    found = metadata.get("task", task)
    if found != task or len(output_shape) != rank or not names or not fits:
        raise ModelFileError(
            f"{path} is no {TASK_KINDS[task]} (a {TASK_KINDS.get(found, found + ' model')} with "
            f"input {input_shape}, output {output_shape}, classes {len(names)}): a model file of "
            f"another kind in its place? {MODEL_REMEDY}"
        )
    return names


CARD_KEYPOINTS = "[4, 3]"
"""An export's keypoint shape where its metadata holds none: a card's four corners, each x, y
and whether it is visible."""
TASK_OUTPUTS = {"pose": (3, 4), "classify": (2, 0)}
"""Per task, the rank of an export's output and its values besides the classes': a pose
model's is (batch, values, anchors), a box (4 values) before the classes' scores; a
classifier's (batch, classes)."""
TASK_KINDS = {"pose": "card detector", "classify": "classifier"}
MODEL_REMEDY = "The one to use is committed in models/"


INDEX_CORNER_CLASS = "index_corner"
"""The index-corner detector's class: one index corner of a face-up card, found whether or not
the rest of the card is (`models/index_corners.py`)."""
CORNER_WINDOW_MM = INDEX_WINDOW_MM
"""The window an index-corner detection outlines (what its labels outline), whatever window
the classifier reads."""


Letterboxed = tuple[np.ndarray, float, np.ndarray]
"""A photo as a detector's input: the tensor, the scale and the (left, top) padding."""


@dataclass(frozen=True)
class RawCard:
    quad: np.ndarray
    """4 x 2 image pixels: a whole card's corners, or for an index corner the corners of its
    index window in reading order (`vision.geometry.corner_window_mm`)."""
    face_up: bool
    score: float
    index_corner: bool = False


class CardDetector:
    """Whole cards, face up or down, each with its four corners, and in newer exports index
    corners on their own (YOLOv8 pose, ONNX)."""

    def __init__(
        self,
        path: Path,
        score_min: float = DETECTION_SCORE_MIN,
        iou_max: float = DETECTION_IOU_MAX,
    ) -> None:
        self.session = _session(path)
        self.names = _class_names_of_kind(self.session, path, "pose")
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        _, _, height, width = model_input.shape
        self.fixed = (height, width) if isinstance(height, int) else None
        self.own_side = _input_size(self.session, path)
        self.stride = int(self.session.get_modelmeta().custom_metadata_map.get("stride", 32))
        self.score_min = score_min
        self.iou_max = iou_max

    @property
    def resizable(self) -> bool:
        """Whether the export takes a photo at any size (`long_side`), not only its own."""
        return self.fixed is None

    def __call__(
        self,
        image: np.ndarray,
        boxed: Letterboxed | None = None,
        iou_max: float | None = None,
        long_side: int | None = None,
        *,
        sure_overlap: tuple[float, float] | None = None,
    ) -> list[RawCard]:
        """Cards in `image`; `boxed`, its `letterbox` made for another detector, is used
        when the sizes agree (two detectors need not scale one photo twice); `iou_max`, if
        given, suppresses overlapping detections in place of the detector's own; `long_side`
        (a resizable export only) shrinks the photo to that many pixels instead of the
        model's own size. `sure_overlap`, (IoU, score), also keeps the detections scored at
        least that score that overlap the kept ones up to that IoU (`_with_sure_overlaps`)."""
        if boxed is None or boxed[0].shape[2:] != self._canvas(image, long_side)[1]:
            boxed = self.letterbox(image, long_side)
        tensor, scale, pad = boxed
        output = self.session.run(None, {self.input_name: tensor})[0][0].T  # anchors x values
        classes = len(self.names)
        scores = output[:, 4 : 4 + classes]
        best = scores.argmax(axis=1)
        confidence = scores[np.arange(len(best)), best]
        keep = confidence >= self.score_min
        output, best, confidence = output[keep], best[keep], confidence[keep]
        if not len(output):
            return []
        boxes = output[:, :4].copy()
        boxes[:, :2] -= boxes[:, 2:] / 2
        overlap_max = self.iou_max if iou_max is None else iou_max
        kept = cv2.dnn.NMSBoxes(boxes.tolist(), confidence.tolist(), self.score_min, overlap_max)
        chosen = np.asarray(kept, int).reshape(-1)
        if sure_overlap is not None:
            chosen = _with_sure_overlaps(boxes, confidence, chosen, sure_overlap)
        cards = []
        for i in chosen:
            points = output[i, 4 + classes :].reshape(-1, 3)[:, :2]
            quad = (points - pad) / scale
            name = self.names[int(best[i])]
            if implied_card_length(quad, name == INDEX_CORNER_CLASS) < MIN_FOUND_CARD_PX:
                continue
            face_up = name in ("card_face_up", INDEX_CORNER_CLASS)
            cards.append(
                RawCard(
                    quad.astype(np.float32),
                    face_up,
                    float(confidence[i]),
                    index_corner=name == INDEX_CORNER_CLASS,
                )
            )
        return cards

    def letterbox(self, image: np.ndarray, long_side: int | None = None) -> Letterboxed:
        """The model's input tensor, and the scale and padding that map it to `image`."""
        scale, (canvas_h, canvas_w) = self._canvas(image, long_side)
        height, width = image.shape[:2]
        new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
        canvas = np.full((canvas_h, canvas_w, 3), LETTERBOX_GREY, np.uint8)
        left, top = (canvas_w - new_w) // 2, (canvas_h - new_h) // 2
        canvas[top : top + new_h, left : left + new_w] = cv2.resize(
            image, (new_w, new_h), interpolation=cv2.INTER_AREA
        )
        return _input_tensor(canvas[None]), scale, np.array([left, top], np.float32)

    def _canvas(self, image: np.ndarray, long_side: int | None) -> tuple[float, tuple[int, int]]:
        """The scale `image` is shrunk by, and the (height, width) of the input it fills: at
        the model's own size the square it was trained on; at another, only as much more as
        the model's stride needs (a wide photo fills little of a square)."""
        height, width = image.shape[:2]
        if self.fixed is not None:
            if long_side not in (None, self.own_side):
                raise ValueError(f"this detector export takes {self.fixed} inputs only")
            return min(self.fixed[1] / width, self.fixed[0] / height), self.fixed
        if long_side in (None, self.own_side):
            return self.own_side / max(height, width), (self.own_side, self.own_side)
        scale = long_side / max(height, width)

        def padded(side: int) -> int:
            return -(-round(side * scale) // self.stride) * self.stride

        return scale, (padded(height), padded(width))


CROPS_RUN_MAX = 512
"""The most crops one run of a classifier takes: onnxruntime keeps the memory of its largest
run for the rest of the process, and a photo of a thousand cards gives ten thousand crops."""


class IndexClassifier:
    """Rank and suit of an upright index-corner crop, or "none" (YOLOv8 classifier, ONNX)."""

    def __init__(self, path: Path) -> None:
        self.session = _session(path)
        self.names = _class_names_of_kind(self.session, path, "classify")
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        self.size = _input_size(self.session, path)
        # An export with a dynamic batch axis takes all crops in one run; a fixed one, one each.
        self.batched = not isinstance(model_input.shape[0], int)
        self.window_mm = _window_mm(self.session, path)

    def tensor(self, crops: list[np.ndarray]) -> np.ndarray:
        """The model's input for `crops` (BGR, at least one): resized, one row each."""
        side = (self.size, self.size)
        return _input_tensor(
            np.stack([c if c.shape[:2] == side else cv2.resize(c, side) for c in crops])
        )

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """Class probabilities, one row per crop (BGR), columns in `names` order."""
        if not crops:
            return np.zeros((0, len(self.names)), np.float32)
        tensor = self.tensor(crops)
        if self.batched:
            return np.concatenate(
                [
                    self.session.run(
                        None, {self.input_name: tensor[start : start + CROPS_RUN_MAX]}
                    )[0]
                    for start in range(0, len(tensor), CROPS_RUN_MAX)
                ]
            )
        return np.concatenate(
            [self.session.run(None, {self.input_name: t[None]})[0] for t in tensor]
        )


def implied_card_length(quad: np.ndarray, index_corner: bool) -> float:
    """The length in the photo of the card a detection outlines, or whose index window it
    outlines."""
    return card_length(card_from_window(quad, CORNER_WINDOW_MM) if index_corner else quad)


def _with_sure_overlaps(
    boxes: np.ndarray, confidence: np.ndarray, chosen: np.ndarray, sure_overlap: tuple[float, float]
) -> np.ndarray:
    """`chosen`, the detections non-maximum suppression kept, with those it suppressed that
    score at least the second of `sure_overlap` and overlap every kept one at most its first,
    best first. Boxes are (left, top, width, height)."""
    iou_max, score_min = sure_overlap
    kept = list(chosen)
    for i in np.argsort(-confidence):
        if confidence[i] < score_min:
            break
        if i in kept:
            continue
        if np.all(_box_overlaps(boxes[i], boxes[kept]) <= iou_max):
            kept.append(int(i))
    return np.array(kept, int)


def _box_overlaps(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Intersection over union of one (left, top, width, height) box with each of `others`."""
    if not len(others):
        return np.zeros(0)
    left = np.maximum(box[0], others[:, 0])
    top = np.maximum(box[1], others[:, 1])
    right = np.minimum(box[0] + box[2], others[:, 0] + others[:, 2])
    bottom = np.minimum(box[1] + box[3], others[:, 1] + others[:, 3])
    inter = np.clip(right - left, 0, None) * np.clip(bottom - top, 0, None)
    union = box[2] * box[3] + others[:, 2] * others[:, 3] - inter
    return inter / np.maximum(union, 1e-9)


def _input_tensor(images: np.ndarray) -> np.ndarray:
    """BGR uint8 images (batch, height, width, 3) as the models take them: RGB planes, 0..1,
    contiguous. Dividing straight into the new array gives the same floats as converting
    first and dividing after, in a third of the time (511 crops: 9 ms against 28)."""
    tensor = np.empty((images.shape[0], 3, *images.shape[1:3]), np.float32)
    np.divide(
        images[..., ::-1].transpose(0, 3, 1, 2), np.float32(255), out=tensor, casting="unsafe"
    )
    return tensor


def _window_mm(session: InferenceSession, path: Path) -> tuple[float, float]:
    """The index window the classifier was trained on (older exports: the legacy square); a
    `ModelFileError` where the export names it in a way it cannot be read."""
    text = session.get_modelmeta().custom_metadata_map.get(INDEX_WINDOW_KEY)
    if text is None:
        return LEGACY_INDEX_WINDOW_MM
    try:
        width, height = (float(side) for side in text.split(","))
    except ValueError:
        raise ModelFileError(
            f"{path}: its index window ({INDEX_WINDOW_KEY} {text!r}) cannot be read. {MODEL_REMEDY}"
        ) from None
    return width, height


def _input_size(session: InferenceSession, path: Path) -> int:
    """Side of the square input: from the graph, or from the export's metadata when dynamic;
    a `ModelFileError` where neither says it."""
    side = session.get_inputs()[0].shape[2]
    if isinstance(side, int):
        return side
    try:
        side = int(ast.literal_eval(session.get_modelmeta().custom_metadata_map["imgsz"])[0])
    except (KeyError, ValueError, TypeError, SyntaxError, IndexError, OverflowError):
        side = 0
    if side <= 0:
        raise ModelFileError(f"{path}: its input size cannot be read. {MODEL_REMEDY}")
    return side
