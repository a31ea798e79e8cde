"""Benchmarks and scripts are a package run with ``python -m``: no ``sys.path`` edits, every
module importable without running (the work happens under ``if __name__ == "__main__"``)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = sorted(p for p in (ROOT / "benchmarks").glob("*.py") if p.name != "__init__.py")
SCRIPTS = sorted((ROOT / "scripts").glob("*.py"))


def _edits_sys_path(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "path"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        ):
            return True
    return False


@pytest.mark.parametrize("path", BENCHMARKS + SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_sys_path_edits(path: Path):
    """Imports resolve through the package, never through a hand-made search path."""
    assert not _edits_sys_path(path), f"{path.relative_to(ROOT)} edits sys.path"


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.stem)
def test_benchmark_imports_as_a_module(path: Path):
    """``python -m benchmarks.NAME`` finds the module, and importing it runs no benchmark."""
    module = importlib.import_module(f"benchmarks.{path.stem}")
    assert module.__doc__, f"benchmarks/{path.name} has no docstring saying how to run it"


def test_results_writer_records_the_machine(tmp_path: Path):
    """Every results file carries date, Python, CPU count and load, and is strict JSON."""
    import json

    from benchmarks._common import write_results

    out = write_results("demo", {"figure": 1.5, "machine": {"note": "kept"}}, tmp_path / "r.json")
    body = json.loads(out.read_text())
    assert body["benchmark"] == "demo" and body["figure"] == 1.5
    assert {"date", "python", "cpu_count", "load_avg"} <= set(body["machine"])
    assert body["machine"]["note"] == "kept"
    with pytest.raises(ValueError):
        write_results("demo", {"figure": float("nan")}, tmp_path / "nan.json")


def test_data_root_reads_the_environment_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """``GUARDRAIL_SHARED_DATA`` wins over the folder beside the checkout."""
    from benchmarks._common import data_root

    monkeypatch.setenv("GUARDRAIL_SHARED_DATA", str(tmp_path))
    assert data_root() == tmp_path
    monkeypatch.delenv("GUARDRAIL_SHARED_DATA")
    assert data_root() == ROOT.parent / "shared" / "data"
