"""Frames in, table observations out: card detection, identification and deck-back matching.

Runs on onnxruntime + OpenCV + numpy alone (no torch): the models in `models/` are ONNX files.
Geometry first, then classification (as chesscog does): a detector finds each card's four
corners, the card is rectified, and its index corners are classified in that canonical frame.
"""
