"""Locating a factoid verbatim in the answer: the fast path for plain ASCII text must find the
same first match as the whitespace-tolerant, case-insensitive pattern it replaces."""

from __future__ import annotations

import re
import sys

from hypothesis import example, given, settings
from hypothesis import strategies as st

from guardrail.scoring.align import _ASCII_CASE_TWINS, _exact

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


_TWINS = ["\u017f", "\u212a", "\u0130", "\u0131"]  # "ſ", Kelvin sign, "İ", "ı": match ASCII
_ODD = [" ", "  ", "\n", "\t", "\u00a0", "\u2003", " \n ", "\x1c"]


@settings(max_examples=800, deadline=None)
@given(
    st.lists(st.sampled_from([*WORDS, "Kiss", "SKI", "is", "é", "naïve"]), min_size=1, max_size=4),
    st.lists(
        st.sampled_from([*WORDS, *_ODD, *_TWINS, "é", "É", "naïve", "kiss", "Ski", "’"]),
        max_size=14,
    ),
)
@example(["Kiss"], ["\u212aI\u017f\u017f"])
@example(["capital", "of"], ["the", "\u00a0", "CAPITAL", "\n\t", "of"])
@example(["is", "the"], ["naïve", " ", "İs", " ", "is", "\u2003", "THE"])
def test_whitespace_and_unicode_answers_match_the_pattern(
    factoid: list[str], answer: list[str]
) -> None:
    text = "".join(
        w if w in _ODD or i == 0 or answer[i - 1] in _ODD else " " + w for i, w in enumerate(answer)
    )
    statement = " ".join(factoid) + "."
    assert _exact(statement, text) == _by_pattern(statement, text), (statement, text)


def test_the_case_twins_are_every_non_ascii_character_matching_ascii() -> None:
    ascii_class = re.compile(r"[\x00-\x7f]", re.IGNORECASE)
    found = [chr(c) for c in range(0x80, sys.maxunicode + 1) if ascii_class.fullmatch(chr(c))]
    assert sorted(found) == sorted(_TWINS)
    assert all(_ASCII_CASE_TWINS.fullmatch(c) for c in found)
