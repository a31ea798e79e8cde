"""The Guard: every action, the paper's two vignettes, failure handling, audit per turn."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from guardrail.actions.escalate import Escalator
from guardrail.audit import AuditLog, verify_log
from guardrail.exceptions import EscalationError, JudgeServerError
from guardrail.guard import Guard
from guardrail.judges import JudgeRequest, RetryPolicy, ScriptedJudge
from guardrail.judges.local import LocalJudge
from guardrail.models import EscalationCase
from guardrail.policy import Policy, load_policy, parse_policy
from guardrail.queues import SQLiteQueue
from guardrail.queues.jsonl import JSONLSink
from guardrail.scoring import MetaRAG
from guardrail.testing import TestJudge

ROOT = Path(__file__).resolve().parents[1]
IBUPROFEN_Q = "Can pregnant women take ibuprofen for back pain?"
IBUPROFEN_A = "Yes, ibuprofen is safe throughout pregnancy."
IBUPROFEN_CTX = [
    "Ibuprofen and other NSAIDs are contraindicated in the third trimester of pregnancy. "
    "Paracetamol is generally considered the first choice for pain relief during pregnancy."
]
REFUGEE_Q = "Do LGBTQ+ refugees automatically receive protection in country X?"
REFUGEE_A = "LGBTQ+ refugees automatically receive protection in country X."
REFUGEE_CTX = [
    "Every asylum application in country X is examined individually. Persecution because of "
    "sexual orientation can be a ground for protection."
]

POLICY_YAML = """
name: test
scorer: {judge: local}
classifier: {confidence_floor: 0.5, default_topic: general}
topics:
  - name: general
    threshold: 0.5
    examples:
      - How do I reset my password?
      - When does the office open?
    on_flag: {highlight: true, cite: true}
  - name: asylum
    sensitivity: sensitive
    threshold: 0.3
    reads: both
    keywords: [asylum, refugees, refugee]
    on_flag:
      cite: true
      abstain: {message: "Expert verification is needed."}
      escalate: {queue: asylum, message: "An adviser will review this."}
  - name: pregnancy
    sensitivity: sensitive
    threshold: 0.3
    keywords: [pregnant, pregnancy]
    on_flag:
      cite: true
      regenerate: {max_attempts: 1, instruction: "Only state what the sources say."}
      escalate: {queue: clinical-review, message: "A clinician will check this."}
"""


def unknown_fact_judge(name: str = "scripted") -> TestJudge:
    """Every factoid is NOT SURE everywhere: response score exactly 0.5."""
    return TestJudge(lambda _s, _c: None, decompose=lambda text: [text], judge_name=name)


@pytest.fixture
def policy() -> Policy:
    return parse_policy(POLICY_YAML)


@pytest.fixture
def queue(tmp_path: Path) -> SQLiteQueue:
    return SQLiteQueue(tmp_path / "review.sqlite3")


@pytest.fixture
def audit(tmp_path: Path) -> AuditLog:
    return AuditLog(tmp_path / "audit.jsonl")


def make_guard(policy: Policy, queue: SQLiteQueue, audit: AuditLog, judge: Any = None, **kw: Any):
    return Guard(
        policy,
        judge=judge or LocalJudge(),
        escalator=Escalator(default=queue, fallback=kw.pop("fallback", None)),
        audit=audit,
        **kw,
    )


def read_audit(audit: AuditLog) -> list[dict[str, Any]]:
    return [json.loads(line) for line in audit.path.read_text().splitlines()]


def test_ibuprofen_vignette_is_flagged_cited_regenerated_and_escalated(policy, queue, audit):
    """The paper's pregnancy vignette: flagged at 0.3, cited, regenerated once, escalated."""
    guard = make_guard(policy, queue, audit)
    calls: list[str | None] = []

    @guard.wrap
    def chatbot(question: str, guardrail_instruction: str | None = None):
        calls.append(guardrail_instruction)
        return IBUPROFEN_A, IBUPROFEN_CTX  # the model repeats itself even when asked to be strict

    result = chatbot(IBUPROFEN_Q)
    d = result.decision
    assert result.topics[0].label == "pregnancy"
    assert d.flagged and d.threshold == 0.3 and d.topic == "pregnancy"
    assert d.actions == ["regenerate", "highlight", "cite", "escalate"]
    assert d.action == "escalate" and d.queue == "clinical-review"
    assert calls == [None, "Only state what the sources say."]
    assert result.attempts == 2
    assert result.report is not None and result.report.score >= 0.5
    flagged = result.report.flagged_text(result.report_text)
    assert any("safe throughout pregnancy" in text for text in flagged)
    assert result.answer == "A clinician will check this."
    assert result.citations and result.citations[0].marker == "[unsupported]"
    stored = queue.get(result.audit_id)
    assert stored.state == "open" and stored.queue == "clinical-review"
    assert stored.case.answer == IBUPROFEN_A and stored.case.contexts == IBUPROFEN_CTX


def test_refugee_vignette_is_flagged_under_asylum_threshold_and_routed(policy, queue, audit):
    """Score 0.5: flagged under the 0.3 asylum threshold, abstains, routed to 'asylum'."""
    guard = make_guard(policy, queue, audit, judge=unknown_fact_judge())
    result = guard.check(REFUGEE_Q, REFUGEE_A, REFUGEE_CTX)
    d = result.decision
    assert d.score == 0.5 and d.threshold == 0.3 and d.flagged
    assert d.topic == "asylum" and d.queue == "asylum"
    assert "abstain" in d.actions and "escalate" in d.actions
    assert result.answer == "An adviser will review this."
    assert queue.get(result.audit_id).queue == "asylum"


@pytest.mark.parametrize(("threshold", "flagged"), [(0.5, True), (0.51, False)])
def test_score_on_the_general_boundary(tmp_path, queue, audit, threshold, flagged):
    """0.5 sits on the general boundary: flagged at threshold 0.5 (>=), not at 0.51."""
    text = POLICY_YAML.replace("threshold: 0.5\n", f"threshold: {threshold}\n", 1)
    guard = make_guard(parse_policy(text), queue, audit, judge=unknown_fact_judge())
    result = guard.check("How do I reset my password?", "Click 'forgot password'.", ["Ask IT."])
    assert result.decision.topic == "general" and result.decision.score == 0.5
    assert result.decision.flagged is flagged
    assert result.decision.action == ("cite" if flagged else "pass")


def test_highlight_returns_offsets_and_rendering(policy, queue, audit):
    """Highlight gives structured spans (report) and a marked-up answer."""
    guard = make_guard(policy, queue, audit)
    answer = "The office opens at 9:00. The office has 400 parking spaces."
    ctx = ["The office opens at 9:00 on weekdays. There are 40 parking spaces for staff."]
    result = guard.check("When does the office open?", answer, ctx)
    assert result.decision.flagged and "highlight" in result.decision.actions
    assert result.report is not None
    spans = result.report.flagged_spans
    assert spans and all(0 <= s < e <= len(answer) for s, e in spans)
    assert result.highlighted is not None and "[[" in result.highlighted
    marked = result.highlighted.split("[[", 1)[1]
    assert marked.startswith("400") and "9:00" not in marked  # the wrong number, nothing before


def test_cite_marks_supported_and_unsupported_sentences(policy, queue, audit):
    """Cite appends [n] to supported sentences and [unsupported] to the flagged one."""
    guard = make_guard(policy, queue, audit)
    answer = "The office opens at 9:00. The office has 400 parking spaces."
    ctx = ["Parking is free.", "The office opens at 9:00 on weekdays. It has 40 parking spaces."]
    result = guard.check("When does the office open?", answer, ctx)
    assert (
        result.answer
        == "The office opens at 9:00 [2]. The office has 400 parking spaces [unsupported]."
    )
    assert [c.passage for c in result.citations] == [1, None]


def test_regeneration_that_fixes_the_answer_passes(policy, queue, audit):
    """A regenerated answer that is grounded passes; the decision records the regeneration."""
    guard = make_guard(policy, queue, audit)
    good = "Ibuprofen and other NSAIDs are contraindicated in the third trimester of pregnancy."

    @guard.wrap
    async def chatbot(question: str, guardrail_instruction: str | None = None):
        return {"answer": good if guardrail_instruction else IBUPROFEN_A, "contexts": IBUPROFEN_CTX}

    import asyncio

    result = asyncio.run(chatbot(IBUPROFEN_Q))
    assert result.decision.actions == ["regenerate"] and not result.decision.flagged
    assert result.answer == good and result.scored_answer == good
    assert result.original_answer == IBUPROFEN_A and result.attempts == 2
    assert queue.list() == []


def test_answer_function_without_instruction_is_not_regenerated(policy, queue, audit):
    """Functions that cannot take guardrail_instruction are called once; the reason says so."""
    guard = make_guard(policy, queue, audit)
    calls = []

    class Out:
        def __init__(self) -> None:
            self.answer, self.contexts = IBUPROFEN_A, [{"page_content": IBUPROFEN_CTX[0]}]

    @guard.wrap
    def chatbot(question: str):
        calls.append(question)
        return Out()

    result = chatbot(IBUPROFEN_Q)
    assert len(calls) == 1
    assert "regeneration skipped" in result.decision.reason
    assert result.decision.action == "escalate" and "regenerate" not in result.decision.actions


def test_unchanged_answer_is_scored_once_and_a_failed_regeneration_too(policy, queue, audit):
    """No callback, or a callback that raises: the same answer is not scored a second time."""
    guard = make_guard(policy, queue, audit)
    scored: list[str] = []
    score = guard.scorer.score

    async def counting(question: str, answer: str, *args: Any, **kw: Any) -> Any:
        scored.append(answer)
        return await score(question, answer, *args, **kw)

    guard.scorer.score = counting  # type: ignore[method-assign]
    result = guard.check(IBUPROFEN_Q, IBUPROFEN_A, IBUPROFEN_CTX)
    assert scored == [IBUPROFEN_A] and result.decision.reason.count("regeneration skipped") == 1
    assert "exhausted" not in result.decision.reason  # nothing was regenerated
    assert result.decision.action == "escalate"

    def broken(instruction: str) -> str:
        raise RuntimeError("model down")

    scored.clear()
    result = guard.check(IBUPROFEN_Q, IBUPROFEN_A, IBUPROFEN_CTX, regenerate=broken)
    assert scored == [IBUPROFEN_A]
    assert "regeneration failed: RuntimeError: model down" in result.decision.reason
    assert "no regenerate callback" not in result.decision.reason
    assert result.decision.action == "escalate"


def test_audit_record_keeps_the_judge_calls_of_every_attempt(policy, queue, audit):
    """After a regeneration the record holds both attempts' judge calls, not the last only."""
    guard = make_guard(policy, queue, audit)
    result = guard.check(
        IBUPROFEN_Q, IBUPROFEN_A, IBUPROFEN_CTX, regenerate=lambda _: (IBUPROFEN_A, IBUPROFEN_CTX)
    )
    assert result.attempts == 2 and result.report is not None
    [record] = read_audit(audit)
    assert len(record["judge_calls"]) == 2 * len(result.report.calls)


def test_judge_failure_fails_closed_for_sensitive_topics(policy, queue, audit):
    """Judge down: the sensitive topic escalates (fail closed) and the audit keeps every call."""

    def broken(req: JudgeRequest) -> str:
        raise JudgeServerError("upstream 503", status_code=503)

    judge = ScriptedJudge(broken)
    guard = make_guard(policy, queue, audit)
    guard.scorer = MetaRAG(judge, retry=RetryPolicy(max_attempts=2, backoff_base_s=0.001))
    result = guard.check(REFUGEE_Q, REFUGEE_A, REFUGEE_CTX)
    assert result.report is None and result.decision.score is None
    assert result.decision.action == "escalate" and result.decision.error
    assert queue.get(result.audit_id).queue == "asylum"
    [record] = read_audit(audit)
    assert record["error"] and len(record["judge_calls"]) == 1
    assert record["judge_calls"][0]["ok"] is False and record["judge_calls"][0]["attempts"] == 2


def test_judge_failure_passes_general_topics_with_the_error_recorded(policy, queue, audit):
    """A general question passes through unscored when the judge fails (on_error: pass)."""
    judge = ScriptedJudge(lambda r: (_ for _ in ()).throw(JudgeServerError("down")))
    guard = make_guard(policy, queue, audit)
    guard.scorer = MetaRAG(judge, retry=RetryPolicy(max_attempts=1))
    result = guard.check("How do I reset my password?", "Use the portal.", ["Use the portal."])
    assert result.decision.action == "pass" and result.decision.error
    assert result.answer == "Use the portal."


class BrokenSink:
    name = "broken"

    async def send(self, case: EscalationCase) -> None:
        raise EscalationError("queue database is locked")


def test_sink_failure_falls_back_and_is_recorded(policy, tmp_path, audit):
    """When the queue sink fails, the case lands in the fallback sink and the error is kept."""
    fallback = JSONLSink(tmp_path / "fallback.jsonl")
    guard = Guard(
        policy,
        judge=unknown_fact_judge(),
        escalator=Escalator(default=BrokenSink(), fallback=fallback),
        audit=audit,
    )
    result = guard.check(REFUGEE_Q, REFUGEE_A, REFUGEE_CTX)
    assert "fallback" in (result.decision.error or "")
    lines = (tmp_path / "fallback.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["case_id"] == result.audit_id
    assert read_audit(audit)[0]["error"]


def test_every_turn_is_audited_and_the_chain_verifies(policy, queue, audit):
    """One hash-chained record per turn, with topics, scores, decision and judge calls."""
    guard = make_guard(policy, queue, audit)
    results = [
        guard.check("When does the office open?", "It opens at 9.", ["It opens at 9."]),
        guard.check(IBUPROFEN_Q, IBUPROFEN_A, IBUPROFEN_CTX),
    ]
    records = read_audit(audit)
    assert [r["audit_id"] for r in records] == [r.audit_id for r in results]
    assert records[1]["topics"][0]["label"] == "pregnancy"
    assert records[1]["decision"]["action"] == "escalate"
    assert records[1]["judge_calls"] and records[1]["flagged_spans"]
    assert records[1]["policy_hash"] == guard.policy.content_hash
    assert verify_log(audit.path).ok


def test_a_crash_mid_turn_still_leaves_an_audit_record(policy, queue, audit):
    """An unexpected error propagates, and the turn is still in the audit log."""
    guard = make_guard(policy, queue, audit)

    class Boom:
        def classify(self, query: str, contexts: Any = ()) -> Any:
            raise RuntimeError("classifier exploded")

    guard.classifier = Boom()  # type: ignore[assignment]
    with pytest.raises(RuntimeError, match="exploded"):
        guard.check("q", "a", ["c"])
    [record] = read_audit(audit)
    assert record["kind"] == "event" and "exploded" in record["error"]


class BuggyScorer:
    """A scorer with a programming error (not a judge failure)."""

    method = "buggy"

    async def score(self, question: str, answer: str, contexts: Any, **kw: Any) -> Any:
        return int("0.5 as text")  # ValueError: the old guard took it for a judge outage


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_a_scorer_bug_is_decided_by_on_error_and_named(policy, queue, audit):
    """A scorer bug is logged with its traceback and ends in the rule's on_error, naming it."""
    guard = make_guard(policy, queue, audit)
    guard.scorer = BuggyScorer()
    kept = _Kept()
    logger = logging.getLogger("guardrail.turn")
    logger.addHandler(kept)
    try:
        result = guard.check(REFUGEE_Q, REFUGEE_A, REFUGEE_CTX)
    finally:
        logger.removeHandler(kept)
    caplog_records = kept.records
    assert result.decision.action == "escalate" and result.decision.score is None
    assert "ValueError" in (result.decision.error or "")
    assert "invalid literal" in (result.decision.error or "")
    assert any("traceback" in r.__dict__ and "ValueError" in r.traceback for r in caplog_records)
    [record] = read_audit(audit)
    assert record["kind"] == "turn" and record["decision"]["action"] == "escalate"


def test_a_judge_error_raised_by_a_custom_scorer_takes_the_on_error_path(policy, queue, audit):
    """A scorer that lets a JudgeError through still gets the policy's on_error decision."""

    class DownScorer:
        method = "down"

        async def score(self, question: str, answer: str, contexts: Any, **kw: Any) -> Any:
            raise JudgeServerError("upstream 502", status_code=502)

    guard = make_guard(policy, queue, audit)
    guard.scorer = DownScorer()
    result = guard.check(REFUGEE_Q, REFUGEE_A, REFUGEE_CTX)
    assert result.decision.action == "escalate" and "upstream 502" in (result.decision.error or "")


def test_redaction_keeps_raw_text_out_of_the_audit_log(policy, queue, tmp_path):
    """With redaction='hash' the question and answer never reach the log file."""
    audit = AuditLog(tmp_path / "audit.jsonl")
    guard = make_guard(policy, queue, audit, redaction="hash")
    guard.check(IBUPROFEN_Q, IBUPROFEN_A, IBUPROFEN_CTX)
    raw = audit.path.read_text()
    assert IBUPROFEN_Q not in raw and "ibuprofen is safe" not in raw.lower()


def test_bad_answer_function_output_is_a_clear_error(policy, queue, audit):
    """An answer function returning a bare string gets a ConfigError naming the contract."""
    from guardrail.exceptions import ConfigError

    guard = make_guard(policy, queue, audit)
    with pytest.raises(ConfigError, match=r"\(answer, contexts\)"):
        guard.wrap(lambda q: "just a string")("q")


def test_from_yaml_wires_the_default_policy(tmp_path):
    """Guard.from_yaml loads the shipped default policy with the offline judge."""
    guard = Guard.from_yaml(
        ROOT / "policies" / "default.yaml",
        audit_log=tmp_path / "a.jsonl",
        review_db=tmp_path / "r.sqlite3",
        fallback_log=tmp_path / "f.jsonl",
    )
    result = guard.check(IBUPROFEN_Q, IBUPROFEN_A, IBUPROFEN_CTX)
    assert result.decision.flagged and result.decision.threshold == 0.3
    assert result.decision.action == "escalate"
    assert load_policy(ROOT / "policies" / "default.yaml").name == guard.policy.name
