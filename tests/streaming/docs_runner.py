"""Run the python examples of a page under docs/ as one script, the way a reader would."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def python_blocks(page: str) -> list[str]:
    """The ```python blocks of ``docs/<page>``, in order."""
    return _BLOCK.findall((ROOT / "docs" / page).read_text(encoding="utf-8"))


def run_page(page: str, cwd: Path, env: dict[str, str]) -> str:
    """Run the page's python blocks, concatenated, in ``cwd`` (which gets a copy of
    ``policies/``); return stdout, failing with stderr if the script fails."""
    blocks = python_blocks(page)
    assert blocks, f"docs/{page} has no python example"
    shutil.copytree(ROOT / "policies", cwd / "policies", dirs_exist_ok=True)
    script = cwd / "example.py"
    script.write_text("\n\n".join(blocks), encoding="utf-8")
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT), **env}
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=cwd,
        env=full_env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
