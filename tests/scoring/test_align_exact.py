"""Locating a factoid verbatim in the answer: the fast path for plain ASCII text must find the
same first match as the whitespace-tolerant, case-insensitive pattern it replaces."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from guardrail.scoring.align import _exact

WORDS = ["Paris", "paris", "is", "the", "capital", "of", "France", "it", "opens", "at", "9", "."]


def _by_pattern(factoid: str, answer: str) -> tuple[int, int] | None:
    core = factoid.strip().rstrip(".!?;:").strip()
    if not core:
        return None
    pattern = r"\s+".join(re.escape(part) for part in core.split())
    m = re.search(pattern, answer, flags=re.IGNORECASE)
    return (m.start(), m.end()) if m else None


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
    st.lists(st.sampled_from([*WORDS, " ", "  ", "\n", "é"]), max_size=14),
)
@example(["capital", "of"], ["the", " ", "capital", "  ", "of", " ", "capital", " ", "of"])
@example(["Paris", "is"], ["é", "paris", " ", "IS"])
def test_the_fast_path_finds_what_the_pattern_finds(factoid: list[str], answer: list[str]) -> None:
    text = "".join(
        w if w in (" ", "  ", "\n") or i == 0 or answer[i - 1] in (" ", "  ", "\n") else " " + w
        for i, w in enumerate(answer)
    )
    statement = " ".join(factoid) + "."
    assert _exact(statement, text) == _by_pattern(statement, text), (statement, text)
