"""What a new user meets first: `--version`, a bare `guardrail`, `check` as a CI gate, a clear
error for a missing API key, and `check --policy` keeping the audit log beside the queue."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from guardrail import __version__
from guardrail.audit import verify_log
from guardrail.audit.recover import recover_turns
from guardrail.audit.trail import open_audit_log
from guardrail.cli import main
from guardrail.paths import DEFAULT_AUDIT_LOG, DEFAULT_REVIEW_DB
from guardrail.queues import SQLiteQueue

ROOT = Path(__file__).resolve().parents[2]
POLICY = str(ROOT / "policies" / "default.yaml")
Q = "Can pregnant women take ibuprofen for back pain?"
BAD = "Yes, ibuprofen is safe throughout pregnancy."
GOOD = "Ibuprofen is contraindicated in the third trimester of pregnancy."
CTX = GOOD + " Paracetamol is generally considered the first choice for pain relief."


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"guardrail {__version__}"


def test_bare_guardrail_prints_usage_and_every_command(capsys):
    assert main([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: guardrail")
    for command in ("check", "review", "serve", "eval", "calibrate", "probe"):
        assert f"    {command} " in out


def test_fail_on_flag_gates_a_flagged_answer(capsys):
    base = ["check", "-q", Q, "-c", CTX, "--fail-on-flag"]
    assert main([*base, "-a", BAD]) == 1
    assert "FLAGGED" in capsys.readouterr().out
    assert main([*base, "-a", GOOD]) == 0
    assert main(["check", "-q", Q, "-c", CTX, "-a", BAD]) == 0  # without the flag: a report


def test_fail_on_flag_with_a_policy(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = ["check", "--policy", POLICY, "-q", Q, "-c", CTX, "--fail-on-flag"]
    assert main([*base, "-a", BAD]) == 1
    assert main([*base, "-a", GOOD]) == 0


@pytest.mark.parametrize(
    ("spec", "variable"),
    [
        ("openai:gpt-4.1-mini", "OPENAI_API_KEY"),
        ("anthropic:claude-haiku-4-5", "ANTHROPIC_API_KEY"),
    ],
)
def test_a_missing_api_key_is_an_immediate_error_naming_the_variable(
    capsys, monkeypatch, spec, variable
):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    assert main(["check", "--judge", spec, "-a", BAD, "-c", CTX]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("guardrail: error: ") and variable in err
    assert "after retries" not in err and "\n" not in err


def test_check_with_a_policy_audits_every_turn_it_enqueues(capsys, tmp_path, monkeypatch):
    """No --audit-log: the record goes to the default log beside the default queue, so a later
    `serve` or `audit recover` in the same folder finds nothing missing."""
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--policy", POLICY, "-q", Q, "-c", CTX, "-a", BAD, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert "escalate" in result["decision"]["actions"]
    (case,) = SQLiteQueue(tmp_path / DEFAULT_REVIEW_DB).list()
    assert case.case_id == result["audit_id"]
    report = verify_log(tmp_path / DEFAULT_AUDIT_LOG)
    assert report.ok and report.records == 1
    assert main(["audit", "recover", DEFAULT_AUDIT_LOG, "--db", DEFAULT_REVIEW_DB]) == 0
    assert capsys.readouterr().out.strip() == "recovered 0 turn record(s)"


def test_recovery_leaves_turns_recorded_in_another_log_alone(capsys, tmp_path, monkeypatch):
    """`check --audit-log mine.jsonl` with the default queue: the turn is in mine.jsonl, so the
    default log must not get a 'recovered' copy; a real gap in mine.jsonl is still recovered."""
    monkeypatch.chdir(tmp_path)
    args = ["check", "--policy", POLICY, "-q", Q, "-c", CTX, "-a", BAD]
    assert main([*args, "--audit-log", "mine.jsonl"]) == 0
    capsys.readouterr()
    queue = SQLiteQueue(tmp_path / DEFAULT_REVIEW_DB)
    (case,) = queue.list()
    assert case.case.audit_trail == str((tmp_path / "mine.jsonl").resolve())
    log = open_audit_log(tmp_path / DEFAULT_AUDIT_LOG)
    assert recover_turns(log, queue) == []  # recorded elsewhere: not missing here
    (tmp_path / "mine.jsonl").unlink()  # now the turn really has no record
    assert recover_turns(open_audit_log(tmp_path / "mine.jsonl"), queue) == [case.case_id]


def test_serve_help_shows_the_port_and_its_default():
    proc = subprocess.run(
        [sys.executable, "-m", "guardrail", "serve", "--help"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "COLUMNS": "100"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.strip().startswith("--port"))
    assert "default 8000" in line


def test_audit_verify_says_one_record(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    main(["check", "--policy", POLICY, "-q", Q, "-c", CTX, "-a", GOOD])
    capsys.readouterr()
    assert main(["audit", "verify", DEFAULT_AUDIT_LOG]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "OK: 1 record, chain intact"


def test_scored_answer_is_always_the_text_the_spans_index(tmp_path):
    """`scored_answer` used to be '' unless a regeneration happened (and so in most API
    replies); it is now always the answer the report's spans index."""
    from guardrail import Guard

    with Guard.from_yaml(POLICY, audit_log=None, review_db=tmp_path / "q.sqlite3") as guard:
        result = guard.check(Q, BAD, [CTX])
    assert result.scored_answer == BAD == result.report_text
    assert result.model_dump(mode="json")["scored_answer"] == BAD
