"""Fixtures for the audit tests: a realistic guarded turn and a small written log."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from audit_factories import make_result

from guardrail.audit import AuditLog, AuditRecord
from guardrail.models import GuardResult


@pytest.fixture
def result() -> GuardResult:
    """One realistic guarded turn."""
    return make_result()


@pytest.fixture
def write_log(tmp_path: Path) -> Callable[[int], Path]:
    """Write ``n`` turn records (distinct questions) to a fresh log; return its path."""

    def write(n: int, name: str = "audit.jsonl") -> Path:
        path = tmp_path / name
        with AuditLog(path, fsync=False) as log:
            for i in range(n):
                res = make_result(question=f"question {i}?", audit_id=f"turn-{i:04d}")
                log.append(AuditRecord.from_result(res, policy_hash="p" * 64))
        return path

    return write
