"""Judge replies longer than the parse bound are cut before parsing, and the cut is recorded;
a long reply without a label is still NOT SURE and unusable (fail closed)."""

from __future__ import annotations

import json

from guardrail.models import Label
from guardrail.scoring.parsing import (
    MAX_REPLY_CHARS,
    parse_mutations,
    parse_numbered_verdicts,
    parse_statements,
    parse_verdict,
)


def test_a_long_verdict_reply_keeps_its_label_and_notes_the_cut() -> None:
    """A 200k reply that starts with YES is YES, with cause 'truncated'."""
    label, reason, found = parse_verdict("YES. The passage says so. " + "x" * 200_000)
    assert label is Label.YES and reason.startswith("The passage says so.")
    assert found is not None and found.causes == ("truncated",) and not found.unusable
    assert f"parsed the first {MAX_REPLY_CHARS}" in found.note


def test_a_long_reply_without_a_label_is_unusable() -> None:
    """200k characters of filler give NOT SURE and an unusable reply, never a verdict."""
    label, _, found = parse_verdict("filler " * 30_000)
    assert label is Label.NOT_SURE
    assert found is not None and found.unusable and "truncated" in found.causes


def test_a_label_past_the_bound_is_not_read() -> None:
    """Text past the bound is not parsed: a label there does not count."""
    label, _, found = parse_verdict("." * MAX_REPLY_CHARS + " YES")
    assert label is Label.NOT_SURE and found is not None and found.unusable


def test_list_and_batch_replies_note_the_cut() -> None:
    """Statements, mutations and numbered verdicts record the cut as well."""
    items, found = parse_statements(json.dumps(["A is B."]) + " more" * 25_000)
    assert items == ["A is B."] and found is not None and "truncated" in found.causes
    pairs, found = parse_mutations(
        json.dumps({"1": {"synonyms": ["A is B."], "antonyms": []}}) + " more" * 25_000, 1
    )
    assert pairs == [(["A is B."], [])] and found is not None and "truncated" in found.causes
    verdicts, found = parse_numbered_verdicts("1. YES. fine\n" + " more" * 25_000, 1)
    assert verdicts == [(Label.YES, "fine", True)]
    assert found is not None and found.causes == ("truncated",)
