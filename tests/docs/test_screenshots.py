"""The review-page pictures of the documentation can be regenerated: scripts/screenshot_review.py
runs against a real server in headless Chromium and writes both PNGs.

Set GUARDRAIL_UPDATE_SCREENSHOTS=1 to write them over docs/review-page.png and
docs/review-queue.png (otherwise they go to a temporary folder, so a test run leaves the work
tree as it was). Skips without Chromium or Playwright, except under CI=true.
"""

from __future__ import annotations

import importlib.util
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser.test_review_browser import _chromium
from tests.docs.blocks import ROOT
from tests.needs import unavailable

pytestmark = pytest.mark.browser


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_screenshot_script_writes_both_pictures(tmp_path):
    chromium = _chromium()
    if chromium is None:
        unavailable("browser", "no Chromium (apt-get install chromium)")
    if importlib.util.find_spec("playwright") is None:
        unavailable("browser", "playwright is not installed")
    update = os.environ.get("GUARDRAIL_UPDATE_SCREENSHOTS") == "1"
    out = (ROOT / "docs" if update else tmp_path) / "review-page.png"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "screenshot_review.py"), "--out", str(out),
         "--chromium", chromium],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for name in ("review-page.png", "review-queue.png"):
        width, height = _png_size(out.with_name(name))
        assert width == 1440 and height >= 600  # the script's viewport, a full page
    docs = {p.name for p in (ROOT / "docs").glob("*.png")}
    assert {"review-page.png", "review-queue.png"} <= docs  # the pictures the pages show
