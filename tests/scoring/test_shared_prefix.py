"""A prompt's shared prefix (what every call of a stage repeats): the remembered length is the
one a fresh probe render gives, whatever varies between calls."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from guardrail.scoring.templates import _VARYING, PromptSet, marker_scope

_SETS = [PromptSet.builtin("metarag_v1"), PromptSet.builtin("metarag_v1").fenced()]
_TEXT = st.sampled_from(["", "Paris is the capital.", "[BEGIN DATA: x]", _VARYING, "Zürich", " "])


def _fresh(prompts: PromptSet, task: str, varying: str, values: dict[str, str]) -> int:
    probe = prompts.render(task, **{**values, varying: _VARYING})
    return max(probe.find(_VARYING), 0)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(_SETS),
    st.lists(st.tuples(_TEXT, _TEXT), min_size=1, max_size=6),
    st.booleans(),
)
def test_the_remembered_length_is_the_probes(
    prompts: PromptSet, calls: list[tuple[str, str]], one_scope: bool
) -> None:
    with marker_scope("0a1b2c3d" if one_scope else None):
        for context, statement in calls:
            values = {"context": context, "statement": statement}
            prompt, shared = prompts.render_shared("verify", "statement", **values)
            assert prompt == prompts.render("verify", **values)
            assert shared == _fresh(prompts, "verify", "statement", values)


def test_a_context_change_changes_the_length() -> None:
    prompts = PromptSet.builtin("metarag_v1").fenced()
    with marker_scope():
        _, short = prompts.render_shared("verify", "statement", context="a", statement="s")
        _, long = prompts.render_shared("verify", "statement", context="a b c", statement="s")
        _, again = prompts.render_shared("verify", "statement", context="a", statement="t")
    assert long == short + 4 and again == short
