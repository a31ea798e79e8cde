"""The audit record keeps how scoring ended and the statements an answer was read as."""

from __future__ import annotations

from guardrail.audit.record import AuditRecord, ResolvedEntry, text_hash

STATEMENT = "Pregnant women can take ibuprofen."


def test_resolved_statements_are_redacted_like_factoids() -> None:
    """Under "hash" the statement becomes its sha256; under "drop" it is gone; spans and the
    rule stay (they say nothing of the text)."""
    record = AuditRecord(
        kind="turn",
        status="ok",
        resolved=[ResolvedEntry(text=STATEMENT, spans=[(0, 3)], rule="yes_no")],
    )
    hashed = record.redacted("hash").resolved[0]
    assert hashed.text == text_hash(STATEMENT) and hashed.spans == [(0, 3)]
    assert record.redacted("drop").resolved[0].text is None


def test_old_records_without_the_fields_still_load() -> None:
    """A record written before these fields existed validates, with no status and none read."""
    old = AuditRecord.model_validate({"kind": "turn", "score": 0.0})
    assert old.status is None and old.resolved == []
