"""The examples the documentation tells users to run keep working (offline, as subprocesses)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from guardrail.audit import verify_log
from guardrail.queues import SQLiteQueue

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path) -> str:
    proc = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, cwd=cwd,
        env={"COLUMNS": "120", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_demo_shows_every_decision_and_writes_an_intact_audit_log(tmp_path):
    """examples/demo.py passes, highlights, regenerates, abstains and escalates, and audits."""
    out = run(str(ROOT / "examples" / "demo.py"), "--out", str(tmp_path / "demo"), cwd=tmp_path)
    for word in ("decision pass", "decision highlight", "regenerate", "abstain", "escalate"):
        assert word in out
    assert "[[" in out  # flagged spans are marked without colour too
    assert "(keyword in passage)" in out  # the student-visa question's asylum tag says why
    report = verify_log(tmp_path / "demo" / "audit.jsonl")
    assert report.ok and report.records == 7


def test_demo_run_twice_gives_the_same_counts(tmp_path):
    """A second run starts afresh (and says so): 7 records and 3 cases, not 14 and 6."""
    for _ in range(2):
        out = run(str(ROOT / "examples" / "demo.py"), "--out", "demo", cwd=tmp_path)
    assert "starting afresh" in out
    assert verify_log(tmp_path / "demo" / "audit.jsonl").records == 7
    assert len(SQLiteQueue(tmp_path / "demo" / "review.sqlite3").list()) == 3


def test_wrap_example_runs_and_regenerates(tmp_path):
    """examples/wrap_chatbot.py: the library answer passes, the ibuprofen one is regenerated."""
    out = run(str(ROOT / "examples" / "wrap_chatbot.py"), cwd=tmp_path)
    assert "decision: pass (topic general" in out
    assert "decision: regenerate (topic pregnancy" in out
    assert "contraindicated in the third trimester" in out
