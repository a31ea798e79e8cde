"""The offline judge's prompt token count: the same as splitting the whole prompt, whatever
the shared prefix's length."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from guardrail.judges.local.judge import prompt_words

_PIECES = ["word", "context", " ", "  ", "\n", "\t", "\u00a0", "\u2003", "é", ".", "[BEGIN DATA]"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=20), st.integers(min_value=-2, max_value=80))
def test_counts_the_words_of_the_whole_prompt(pieces: list[str], shared: int) -> None:
    prompt = "".join(pieces)
    assert prompt_words(prompt, shared) == len(prompt.split())
    assert prompt_words(prompt, shared) == len(prompt.split())  # the remembered prefix again


def test_a_word_across_the_prefix_end_counts_once() -> None:
    assert prompt_words("one two three", 5) == 3  # "two" straddles the cut
    assert prompt_words("one two three", 4) == 3
