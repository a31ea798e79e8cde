"""Default file names, shared by the guard, the reviewer CLI and the server so they meet.

All are relative to the working directory unless a path is given explicitly.
"""

DEFAULT_REVIEW_DB = "guardrail-review.sqlite3"
DEFAULT_AUDIT_LOG = "guardrail-audit.jsonl"
DEFAULT_FALLBACK = "guardrail-escalations.jsonl"
