"""Default file names (and derived paths), shared by the guard, the reviewer CLI and the server
so they meet.

All are relative to the working directory unless a path is given explicitly.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_REVIEW_DB = "guardrail-review.sqlite3"
DEFAULT_AUDIT_LOG = "guardrail-audit.jsonl"
DEFAULT_FALLBACK = "guardrail-escalations.jsonl"


def fallback_beside(review_db: str | Path) -> Path:
    """The escalation fallback log the CLIs keep next to a review database."""
    return Path(review_db).with_suffix(".fallback.jsonl")
