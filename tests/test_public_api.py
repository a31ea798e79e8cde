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
    "Relation", "RetryPolicy", "ScoreReport", "Scorer", "ScoringError",
    "ScriptedJudge", "TopicLabel", "Usage", "Variant", "Verdict", "__version__", "make_judge",
    "Guard", "Policy", "load_policy", "RT4Chart", "ReferenceMetric",
    "TopicClassifier", "Escalator", "AuditLog", "RT4ChartConfig", "build_scorer",
    "AuditTrail", "EscalationSink",
}  # fmt: skip


def test_all_is_pinned():
    """__all__ is exactly the documented set; changing it is a deliberate act."""
    assert set(guardrail.__all__) == EXPECTED


def test_every_exported_name_resolves():
    """Each name in __all__ is importable from the top level."""
    for name in guardrail.__all__:
        assert getattr(guardrail, name) is not None


@pytest.mark.parametrize("name", sorted(guardrail._MODULE_OF))
def test_each_name_is_the_object_of_the_module_that_declares_it(name):
    """Each public name is imported from the module that defines it (not one that re-exports
    it, nor one that lacks it), and the package hands out that very object."""
    module_name = guardrail._MODULE_OF[name]
    module = importlib.import_module(module_name)
    assert name in vars(module), f"{module_name} does not define {name}"
    value = getattr(module, name)
    if inspect.isclass(value) or inspect.isfunction(value):
        assert value.__module__ == module_name
    assert getattr(guardrail, name) is value


def test_no_name_is_listed_twice_and_all_is_read_from_the_table():
    listed = [name for names in guardrail._PUBLIC.values() for name in names]
    assert len(listed) == len(set(listed))
    assert sorted(guardrail.__all__) == sorted([*listed, "__version__"])


def test_extension_protocols_are_public_and_internals_are_not():
    assert {"Judge", "Scorer", "EscalationSink", "AuditTrail"} <= set(guardrail.__all__)
    assert not {"PolicyEngine", "PromptSet"} & set(guardrail.__all__)


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
