"""The report's figures, checked against what the generator wrote and against a second,
independent reading of the log through the validated record model."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timezone

from guardrail.audit import AuditLog, AuditRecord
from guardrail.policy import load_policy
from guardrail.report import build_report, write_history
from tests.report.conftest import POLICY, History


def _records(history: History) -> list[AuditRecord]:
    return [
        AuditRecord.model_validate_json(line) for line in history.audit.read_bytes().splitlines()
    ]


def test_decisions_per_topic_match_what_was_written(history: History) -> None:
    """Every turn is counted once, under its decided topic and action."""
    audit = build_report(history.audit)["audit"]
    got = {name: t["actions"] for name, t in audit["topics"].items()}
    assert got == history.truth.decisions
    assert sum(t["turns"] for t in audit["topics"].values()) == history.truth.turns == 300
    assert audit["unreadable_lines"] == 0


def test_flag_rates_and_histograms_agree_with_the_records(history: History) -> None:
    """Flag rate = flagged / scored per topic; the histogram holds every scored turn."""
    audit = build_report(history.audit)["audit"]
    scored: Counter[str] = Counter()
    flagged: Counter[str] = Counter()
    for r in _records(history):
        if r.kind == "turn" and r.decision is not None and r.decision.score is not None:
            scored[r.decision.topic] += 1
            flagged[r.decision.topic] += r.decision.flagged
    for name, t in audit["topics"].items():
        assert t["scored"] == scored[name] == sum(t["score_histogram"])
        assert t["flag_rate"] == round(flagged[name] / scored[name], 4)
    assert audit["topics"]["healthcare"]["threshold"] == 0.3
    assert audit["topics"]["general"]["threshold"] == 0.5


def test_judge_failures_and_unusable_replies_are_counted_by_cause(history: History) -> None:
    """Failed calls and unusable replies add up to what the generator wrote."""
    judge = build_report(history.audit)["audit"]["judge"]
    assert judge["failed"] == history.truth.failed_calls
    assert sum(judge["failures_by_cause"].values()) == history.truth.failed_calls
    assert sum(judge["unusable_by_cause"].values()) == history.truth.unusable_calls
    assert history.truth.failed_calls > 0 and history.truth.unusable_calls > 0
    lat = judge["latency_s"]["local · verify"]
    assert lat["n"] > 0 and lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["max"]


def test_overturns_from_the_log_match_the_reviewers(history: History) -> None:
    """Resolution records are joined to their turns: approved ones count as overturns."""
    rows = build_report(history.audit)["audit"]["resolutions_in_log"]["by_topic_and_queue"]
    assert sum(r["resolved"] for r in rows) == history.truth.resolved
    approved = sum(r["outcomes"].get("approved", 0) for r in rows)
    assert approved == history.truth.overturned


def test_window_keeps_only_records_in_it(history: History) -> None:
    """--since/--until keep records with since <= time < until, and count the rest."""
    since = datetime(2026, 1, 6, tzinfo=timezone.utc)
    until = datetime(2026, 1, 8, tzinfo=timezone.utc)
    audit = build_report(history.audit, since=since, until=until)["audit"]
    expected = sum(
        1
        for r in _records(history)
        if r.kind == "turn"
        and since <= datetime.fromisoformat(r.time.replace("Z", "+00:00")) < until
    )
    assert sum(t["turns"] for t in audit["topics"].values()) == expected
    assert 0 < expected < history.truth.turns
    assert audit["outside_window"] > 0
    assert set(audit["decisions_over_time"]) == {"2026-01-06T" + f"{h:02d}" for h in range(24)} | {
        "2026-01-07T" + f"{h:02d}" for h in range(24)
    }  # a two-day window is drawn per hour


def test_review_db_gives_waiting_handling_and_overturn_per_queue(history: History) -> None:
    """With --db: cases per queue, states, overturn rate and wait/handling percentiles."""
    reviews = build_report(history.audit, review_db=history.db)["reviews"]
    assert reviews["all"]["cases"] == history.truth.escalated
    assert reviews["all"]["states"]["resolved"] == history.truth.resolved
    assert reviews["all"]["outcomes"]["approved"] == history.truth.overturned
    assert set(reviews["by_queue"]) == {"clinical-review", "asylum", "labour"}
    wait = reviews["all"]["wait_minutes"]
    assert wait["n"] == history.truth.resolved and 0 < wait["p50"] <= wait["p90"]


def test_unreadable_lines_are_counted_not_skipped(tmp_path, history: History) -> None:
    """A torn or foreign line shows up as unreadable; the other records are still read."""
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(history.audit.read_bytes() + b'{"kind": "turn", "time"\n[1, 2]\n')
    audit = build_report(damaged)["audit"]
    assert audit["unreadable_lines"] == 2
    assert sum(t["turns"] for t in audit["topics"].values()) == history.truth.turns


def test_hash_redaction_shows_digests_never_texts(tmp_path) -> None:
    """Under "hash" redaction factoids appear as digest prefixes and spans are not cut out."""
    log = AuditLog(tmp_path / "a.jsonl", redaction="hash", fsync=False)
    write_history(log, load_policy(POLICY), turns=60, seed=1)
    report = build_report(tmp_path / "a.jsonl")
    factoids = report["audit"]["top_flagged_factoids"]
    assert factoids and all(text.startswith("sha256:") for text, _ in factoids)
    assert all(text == "(hash-redacted answer)" for text, _ in report["audit"]["top_flagged_spans"])
    assert "Paracetamol" not in json.dumps(report)


def test_drop_redaction_shows_nothing_of_the_text(tmp_path) -> None:
    """Under "drop" redaction a flagged factoid is shown as (dropped)."""
    log = AuditLog(tmp_path / "a.jsonl", redaction="drop", fsync=False)
    write_history(log, load_policy(POLICY), turns=60, seed=1)
    factoids = build_report(tmp_path / "a.jsonl")["audit"]["top_flagged_factoids"]
    assert [text for text, _ in factoids] == ["(dropped)"]


def test_verify_reports_a_broken_chain(tmp_path, history: History) -> None:
    """verify=True records whether the chain holds; an edited line breaks it."""
    assert build_report(history.audit, verify=True)["chain"]["ok"] is True
    lines = history.audit.read_bytes().splitlines()
    lines[5] = lines[5].replace(b'"attempts":1', b'"attempts":2')
    tampered = tmp_path / "t.jsonl"
    tampered.write_bytes(b"\n".join(lines) + b"\n")
    chain = build_report(tampered, verify=True)["chain"]
    assert chain["ok"] is False and "6" in chain["detail"]


def test_parallel_reading_gives_the_same_figures(history: History, monkeypatch) -> None:
    """A log read in three byte ranges by three processes yields the one-process figures."""
    import guardrail.report.parallel as parallel

    one = build_report(history.audit, review_db=history.db, workers=1)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    three = build_report(history.audit, review_db=history.db, workers=3)
    for report in (one, three):
        report.pop("generated_at")
    assert three == one
    assert len(parallel._ranges(history.audit, 3)) == 3


def test_standard_json_gives_the_same_figures(history: History, monkeypatch) -> None:
    """Without orjson (the standard json module decodes) the figures are identical."""
    import json as std_json

    import guardrail.report.audit_figures as figures

    fast = build_report(history.audit, review_db=history.db)
    monkeypatch.setattr(figures, "_loads", std_json.loads)
    slow = build_report(history.audit, review_db=history.db)
    for report in (fast, slow):
        report.pop("generated_at")
    assert slow == fast


def test_case_topics_from_the_log_or_the_payload_agree(history: History) -> None:
    """Topics taken from the log's turn records equal those read from the case payloads."""
    from guardrail.report.review_figures import read_cases

    from_payloads = list(read_cases(history.db))
    audit = build_report(history.audit)["audit"]
    assert audit["resolutions_in_log"]["escalated_turns"] == len(from_payloads)
    by_topic: Counter[str] = Counter(c.topic for c in from_payloads)
    expected = {t: sum(n for a, n in acts.items() if a == "escalate")
                for t, acts in history.truth.decisions.items() if "escalate" in acts}  # fmt: skip
    assert dict(by_topic) == expected
    from_log = build_report(history.audit, review_db=history.db)["reviews"]["by_topic"]
    assert {t: g["cases"] for t, g in from_log.items()} == expected
