"""Trained weights (committed, so a fresh clone needs no training) and the code that makes them.

    python -m models.train --help      render data, train, export: one documented command each

Every model has a model card (`*.md`) with its data, recipe, epochs, time and metrics.
"""

from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent
CARDS_ONNX = MODELS_DIR / "cards.onnx"
"""Whole cards, face up and face down, with their four corners (YOLOv8n pose)."""
INDEX_ONNX = MODELS_DIR / "index_classifier.onnx"
"""Rank and suit from a rectified index corner, or `none` (YOLOv8n classifier): the export."""
INDEX_INT8_ONNX = MODELS_DIR / "index_classifier.int8.onnx"
"""`INDEX_ONNX` quantized to 8 bits (`models/quantize.py`): what the runtime reads."""
CARDS_INT8_ONNX = MODELS_DIR / "cards.int8.onnx"
"""`CARDS_ONNX` in 8 bits (`models/quantize.py`): what the runtime reads."""
CORNERS_ONNX = MODELS_DIR / "index_corners.onnx"
"""Index corners found on their own, each with its window's four corners (YOLOv8n pose)."""
CORNERS_INT8_ONNX = MODELS_DIR / "index_corners.int8.onnx"
"""`CORNERS_ONNX` in 8 bits (`models/quantize.py`): what the runtime reads."""
FACES_ONNX = MODELS_DIR / "card_faces.onnx"
"""Rank and suit from a whole card's face, or `none` when it is covered (YOLOv8n classifier)."""
QUANTIZED = {
    INDEX_ONNX: INDEX_INT8_ONNX,
    CARDS_ONNX: CARDS_INT8_ONNX,
    CORNERS_ONNX: CORNERS_INT8_ONNX,
}
"""Each export the runtime reads in 8 bits, and its 8-bit model (`python -m models.train
quantize`)."""
