"""Tokens, sentence spans, stems and numbers of the offline judge's text layer."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from guardrail.judges.local.text import (
    ensure_period,
    parse_number,
    split_sentences,
    stem,
    tokenize,
)


def test_tokens_keep_offsets():
    """Every token's offsets slice exactly its text out of the input."""
    text = "Ibuprofen isn't safe; 1,000 mg (3.5%) is too much — café."
    for tok in tokenize(text):
        assert text[tok.start : tok.end] == tok.text
    assert [t.text for t in tokenize("isn't 1,000 3.5%")] == ["isn't", "1,000", "3.5%"]


def test_sentences_skip_abbreviations_and_split_glued_sentences():
    """Dr./e.g./initials do not end a sentence; "joints.Arthritis" does."""
    text = (
        "Dr. Smith met J. K. Rowling, e.g. in 2001. It rained!  "
        "Arthritis hurts joints.Arthritis is common."
    )
    spans = split_sentences(text)
    got = [text[s:e] for s, e in spans]
    assert got == [
        "Dr. Smith met J. K. Rowling, e.g. in 2001.",
        "It rained!",
        "Arthritis hurts joints.",
        "Arthritis is common.",
    ]


def test_sentences_split_list_items_and_lines():
    """Numbered list items on their own lines become separate sentences."""
    text = "The functions are:\n\n1. To allow airflow.\n2. To ventilate the lungs"
    got = [text[s:e] for s, e in split_sentences(text)]
    assert got == ["The functions are:", "1. To allow airflow.", "2. To ventilate the lungs"]


@given(st.text(max_size=300))
def test_sentence_spans_are_trimmed_ordered_and_in_bounds(text):
    """For any text, spans are in order, inside the text, non-empty and trimmed, and every
    letter or digit of the text lies in one of them (so an empty result only for no words)."""
    last = 0
    spans = split_sentences(text)
    for s, e in spans:
        assert last <= s < e <= len(text)
        assert text[s:e] == text[s:e].strip()
        last = e
    covered = {i for s, e in spans for i in range(s, e)}
    assert all(i in covered for i, ch in enumerate(text) if ch.isalnum())


def test_stem_conflates_inflections():
    """Inflected forms share a stem, so "discovered" matches "discovers"."""
    assert stem("discovered") == stem("discovers") == stem("discover")
    assert stem("increases") == stem("increase") == stem("increased")
    assert stem("pregnancy") == "pregnancy"
    assert stem("is") == "is"


def test_parse_number_handles_separators_and_percent():
    """Thousands separators and percent signs do not change the value."""
    assert parse_number("1,000") == 1000.0
    assert parse_number("3.5%") == 3.5
    assert parse_number("1867") == 1867.0
    assert parse_number("abc") is None


def test_ensure_period_keeps_existing_terminal_punctuation():
    """A sentence gets exactly one terminal mark, CJK ones included."""
    assert ensure_period("It rains") == "It rains."
    assert ensure_period("It rains!") == "It rains!"
    assert ensure_period("東京です。") == "東京です。"
    assert ensure_period("It rains,") == "It rains."


def test_citation_markers_are_stripped():
    """ "(Passages 1 & 2)", "[3]" and "as described in passage 2" are pointers, not claims."""
    from guardrail.judges.local.text import strip_citations

    assert strip_citations("A joint disorder (Passages 1 & 2).") == "A joint disorder."
    assert strip_citations("Cut it as described in passage 3.") == "Cut it."
    assert strip_citations("X is Y [2].") == "X is Y."
    assert strip_citations("Paris is in France.") == "Paris is in France."
