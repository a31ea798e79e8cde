"""docs/telemetry.md: its python blocks run, in order, as one program, offline."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = "from guardrail.testing import no_network\nno_network().__enter__()\n"


def test_the_telemetry_page_runs(tmp_path):
    (tmp_path / "policies").mkdir()
    shutil.copy(ROOT / "policies" / "default.yaml", tmp_path / "policies")
    page = (ROOT / "docs" / "telemetry.md").read_text()
    program = OFFLINE + "\n".join(re.findall(r"```python\n(.*?)```", page, flags=re.S))
    proc = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
        cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "escalate pregnancy" in proc.stdout
    assert "guardrail.stage.verify" in proc.stdout
