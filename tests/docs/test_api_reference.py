"""The Python API reference documents every name an extender imports: each name that
docs/extending.md or examples/extending/ import from guardrail has a `:::` entry."""

from __future__ import annotations

import ast
import importlib
import inspect
import re

from tests.docs.blocks import ROOT

API = ROOT / "docs" / "reference" / "api.md"


def documented() -> set[str]:
    """The dotted paths of the reference's ``::: path`` entries."""
    return set(re.findall(r"^::: ([\w.]+)\s*$", API.read_text(encoding="utf-8"), re.MULTILINE))


def imported(source: str) -> set[tuple[str, str]]:
    """(module, name) of every ``from guardrail... import name`` in ``source``."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("guardrail"):
            found |= {(node.module or "", alias.name) for alias in node.names}
    return found


def extender_imports() -> set[tuple[str, str]]:
    page = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.DOTALL)
    files = [
        p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples/extending").glob("*.py"))
    ]
    return set().union(*(imported(code) for code in [*blocks, *files]))


def test_every_name_an_extender_imports_is_in_the_reference():
    """A user writing a judge, scorer or action finds each imported name's signature."""
    paths = documented()
    missing = []
    for module, name in sorted(extender_imports()):
        value = getattr(importlib.import_module(module), name)
        if inspect.ismodule(value):
            continue
        home = getattr(value, "__module__", None) if callable(value) else None
        candidates = {f"{module}.{name}", f"{home}.{name}"}
        if not candidates & paths and not any(p.rsplit(".", 1)[-1] == name for p in paths):
            missing.append(f"{module}.{name}")
    assert not missing, f"docs/reference/api.md has no ::: entry for {missing}"


def test_the_named_extension_types_are_there():
    """The types the extending guide's table names by hand are documented by their path."""
    paths = documented()
    for path in (
        "guardrail.judges.base.JudgeRequest",
        "guardrail.judges.base.JudgeResponse",
        "guardrail.judges.registry.register_judge",
        "guardrail.scoring.registry.register_scorer",
        "guardrail.scoring.base.ScorerBase",
        "guardrail.scoring.settings.ScorerWiring",
    ):
        assert path in paths


def test_every_entry_names_a_real_object():
    """No ::: entry points at a name that does not exist (mkdocs would only warn)."""
    for path in sorted(documented()):
        module, _, name = path.rpartition(".")
        try:
            owner = importlib.import_module(path)
        except ImportError:
            owner = getattr(importlib.import_module(module), name)
        assert owner is not None, path
