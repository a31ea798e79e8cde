"""Sentence rewrites: citations, passage labels, capitals and final periods."""

from __future__ import annotations

from guardrail.text.edits import (
    capitalize_first,
    ensure_period,
    strip_citations,
    strip_passage_label,
)


def test_ensure_period_keeps_existing_terminal_punctuation():
    """A sentence gets exactly one terminal mark, CJK ones included."""
    assert ensure_period("It rains") == "It rains."
    assert ensure_period("It rains!") == "It rains!"
    assert ensure_period("東京です。") == "東京です。"
    assert ensure_period("It rains,") == "It rains."


def test_citation_markers_are_stripped():
    """ "(Passages 1 & 2)", "[3]" and "as described in passage 2" are pointers, not claims."""
    assert strip_citations("A joint disorder (Passages 1 & 2).") == "A joint disorder."
    assert strip_citations("Cut it as described in passage 3.") == "Cut it."
    assert strip_citations("X is Y [2].") == "X is Y."
    assert strip_citations("Paris is in France.") == "Paris is in France."


def test_labels_and_capitals():
    assert strip_passage_label("Passage 2: The dose is 4 g.") == "The dose is 4 g."
    assert strip_passage_label("The passage 2: stays.") == "The passage 2: stays."
    assert capitalize_first('"the dose') == '"The dose'
    assert capitalize_first("1 dose") == "1 dose"
