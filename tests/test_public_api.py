"""The curated public API: every exported name exists, and nothing leaks in unannounced."""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

import guardrail

EXPECTED = {
    "AuditError", "AuditIntegrityError", "Citation", "ConfigError", "Decision", "EscalationCase",
    "EscalationError", "Factoid", "GuardResult", "GuardrailError", "Judge", "JudgeCall",
    "JudgeError", "JudgeRateLimited", "JudgeRequest", "JudgeRequestError", "JudgeResponse",
    "JudgeServerError", "JudgeTimeout", "Label", "MetaRAG", "MetaRAGConfig", "PolicyError",
    "PromptSet", "Relation", "RetryPolicy", "ScoreReport", "Scorer", "ScoringError",
    "ScriptedJudge", "TopicLabel", "Usage", "Variant", "Verdict", "__version__", "make_judge",
    "Guard", "Policy", "PolicyEngine", "load_policy", "RT4Chart", "ReferenceMetric",
    "TopicClassifier", "Escalator", "AuditLog", "RT4ChartConfig", "build_scorer",
}  # fmt: skip


def test_all_is_pinned():
    """__all__ is exactly the documented set; changing it is a deliberate act."""
    assert set(guardrail.__all__) == EXPECTED


def test_every_exported_name_resolves():
    """Each name in __all__ is importable from the top level."""
    for name in guardrail.__all__:
        assert getattr(guardrail, name) is not None


@pytest.mark.parametrize("name", sorted(guardrail._MODULE_OF))
def test_lazy_names_are_the_defining_modules_objects(name):
    """A name loaded on first use is the very object its module defines."""
    module = importlib.import_module(guardrail._MODULE_OF[name])
    assert getattr(guardrail, name) is getattr(module, name)


def test_star_import_and_dir_list_every_public_name():
    """``from guardrail import *`` binds every name in __all__, and ``dir()`` lists them."""
    namespace: dict[str, object] = {}
    exec("from guardrail import *", namespace)
    assert set(guardrail.__all__) <= set(namespace)
    assert set(guardrail.__all__) <= set(dir(guardrail))


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Gaurd'"):
        guardrail.Gaurd  # noqa: B018


def test_type_checking_imports_match_the_lazy_table():
    """Type checkers see the same (module, name) pairs that ``__getattr__`` loads."""
    tree = ast.parse(inspect.getsource(guardrail))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    typed = {
        (node.module, alias.name)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == {(module, name) for name, module in guardrail._MODULE_OF.items()}
