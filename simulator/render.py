"""The tabletop renderer: a `Scene` in, one overhead camera frame (BGR uint8) out.

Per frame: the layer of cards lying still is updated where cards came or went (see layer.py),
carried cards and hands are painted over a copy, one remap applies perspective and lens, then
a precomputed light map and a precomputed noise frame. All randomness comes from
`RenderSettings.seed` and the frame index, so the same calls give identical bytes.
Motion blur of carried cards and hands uses their positions in the previous frame; it applies
only when frames are rendered in order (frame_index = previous + 1).
"""

from __future__ import annotations

import errno
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import cv2
import numpy as np

from simulator.backs import BackDesign, back_from_spec, default_backs
from simulator.camera import DEFAULT_FPS, CameraModel
from simulator.clutter import paint_clutter
from simulator.faces import CardDesign, builtin_design, load_design
from simulator.geometry import TABLE_UP_TO_4_SEATS_MM
from simulator.hands import HandPainter, HandSettings
from simulator.layer import CardLayer
from simulator.scene import CardPose, HandPose, Scene
from simulator.sensor import GAIN_UNITY, LightSettings, NoiseBank, jpeg_roundtrip, light_map
from simulator.sprites import PatchMaker, ShadowSettings, composite, premultiplied_sprite
from simulator.table import MARKER_MM, MARKER_QUIET_MM, paint_markers, table_surface

__all__ = [
    "BackDesign",
    "CardDesign",
    "RenderSettings",
    "TableRenderer",
    "VideoSink",
    "back_from_spec",
    "builtin_design",
    "default_backs",
    "load_design",
]

logger = logging.getLogger(__name__)


DEFAULT_FRAME_SIZE = (1280, 720)
"""Width and height of the footage and renders unless asked otherwise: the HD frame of the
table cameras the referee is made for, and the size `identify`'s 200 ms target is set on."""


@dataclass(frozen=True)
class RenderSettings:
    """Everything that shapes the footage. Realism knobs are maxima; the seed picks values."""

    size: tuple[int, int] = DEFAULT_FRAME_SIZE
    table: str = "wood"
    """wood | felt | plain"""
    table_mm: tuple[float, float] = TABLE_UP_TO_4_SEATS_MM
    """The play area (inside the four markers); cards are 63 x 88 mm."""
    seed: int = 0
    markers: bool = True
    clutter: int = 0
    """Other things lying on the table (score sheet, phone, cup, pen), painted under the cards."""
    view_margin_mm: float = 20.0
    """Table kept in view beyond the markers' paper on every side."""
    max_tilt_deg: float = 5.0
    """Camera off vertical: pitch and roll each drawn from +-this."""
    max_yaw_deg: float = 3.0
    """Camera rotation about its axis (image not square to the table)."""
    lens_distortion: float = 0.05
    """Max barrel distortion k1 at the image corner (normalised radius 1)."""
    noise_sigma: float = 2.5
    """Sensor noise, grey levels (standard deviation)."""
    noise_frames: int = 6
    """Precomputed noise frames, picked per frame from (seed, frame_index)."""
    jpeg_quality: int | None = None
    """JPEG round trip per frame; None leaves compression to the video encoder."""
    exposure_jitter: float = 0.015
    """Frame-to-frame brightness wobble (auto exposure, mains flicker), as a gain fraction."""
    max_motion_mm: float = 120.0
    """Moves longer than this between frames are jumps (a scene change), not motion: no blur."""
    shutter_fraction: float = 0.5
    """Share of a frame time the shutter is open: motion blur length of carried cards."""
    max_canvas_px_per_mm: float = 8.0
    """Caps the drawing resolution (only matters for close-up training views)."""
    patch_cache: int = 800
    """Cards lying still whose warped image is kept (about 60 KB each at 720p)."""
    lights: LightSettings = field(default_factory=LightSettings)
    shadows: ShadowSettings = field(default_factory=ShadowSettings)
    hands: HandSettings = field(default_factory=HandSettings)


class TableRenderer:
    """Renders scenes for one table, camera and set of decks (decks[seat], backs[seat])."""

    def __init__(
        self, settings: RenderSettings, decks: Sequence[CardDesign], backs: Sequence[BackDesign]
    ) -> None:
        if not decks or not backs:
            raise ValueError("need at least one deck design and one back")
        self.settings = settings
        self.decks = list(decks)
        self.backs = list(backs)
        streams = [np.random.default_rng(s) for s in np.random.SeedSequence(settings.seed).spawn(6)]
        camera_rng, table_rng, light_rng, noise_rng, hand_rng, clutter_rng = streams
        tilt = (
            camera_rng.uniform(-settings.max_tilt_deg, settings.max_tilt_deg),
            camera_rng.uniform(-settings.max_tilt_deg, settings.max_tilt_deg),
            camera_rng.uniform(-settings.max_yaw_deg, settings.max_yaw_deg),
        )
        k1 = camera_rng.uniform(0.3, 1.0) * settings.lens_distortion
        self.camera = CameraModel(
            settings.size, self._watched_region(), tilt, k1, settings.max_canvas_px_per_mm
        )
        canvas = self.camera.canvas
        background = table_surface(settings.table, canvas, table_rng)
        if settings.clutter:
            paint_clutter(background, canvas, self._watched_region(), settings.clutter, clutter_rng)
        if settings.markers:
            paint_markers(background, canvas, settings.table_mm)
        self.background = background
        self.light = light_map(settings.size, settings.lights, light_rng)
        self.noise = NoiseBank(
            settings.size, settings.noise_sigma, settings.noise_frames, noise_rng
        )
        self.patches = PatchMaker(canvas, self._sprite_for, settings.shadows, settings.patch_cache)
        self.layer = CardLayer(background, self.patches)
        self.hand_painter = HandPainter(
            canvas, settings.table_mm, len(self.backs), settings.hands, hand_rng
        )
        self._sprites: dict[tuple[int, str, bool], np.ndarray] = {}
        self._last_lifted: dict[tuple[str, int], tuple[int, float, float]] = {}
        self._last_hands: dict[tuple[int, int], tuple[int, float, float]] = {}
        logger.debug(
            "renderer: canvas %s at %.2f px/mm, tilt %s, k1 %.3f",
            canvas.size,
            canvas.px_per_mm,
            tilt,
            k1,
        )

    def _watched_region(self) -> tuple[float, float, float, float]:
        s = self.settings
        margin = s.view_margin_mm + (MARKER_MM + MARKER_QUIET_MM if s.markers else 0.0)
        return (-margin, -margin, s.table_mm[0] + margin, s.table_mm[1] + margin)

    def design_for(self, seat: int) -> CardDesign:
        return self.decks[seat] if len(self.decks) > 1 else self.decks[0]

    def back_for(self, seat: int) -> BackDesign:
        return self.backs[seat] if len(self.backs) > 1 else self.backs[0]

    def _sprite_for(self, pose: CardPose) -> np.ndarray:
        key = (pose.seat, pose.card if pose.face_up else "", pose.face_up)
        sprite = self._sprites.get(key)
        if sprite is None:
            if pose.face_up:
                image = self.design_for(pose.seat).faces[pose.card]
            else:
                image = self.back_for(pose.seat).image
            sprite = premultiplied_sprite(image, self.camera.canvas)
            self._sprites[key] = sprite
        return sprite

    def _motion_px(self, pose: CardPose, frame_index: int) -> tuple[float, float]:
        previous = self._last_lifted.get((pose.card, pose.seat))
        if previous is None or previous[0] != frame_index - 1:
            return (0.0, 0.0)
        return self._blur_px(pose.x - previous[1], pose.y - previous[2])

    def _hand_motion_px(
        self, key: tuple[int, int], hand: HandPose, frame_index: int
    ) -> tuple[float, float]:
        previous = self._last_hands.get(key)
        if previous is None or previous[0] != frame_index - 1:
            return (0.0, 0.0)
        return self._blur_px(hand.x - previous[1], hand.y - previous[2])

    def _blur_px(self, dx_mm: float, dy_mm: float) -> tuple[float, float]:
        """Canvas-pixel smear of a move between two frames while the shutter is open."""
        if math.hypot(dx_mm, dy_mm) > self.settings.max_motion_mm:
            return (0.0, 0.0)
        scale = self.camera.canvas.px_per_mm * self.settings.shutter_fraction
        return (dx_mm * scale, dy_mm * scale)

    def reset(self) -> None:
        """Forget the last frame's lifted cards and hands: the next scene does not follow it
        (training renders are unrelated scenes), so nothing in it is smeared as if it moved."""
        self._last_lifted.clear()
        self._last_hands.clear()

    def render_canvas(self, scene: Scene, frame_index: int) -> np.ndarray:
        """The top-down canvas of a scene before the camera (callers must not modify it)."""
        lying = [c for c in scene.cards if c.lift <= 0]
        lifted = [c for c in scene.cards if c.lift > 0]
        base = self.layer.update(lying)
        if not lifted and not scene.hands:
            self.reset()
            return base
        canvas = base.copy()
        full = (0, 0, canvas.shape[1], canvas.shape[0])
        for pose in lifted:
            patch = self.patches.patch(pose, self._motion_px(pose, frame_index))
            composite(canvas, patch, full)
        self._last_lifted = {(c.card, c.seat): (frame_index, c.x, c.y) for c in lifted}
        hand_keys = _hand_keys(scene.hands)
        for key, hand in zip(hand_keys, scene.hands, strict=True):
            self.hand_painter.paint(canvas, hand, self._hand_motion_px(key, hand, frame_index))
        self._last_hands = {
            key: (frame_index, hand.x, hand.y)
            for key, hand in zip(hand_keys, scene.hands, strict=True)
        }
        return canvas

    def render(self, scene: Scene, frame_index: int) -> np.ndarray:
        """One camera frame, BGR uint8 of `settings.size`."""
        image = self.camera.warp(self.render_canvas(scene, frame_index))
        frame_key = hash((self.settings.seed, frame_index))  # int tuples hash the same every run
        wobble = ((frame_key % 2001) / 1000.0 - 1.0) * self.settings.exposure_jitter
        cv2.multiply(image, self.light, dst=image, scale=(1.0 + wobble) / GAIN_UNITY)
        self.noise.apply(image, frame_key // 2001)
        if self.settings.jpeg_quality is not None:
            image = jpeg_roundtrip(image, self.settings.jpeg_quality)
        return image

    def project(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Table mm -> image pixels through the same camera model as `render`."""
        return self.camera.project(x_mm, y_mm)


def _hand_keys(hands: tuple[HandPose, ...]) -> list[tuple[int, int]]:
    """(seat, n-th hand of that seat): follows a hand from frame to frame."""
    counts: dict[int, int] = {}
    keys = []
    for hand in hands:
        keys.append((hand.seat, counts.get(hand.seat, 0)))
        counts[hand.seat] = counts.get(hand.seat, 0) + 1
    return keys


class VideoSink:
    """Context manager writing frames to an mp4 (OpenCV's `mp4v`); released even on errors."""

    def __init__(
        self,
        path: Path,
        fps: float = DEFAULT_FPS,
        size: tuple[int, int] = DEFAULT_FRAME_SIZE,
        fourcc: str = "mp4v",
    ) -> None:
        if size[0] % 2 or size[1] % 2:
            # The mp4v encoder silently drops the odd row/column; refuse instead of cropping.
            raise ValueError(f"video size must be even in both directions, got {size[0]}x{size[1]}")
        self.path = Path(path)
        self.fps = fps
        self.size = size
        self.fourcc = fourcc
        self._writer: cv2.VideoWriter | None = None
        self.frames_written = 0

    def __enter__(self) -> VideoSink:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        writer = cv2.VideoWriter(
            str(self.path), cv2.VideoWriter.fourcc(*self.fourcc), self.fps, self.size
        )
        if not writer.isOpened():
            raise OSError(f"cannot open video writer for {self.path} ({self.fourcc})")
        self._writer = writer
        return self

    def write(self, frame: np.ndarray) -> None:
        if self._writer is None:
            raise RuntimeError("VideoSink.write outside its `with` block")
        if frame.shape[:2] != (self.size[1], self.size[0]):
            raise ValueError(
                f"frame is {frame.shape[1]}x{frame.shape[0]}, sink expects "
                f"{self.size[0]}x{self.size[1]}"
            )
        self._writer.write(frame)
        self.frames_written += 1

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._writer is not None:
            self._writer.release()
            self._writer = None
            logger.debug("%s: %d frames written", self.path, self.frames_written)
            # OpenCV's writer says nothing of a frame it could not write (a full disk): the
            # file is read back, so that a video cut short is not announced as whole.
            kept = self.frames_written if exc_type is not None else _frames_in(self.path)
            if kept < self.frames_written:
                # ENOSPC, the likeliest cause, so that the command line says it in one line.
                raise OSError(
                    errno.ENOSPC,
                    f"only {kept} of {self.frames_written} frames could be written (is the disk "
                    "full?)",
                    str(self.path),
                )


def _frames_in(path: Path) -> int:
    """How many frames the video file at `path` holds, by its container (0 if unreadable)."""
    capture = cv2.VideoCapture(str(path))
    try:
        return int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) if capture.isOpened() else 0
    finally:
        capture.release()
