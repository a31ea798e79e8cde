"""The documentation builds with the `docs` extra alone: the build hook that generates the
command-line and policy-schema references needs no optional part (here FastAPI, uvicorn and
Starlette are made unimportable, as in a fresh `pip install -e '.[docs]'`)."""

from __future__ import annotations

import subprocess
import sys

from tests.docs.blocks import ROOT

_WITHOUT_SERVER = """
import importlib.abc, sys

class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("fastapi", "starlette", "uvicorn"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Missing())
sys.path[:0] = [ROOT, ROOT + "/docs/hooks"]
import reference
print(reference.cli_markdown())
print(reference.schema_markdown())
"""


def _generate() -> subprocess.CompletedProcess[str]:
    code = f"ROOT = {str(ROOT)!r}\n{_WITHOUT_SERVER}"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_the_blocker_blocks():
    """The simulated docs-only install really has no FastAPI."""
    code = f"ROOT = {str(ROOT)!r}\n" + _WITHOUT_SERVER.split("sys.path[:0]")[0] + "import fastapi"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode != 0 and "No module named 'fastapi'" in proc.stderr


def test_the_reference_pages_generate_without_the_server_extra():
    """Every command's section, serve and proxy included, is generated without FastAPI."""
    proc = _generate()
    assert proc.returncode == 0, proc.stderr[-2000:]
    for command in ("check", "serve", "proxy", "probe"):
        assert f"## `guardrail {command}`" in proc.stdout
    assert "## Policy (the file)" in proc.stdout


def test_the_other_commands_generate_without_the_server_extra():
    """Every command but serve and proxy generates without FastAPI, also when those two are
    left out (a hook change must not make it worse)."""
    code = f"ROOT = {str(ROOT)!r}\n" + _WITHOUT_SERVER.replace(
        "print(reference.cli_markdown())",
        "from guardrail.cli.commands import COMMANDS\n"
        "from guardrail.cli import build_parser\n"
        "for name in COMMANDS:\n"
        "    if name not in ('serve', 'proxy'):\n"
        "        reference._command_section(name, build_parser([name]), '', 2)\n"
        "        print('ok', name)\n",
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "ok check" in proc.stdout and "ok probe" in proc.stdout
    assert "## Policy (the file)" in proc.stdout
