"""Reading a photo leaves nothing behind and sends nothing: no runtime's telemetry."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from nerts.commands.identify import NO_CARD_HINT
from vision.onnx_models import TELEMETRY_SWITCH

TELLS_CI = ("CI", "GITHUB_ACTIONS", "TF_BUILD", "ORT_RUNNING_UNIT_TESTS")
"""Variables under which onnxruntime keeps quiet by itself: unset, as on a family's laptop."""


def test_identify_keeps_no_device_id_in_the_home_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    photo = tmp_path / "table.png"
    # As large and coloured as a photo is (a small or a black-and-white one is warned of),
    # as stderr must hold nothing but that no card is found: green felt.
    cv2.imwrite(str(photo), np.full((720, 1280, 3), (60, 120, 40), np.uint8))
    unset = (*TELLS_CI, TELEMETRY_SWITCH, "XDG_CACHE_HOME")
    environment = {k: v for k, v in os.environ.items() if k not in unset} | {"HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "nerts", "identify", str(photo)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=environment,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"warning: no card found in {photo}: {NO_CARD_HINT}\n"
    assert list(home.rglob("*")) == []
