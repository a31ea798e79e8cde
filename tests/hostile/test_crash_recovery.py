"""A process killed between escalating a turn and auditing it loses neither side."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from guardrail.audit import verify_log
from guardrail.audit.recover import recorded_turns
from guardrail.cli import main
from guardrail.queues import SQLiteQueue

ROOT = Path(__file__).resolve().parents[2]

#: One escalated turn in a child process that SIGKILLs itself the moment the guard starts
#: writing the turn's audit record: after the case reached the queue, before the record.
CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from guardrail.audit.log import AuditLog
    from guardrail.guard import Guard

    def die(self, record):
        if record.kind == "turn":
            os.kill(os.getpid(), signal.SIGKILL)
        return AuditLog.append(self, record)

    AuditLog.aappend = lambda self, record: _async(die(self, record))

    async def _async(value):
        return value

    guard = Guard.from_yaml(sys.argv[1], audit_log=sys.argv[2], review_db=sys.argv[3])
    guard.check(
        "Can pregnant women take ibuprofen?",
        "Yes, ibuprofen is safe throughout pregnancy.",
        ["Ibuprofen is contraindicated in the third trimester of pregnancy."],
    )
    """
)


def test_a_case_orphaned_by_a_kill_gets_its_turn_record(tmp_path: Path, capsys):
    audit, db = tmp_path / "audit.jsonl", tmp_path / "review.sqlite3"
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT / "policies" / "default.yaml"), str(audit), str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    (case,) = SQLiteQueue(db).list()
    assert case.case_id not in recorded_turns(audit)  # the gap the kill left

    assert main(["audit", "recover", str(audit), "--db", str(db)]) == 0
    assert capsys.readouterr().out.strip() == f"recovered 1 turn record(s): {case.case_id}"
    assert case.case_id in recorded_turns(audit)
    record = json.loads(audit.read_text().splitlines()[-1])
    assert record["kind"] == "turn" and record["event_name"] == "turn_recovered"
    assert record["decision"]["action"] == "escalate" and record["question"] == case.case.question
    assert verify_log(audit).ok

    assert main(["audit", "recover", str(audit), "--db", str(db)]) == 0  # idempotent
    assert capsys.readouterr().out.strip() == "recovered 0 turn record(s)"
