"""Every Python example of docs/security.md runs, and prints what the page says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "security.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)


def expected_prints(code: str) -> list[str]:
    """What each ``print(...)  # -> TEXT`` line promises: TEXT, less a trailing (remark)."""
    found = re.findall(r"print\(.*\)\s+#\s*->\s*(.*)$", code, re.MULTILINE)
    return [
        re.sub(r"\s*\([^()]*\)$", "", t.strip()) if not t.startswith("(") else t.strip()
        for t in found
    ]


def test_the_page_has_examples():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_example_runs_and_prints_what_the_page_says(code):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(PAGE), "exec"), {"__name__": "__docs__"})
    printed = out.getvalue().splitlines()
    promises = expected_prints(code)
    assert len(printed) == len(promises), (printed, promises)
    for line, promise in zip(printed, promises, strict=True):
        assert line.startswith(promise), (line, promise)
