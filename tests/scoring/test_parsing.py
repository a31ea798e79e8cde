"""Judge-output parsers: formats LLMs really produce, and never a crash (property-based)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guardrail.models import Label
from guardrail.scoring.failures import ParseFailure
from guardrail.scoring.parsing import is_placeholder, parse_statements, parse_verdict


@pytest.mark.parametrize(
    ("text", "items", "failed"),
    [
        ('["A is B.", "C is D."]', ["A is B.", "C is D."], False),
        ('Here you go:\n```json\n["A is B."]\n```', ["A is B."], False),
        ('```\n["A is B.",\n"C', ["A is B."], True),
        ('["A is B.", "C is', ["A is B."], True),
        (
            "1. A is B.\n2) C is D.\n- E is F.\n• G is H.",
            ["A is B.", "C is D.", "E is F.", "G is H."],
            False,
        ),
        ("Synonym 1: A is B.\nGood Antonym: A is not B.", ["A is B.", "A is not B."], False),
        ("", [], True),
        ("[]", [], False),
        ('[1, "x", null, {"a": 1}]', ["1", "x"], True),
    ],
)
def test_parse_statements_formats(text, items, failed):
    """JSON arrays, fences, truncated arrays and bulleted lines all parse."""
    got, failure = parse_statements(text)
    assert got == items
    assert (failure is not None) is failed


@pytest.mark.parametrize(
    ("text", "label", "reason", "failed"),
    [
        ("YES. The passage says so.", Label.YES, "The passage says so.", False),
        (
            "NO. The passage says Bob has never visited Japan",
            Label.NO,
            "The passage says Bob has never visited Japan",
            False,
        ),
        ("NOT SURE. Nothing about swimming.", Label.NOT_SURE, "Nothing about swimming.", False),
        ("Answer: no - contradicted", Label.NO, "contradicted", False),
        ("**YES**: supported", Label.YES, "supported", False),
        ("not_sure", Label.NOT_SURE, "", False),
        ("Based on the passage, the answer is NO.", Label.NO, "", True),
        ("The statement seems plausible.", Label.NOT_SURE, "The statement seems plausible.", True),
        ("", Label.NOT_SURE, "", True),
        ("NOTE: nothing", Label.NOT_SURE, "NOTE: nothing", True),
    ],
)
def test_parse_verdict_formats(text, label, reason, failed):
    """Labels at the start, in markdown, lower case, or buried in prose."""
    got_label, got_reason, failure = parse_verdict(text)
    assert got_label is label
    assert got_reason == reason
    assert (failure is not None) is failed


@given(st.text())
def test_parse_statements_never_raises(text):
    """Any text parses to a list of non-empty strings."""
    items, failure = parse_statements(text)
    assert all(isinstance(i, str) and i for i in items)
    assert failure is None or (isinstance(failure, ParseFailure) and failure.causes)
    # no item means a failure that says the reply could not be used, or a valid "[]"
    if not items and failure is not None and "placeholder" not in failure.causes:
        assert failure.unusable or failure.causes == ("echoed_fence",)


@settings(suppress_health_check=[HealthCheck.too_slow])  # regex generation on a busy machine
@given(
    st.lists(
        st.from_regex(r"[A-Za-z](?:[A-Za-z0-9 ,']{0,40}[A-Za-z0-9])?", fullmatch=True).filter(
            lambda s: not is_placeholder(s)
        )
    )
)
def test_json_arrays_round_trip(items):
    """Every JSON array of plain sentences (not template placeholders such as "statement 1")
    is recovered item for item, without a failure."""
    got, failure = parse_statements(json.dumps(items))
    assert failure is None
    assert got == [i.strip() for i in items]


@given(st.text())
def test_parse_verdict_always_returns_a_label(text):
    """Any text yields one of the three labels and a one-line reason."""
    label, reason, _ = parse_verdict(text)
    assert label in (Label.YES, Label.NO, Label.NOT_SURE)
    assert "\n" not in reason and len(reason) <= 300


@given(st.sampled_from(["YES", "NO", "NOT SURE"]), st.text().filter(lambda s: "\n" not in s))
def test_canonical_verdicts_parse_exactly(word, reason):
    """'LABEL. reason' always parses to LABEL without a failure."""
    label, _, failure = parse_verdict(f"{word}. {reason}")
    assert label.value == word and failure is None
