"""`guardrail check`: the vignette end to end on the offline judge, JSON shape, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from guardrail.cli import main

ROOT = Path(__file__).resolve().parents[2]
Q = "Can pregnant women take ibuprofen for back pain?"
A = "Yes, ibuprofen is safe throughout pregnancy."
CTX = (
    "Ibuprofen is contraindicated in the third trimester of pregnancy. Paracetamol is "
    "generally considered the first choice for pain relief during pregnancy."
)


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["check", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_vignette_is_flagged_and_localized(capsys):
    """The paper's ibuprofen answer scores >= 0.5 and 'safe throughout pregnancy' is flagged."""
    data = run_json(capsys, "-q", Q, "-a", A, "-c", CTX)
    assert data["score"] >= 0.5 and data["flagged"] is True
    flagged = [A[s:e] for f in data["factoids"] if f["score"] >= 0.5 for s, e in f["spans"]]
    assert any("safe throughout pregnancy" in text for text in flagged)
    assert {"text", "score", "spans"} <= data["factoids"][0].keys()
    assert data["usage"]["judge_calls"] == 1 + 2 * len(data["factoids"]) * 3


def test_restated_context_scores_low(capsys):
    """An answer that restates the context scores below 0.3."""
    answer = "Ibuprofen is contraindicated in the third trimester of pregnancy."
    data = run_json(capsys, "-q", Q, "-a", answer, "-c", CTX)
    assert data["score"] < 0.3 and data["flagged"] is False


def test_text_arguments_read_files(tmp_path, capsys):
    """@path reads an argument from a file; @@ escapes a literal @."""
    (tmp_path / "ctx.txt").write_text(CTX, encoding="utf-8")
    (tmp_path / "a.txt").write_text(A, encoding="utf-8")
    data = run_json(
        capsys, "-q", Q, "-a", f"@{tmp_path / 'a.txt'}", "-c", f"@{tmp_path / 'ctx.txt'}"
    )
    assert data["flagged"] is True
    data = run_json(capsys, "-a", "@@handle is a user name.", "-c", "@@handle is a user name.")
    assert data["factoids"][0]["text"].startswith("@handle")


def test_human_output_shows_score_factoids_and_answer(capsys):
    """Human output: the response score, each factoid with verdicts, the answer."""
    assert main(["check", "-q", Q, "-a", A, "-c", CTX]) == 0
    out = capsys.readouterr().out
    assert "Response score 1.00" in out and "FLAGGED" in out
    assert "Ibuprofen is safe" in out and "NO NO | YES YES" in out
    assert "[[Yes]], ibuprofen is [[safe throughout pregnancy]]." in out  # narrowed to the claim


def test_policy_adds_topics_decision_and_audit_id(tmp_path, capsys):
    """--policy and --audit-log: topics, the decision with its threshold, and the audit id."""
    log = tmp_path / "audit.jsonl"
    data = run_json(
        capsys, "-q", Q, "-a", A, "-c", CTX,
        "--policy", str(ROOT / "policies" / "default.yaml"),
        "--audit-log", str(log), "--review-db", str(tmp_path / "review.sqlite3"),
    )  # fmt: skip
    assert data["topics"][0]["label"] == "pregnancy"
    assert data["decision"]["threshold"] == 0.3 and data["decision"]["action"] == "escalate"
    assert json.loads(log.read_text().splitlines()[0])["audit_id"] == data["audit_id"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-a", "@/no/such/file.txt"], "cannot read"),
        (["-a", "x", "--judge", "gpt-5"], "unknown judge spec"),
        (["-a", "x", "--k", "0"], "--k"),
        (["-a", "x", "--threshold", "2"], "threshold"),
        (["-a", "x", "--audit-log", "a.jsonl"], "needs --policy"),
        (["-a", "x", "--policy", "/no/such/policy.yaml"], "policy.yaml"),
        (["-q", "x"], "required"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message, capsys):
    """Bad input: exit 2, one line on stderr naming the problem, no traceback."""
    with pytest.raises(SystemExit) if "-a" not in args else _no_raise():
        code = main(["check", *args])
        assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2


class _no_raise:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def test_installed_command_runs_as_a_subprocess():
    """`python -m guardrail check` works as a real process with exit code 0."""
    proc = subprocess.run(
        [sys.executable, "-m", "guardrail", "check", "-a", A, "-c", CTX, "--json"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["flagged"] is True
