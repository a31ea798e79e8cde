"""`guardrail check` on answers that lean on their question, under the shipped default policy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guardrail.cli import main

ROOT = Path(__file__).resolve().parents[2]
POLICY = str(ROOT / "policies" / "default.yaml")
Q = "Can pregnant women take ibuprofen?"
CTX = "Ibuprofen is contraindicated in the third trimester of pregnancy."


def check(tmp_path: Path, *args: str) -> list[str]:
    stores = ["--audit-log", str(tmp_path / "audit.jsonl"), "--review-db", str(tmp_path / "r.db")]
    return ["check", "--policy", POLICY, *stores, *args]


def test_yes_shows_the_statement_it_was_read_as(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "Yes." to the pregnancy question is checked as "Pregnant women can take ibuprofen.",
    shown under the report, and not passed."""
    assert main(check(tmp_path, "-q", Q, "-a", "Yes.", "-c", CTX)) == 0
    out = capsys.readouterr().out
    assert "'Yes' -> Pregnant women can take ibuprofen.  [yes_no]" in out
    decision = out[out.index("Decision") :]
    assert not decision.startswith("Decision pass")


def test_json_and_audit_record_carry_the_resolved_statements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--json`` and the audit record list the resolved statements with their spans."""
    assert main([*check(tmp_path, "-q", Q, "-a", "Yes.", "-c", CTX), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["resolved"] == [
        {"text": "Pregnant women can take ibuprofen.", "spans": [[0, 3]], "rule": "yes_no"}
    ]
    assert data["decision"]["action"] != "pass"
    lines = (tmp_path / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[-1])
    assert record["status"] == "ok"
    assert record["resolved"] == [
        {"text": "Pregnant women can take ibuprofen.", "spans": [[0, 3]], "rule": "yes_no"}
    ]


def test_a_refusal_passes_as_abstained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ "I don't know." on the strictest topic passes, recorded as ``abstained``."""
    args = check(tmp_path, "-q", Q, "-a", "I don't know.", "-c", CTX, "--json")
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "abstained" and data["decision"]["action"] == "pass"
    assert "abstained" in data["decision"]["reason"]


def test_nothing_to_verify_on_a_sensitive_topic_is_not_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An answer with no verifiable statement is ``unverifiable`` and goes to ``on_error``,
    which fails closed on the pregnancy topic."""
    args = check(tmp_path, "-q", Q, "-a", "Hello there!", "-c", CTX, "--json")
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "unverifiable"
    assert data["decision"]["action"] in ("abstain", "escalate")
    assert data["decision"]["score"] is None
