"""A generated audit log and review queue, written once per module through the real writers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from guardrail.audit import AuditLog
from guardrail.policy import load_policy
from guardrail.queues import ReviewQueue
from guardrail.report import HistoryTruth, write_history

POLICY = Path(__file__).resolve().parents[2] / "policies" / "default.yaml"


@dataclass
class History:
    audit: Path
    db: Path
    truth: HistoryTruth


def make_history(folder: Path, turns: int = 300, seed: int = 3, **kw: object) -> History:
    """Write ``turns`` generated turns (and their escalations) under ``folder``."""
    audit, db = folder / "audit.jsonl", folder / "review.sqlite3"
    truth = write_history(
        AuditLog(audit, fsync=False),
        load_policy(POLICY),
        turns=turns,
        queue=ReviewQueue(db),
        seed=seed,
        **kw,  # type: ignore[arg-type]
    )
    return History(audit, db, truth)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    return make_history(tmp_path_factory.mktemp("history"))
