"""``guardrail rescore`` on an audit log written by a real :class:`Guard` (offline judge),
locally and on a local Ray instance, and on a chat log; resume after an interruption."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from guardrail.actions.escalate import Escalator
from guardrail.audit import AuditLog
from guardrail.cli import main
from guardrail.guard import Guard
from guardrail.policy import load_policy
from guardrail.queues import SQLiteQueue

DATA = Path(__file__).resolve().parents[1] / "data"
POLICY = DATA / "policy_two_topics.yaml"
TURNS = [json.loads(line) for line in (DATA / "eval_tiny.jsonl").read_text().splitlines() if line]


def passages(row: dict) -> list[str]:
    return [p.strip() for p in row["context"].split("\n\n") if p.strip()]


def guarded_log(tmp_path: Path, redaction: str = "none") -> tuple[Path, Path]:
    """An audit log of the tiny set's turns, written by a Guard, and the contexts file a
    deployment would keep beside it (the audit log itself never records contexts)."""
    log = tmp_path / f"audit-{redaction}.jsonl"
    contexts = tmp_path / f"contexts-{redaction}.jsonl"
    guard = Guard(
        load_policy(POLICY),
        escalator=Escalator(default=SQLiteQueue(tmp_path / "review.sqlite3")),
        audit=AuditLog(log, redaction=redaction),  # type: ignore[arg-type]
        redaction=redaction,  # type: ignore[arg-type]
    )
    with guard, contexts.open("w") as fh:
        for row in TURNS:
            result = guard.check(row["question"], row["answer"], passages(row))
            entry = {"id": result.audit_id, "contexts": passages(row)}
            if redaction == "hash":
                entry |= {"question": row["question"], "answer": row["answer"]}
            fh.write(json.dumps(entry) + "\n")
    return log, contexts


def laxer_policy(tmp_path: Path) -> Path:
    data = yaml.safe_load(POLICY.read_text())
    for topic in data["topics"]:
        topic["threshold"] = 0.9
    path = tmp_path / "lax.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def rescore(log: Path, policy: Path, out: Path, *extra: str) -> tuple[list[dict], dict]:
    code = main(
        ["rescore", str(log), "--policy", str(policy), "--out", str(out), "--no-progress", *extra]
    )
    assert code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[-1]["kind"] == "summary"
    return lines[:-1], lines[-1]


def test_same_policy_reproduces_every_logged_decision(tmp_path):
    log, contexts = guarded_log(tmp_path)
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    logged = [r for r in logged if r["kind"] == "turn"]
    turns, summary = rescore(log, POLICY, tmp_path / "new.jsonl", "--contexts", str(contexts))
    assert [t["id"] for t in turns] == [r["audit_id"] for r in logged]
    assert summary["rescored"] == summary["compared"] == len(TURNS)
    assert summary["decisions_changed"] == 0
    assert summary["chain"] == {"ok": True, "first_bad_line": None}
    for turn, record in zip(turns, logged, strict=True):
        assert turn["new"]["score"] == record["score"]
        assert turn["new"]["action"] == turn["old"]["action"] == record["decision"]["action"]
    assert not (tmp_path / "new.jsonl.progress").exists()  # complete: nothing to resume


def test_a_laxer_policy_passes_the_flagged_turns_it_scores_below_its_threshold(tmp_path):
    log, contexts = guarded_log(tmp_path)
    turns, summary = rescore(
        log, laxer_policy(tmp_path), tmp_path / "new.jsonl", "--contexts", str(contexts)
    )
    flagged = [t for t in turns if t["old"]["action"] != "pass"]
    assert flagged, "the 0.3/0.5 policy flagged some of the tiny set's answers"
    passed = [t for t in flagged if t["new"]["score"] < 0.9]
    kept = [t for t in flagged if t["new"]["score"] >= 0.9]  # clear contradictions score 1.0
    assert passed, "some flagged answers score below the laxer threshold"
    assert all(t["new"]["action"] == "pass" and t["changed"] for t in passed)
    assert all(t["new"]["action"] != "pass" for t in kept)
    assert summary["decisions_changed"] == len(passed) == sum(1 for t in turns if t["changed"])
    assert summary["changes"] == {"highlight -> pass": len(passed)}
    assert summary["flagged_now"] == len(kept)


def test_audit_log_without_contexts_reports_why_nothing_was_rescored(tmp_path):
    log, _ = guarded_log(tmp_path)
    turns, summary = rescore(log, POLICY, tmp_path / "new.jsonl")
    assert summary["rescored"] == 0 and summary["not_rescorable"] == len(TURNS)
    (reason,) = summary["not_rescorable_reasons"]
    assert "does not record retrieved contexts" in reason
    assert all(t["new"] is None and t["old"]["action"] for t in turns)


def test_hashed_audit_log_needs_matching_texts(tmp_path):
    log, contexts = guarded_log(tmp_path, "hash")
    _, summary = rescore(log, POLICY, tmp_path / "new.jsonl", "--contexts", str(contexts))
    assert summary["rescored"] == len(TURNS) and summary["decisions_changed"] == 0
    # a contexts file with the contexts only, or with a text that does not hash to the log's
    entries = [json.loads(line) for line in contexts.read_text().splitlines()]
    bare = tmp_path / "bare.jsonl"
    bare.write_text(
        "".join(json.dumps({"id": e["id"], "contexts": e["contexts"]}) + "\n" for e in entries)
    )
    _, summary = rescore(log, POLICY, tmp_path / "bare-out.jsonl", "--contexts", str(bare))
    assert summary["rescored"] == 0
    assert any("sha256 digest" in r for r in summary["not_rescorable_reasons"])
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(
        "".join(json.dumps({**e, "answer": e["answer"] + "!"}) + "\n" for e in entries)
    )
    _, summary = rescore(log, POLICY, tmp_path / "wrong-out.jsonl", "--contexts", str(wrong))
    assert summary["rescored"] == 0
    assert any("does not match" in r for r in summary["not_rescorable_reasons"])


def chat_log(tmp_path: Path) -> Path:
    path = tmp_path / "chat.jsonl"
    with path.open("w") as fh:
        for copy in range(4):
            for i, row in enumerate(TURNS):
                turn = {"question": row["question"], "answer": row["answer"]}
                turn["contexts"] = passages(row)
                if i % 2:
                    turn |= {"id": f"t{copy}-{i}", "topic": "medical", "decision": "pass"}
                fh.write(json.dumps(turn) + "\n")
    return path


def test_chat_log_locally_and_on_ray_give_the_same_file(ray_cluster, tmp_path):
    log = chat_log(tmp_path)
    local_turns, local_summary = rescore(log, laxer_policy(tmp_path), tmp_path / "a.jsonl")
    rescore(log, laxer_policy(tmp_path), tmp_path / "b.jsonl", "--ray", "auto", "--jobs", "2")
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    assert local_summary["turns"] == 24 and local_summary["log_kind"] == "chat"
    assert local_turns[0]["id"] == "line-1" and local_turns[1]["id"] == "t0-1"
    assert {t["new"]["topic"] for t in local_turns[1::2]} == {"medical"}
    assert local_summary["compared"] == 12  # only turns with an old decision are compared


def test_rescore_on_ray_resumes_from_its_progress_file(ray_cluster, tmp_path, capsys):
    log, contexts = guarded_log(tmp_path)
    progress = tmp_path / "progress.jsonl"
    args = ["--contexts", str(contexts), "--progress", str(progress), "--ray", "auto"]
    _, first = rescore(log, POLICY, tmp_path / "one.jsonl", *args)
    lines = progress.read_text().splitlines(keepends=True)
    assert len(lines) == 1 + len(TURNS)  # an explicit --progress file is kept
    progress.write_text("".join(lines[:3]) + lines[3][:20])  # killed while writing the 3rd
    capsys.readouterr()
    _, second = rescore(log, POLICY, tmp_path / "two.jsonl", *args)
    assert "resumed 2 turns" in capsys.readouterr().out
    assert (tmp_path / "one.jsonl").read_text() == (tmp_path / "two.jsonl").read_text()
    assert second == first


def test_progress_file_of_another_policy_is_refused(tmp_path, capsys):
    log = chat_log(tmp_path)
    progress = tmp_path / "p.jsonl"
    rescore(log, POLICY, tmp_path / "a.jsonl", "--progress", str(progress))
    code = main(
        [
            "rescore", str(log), "--policy", str(laxer_policy(tmp_path)),
            "--out", str(tmp_path / "b.jsonl"), "--progress", str(progress),
        ]
    )  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "use another --resume-file" in err
