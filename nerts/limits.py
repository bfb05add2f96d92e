"""Limits on the photos the commands take, in a module free of heavy imports: the command line
hands them to OpenCV before OpenCV is loaded."""

from __future__ import annotations

MAX_MEGAPIXELS = 64
"""Larger photos are refused: the commands are made for 1-24 megapixel camera photos, and
decoding much larger ones takes gigabytes (a 64 MP photo is 192 MB as pixels, and the
detectors' letterboxes and tiles copy it) for no gain, as the models look at it shrunk."""
DECODE_PIXELS_MAX = MAX_MEGAPIXELS * 1_000_000
"""OpenCV's own limit (`OPENCV_IO_MAX_IMAGE_PIXELS`), set by the command line before OpenCV
loads: a larger image is refused from its header instead of decoded (a 500-megapixel PNG of
half a megabyte took 8 s and 3 GB before it was refused)."""
