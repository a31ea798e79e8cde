"""A prompt's own instructions (its fenced data blocks removed): the fast pattern removes
exactly what the plain lazy pattern removes."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from guardrail.scoring.templates import PromptSet, instruction_text, marker_scope

#: The plain definition: a block's opening line, the shortest stretch, its closing line.
_LAZY = re.compile(
    r"\[BEGIN DATA(?: [0-9a-f]+)?: ([^\]]+)\].*?\[END DATA(?: [0-9a-f]+)?: \1\]", re.DOTALL
)
_PIECES = [
    "[BEGIN DATA: context]",
    "[END DATA: context]",
    "[BEGIN DATA 1a2b3c4d: statement]",
    "[END DATA 1a2b3c4d: statement]",
    "[END DATA 1a2b3c4d: context]",
    "[END DATA: statement]",
    "[BEGIN DATA: a[b]",
    "[END DATA: a[b]",
    "[END DATA",
    "[",
    "]",
    "[x]",
    "Answer YES or NO.",
    "\n",
    " ",
    "é",
]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=16))
@example(["[BEGIN DATA: context]", "[", "[END DATA: other]", "[END DATA: context]", "tail"])
def test_removes_what_the_lazy_pattern_removes(pieces: list[str]) -> None:
    prompt = "".join(pieces)
    assert instruction_text(prompt) == _LAZY.sub(" ", prompt)


def test_a_rendered_prompt_keeps_only_its_instructions() -> None:
    prompts = PromptSet.builtin("metarag_v1").fenced()
    with marker_scope():
        prompt = prompts.render(
            "verify", context="Quuxville [is] the capital.", statement="Zorblat [y]."
        )
    own = instruction_text(prompt)
    assert own == _LAZY.sub(" ", prompt)
    assert "Quuxville" not in own and "Zorblat" not in own
