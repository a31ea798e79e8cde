"""docs/integrations.md: its python blocks run, in order, as one program, offline."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
pytest.importorskip("llama_index.core", reason="the llamaindex extra is not installed")

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = "from guardrail.testing import no_network\nno_network().__enter__()\n"


def python_blocks(page: Path) -> str:
    return "\n".join(re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S))


def test_the_integrations_page_runs(tmp_path):
    (tmp_path / "policies").mkdir()
    shutil.copy(ROOT / "policies" / "default.yaml", tmp_path / "policies")
    program = OFFLINE + python_blocks(ROOT / "docs" / "integrations.md")
    proc = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
        cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "escalate pregnancy" in proc.stdout
    assert (tmp_path / "audit.jsonl").exists()
