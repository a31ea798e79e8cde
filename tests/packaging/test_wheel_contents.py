"""scripts/wheel_contents.py: the check CI runs on the built wheel finds what is missing and
what does not belong (here on small wheels made in the test; CI runs it on the real one)."""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _checker() -> ModuleType:
    path = ROOT / "scripts" / "wheel_contents.py"
    spec = importlib.util.spec_from_file_location("wheel_contents", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECK = _checker()
META = ("guardrail_rag-0.1.0.dist-info/METADATA", "guardrail_rag-0.1.0.dist-info/RECORD")


def _wheel(tmp_path: Path, names: set[str] | tuple[str, ...]) -> Path:
    path = tmp_path / "guardrail_rag-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name in (*names, *META):
            archive.writestr(name, "x")
    return path


@pytest.fixture
def tree() -> set[str]:
    return {"guardrail/__init__.py", "guardrail/server/templates/extra.html", *CHECK.REQUIRED}


def test_a_wheel_with_every_file_of_the_tree_passes(tmp_path, tree):
    """Nothing to report when the wheel holds exactly the package's files."""
    assert CHECK.problems(_wheel(tmp_path, tree), tree) == []


def test_a_file_of_the_tree_left_out_is_named(tmp_path, tree):
    """A template that no package-data pattern matched is reported by name."""
    wheel = _wheel(tmp_path, tree - {"guardrail/server/templates/extra.html"})
    assert CHECK.problems(wheel, tree) == [
        "missing (in the source tree): guardrail/server/templates/extra.html"
    ]


@pytest.mark.parametrize("name", ["guardrail/policies/default.yaml", "guardrail/py.typed"])
def test_a_required_file_is_named_even_if_the_tree_lost_it(tmp_path, tree, name):
    """The default policy and the typing marker must ship whatever the tree lists."""
    wheel = _wheel(tmp_path, tree - {name})
    assert CHECK.problems(wheel, tree - {name}) == [f"missing (required): {name}"]


@pytest.mark.parametrize(
    "name",
    [
        "tests/test_guard.py",
        "guardrail/__pycache__/guard.cpython-311.pyc",
        "guardrail/data/ragtruth.jsonl",
        "guardrail/tests/test_x.py",
    ],
)
def test_tests_data_and_caches_are_refused(tmp_path, tree, name):
    """Tests, data sets and caches never ship, even when the tree holds them."""
    found = CHECK.problems(_wheel(tmp_path, {*tree, name}), {*tree, name})
    assert any(name in line and "belong" in line for line in found), found


def test_a_file_the_tree_does_not_have_is_named(tmp_path, tree):
    """A stray file from a local build folder is reported."""
    found = CHECK.problems(_wheel(tmp_path, {*tree, "guardrail/notes.txt"}), tree)
    assert found == ["not in the source tree: guardrail/notes.txt"]


def test_an_oversized_wheel_is_refused(tmp_path, tree, monkeypatch):
    """The size limit is checked (set low here to exercise it)."""
    monkeypatch.setattr(CHECK, "MAX_BYTES", 10)
    found = CHECK.problems(_wheel(tmp_path, tree), tree)
    assert len(found) == 1 and "over the 10 limit" in found[0]


def test_the_tree_lists_the_shipped_policies_through_the_link():
    """The source listing follows guardrail/policies to the repository's policies/."""
    files = CHECK.source_files()
    assert {"guardrail/policies/default.yaml", "guardrail/policies/policy.schema.json"} <= files
    assert set(CHECK.REQUIRED) <= files
    assert not any("__pycache__" in f for f in files)
