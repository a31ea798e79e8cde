"""Reviewers' verdicts as labels, and the thresholds proposed from them."""

from __future__ import annotations

import random

import pytest

from guardrail.evaluation.reviews import ReviewLabel, propose_thresholds, review_labels
from guardrail.models import Decision, EscalationCase, TopicLabel
from guardrail.queues import ReviewQueue


def _labels(topic: str, true: float, n: int, *, seed: int, noise: float = 0.0,
            low: float = 0.3) -> list[ReviewLabel]:  # fmt: skip
    """Labels of escalated answers (scores in [low, 1]) whose truth is a step at ``true``."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        score = round(rng.uniform(low, 1.0), 4)
        bad = score >= true
        if rng.random() < noise:
            bad = not bad
        out.append(ReviewLabel(f"{topic}-{i}", topic, "q", score, low,
                               "rejected" if bad else "approved", bad))  # fmt: skip
    return out


def test_step_truth_is_recovered_with_held_out_effect() -> None:
    """A known threshold (0.55) is found within 0.05; held-out errors fall from the current."""
    (p,) = propose_thresholds(_labels("health", 0.55, 200, seed=1, noise=0.05), {"health": 0.3})
    assert p.refused is None and p.threshold is not None
    assert abs(p.threshold - 0.55) <= 0.05
    h = p.held_out
    assert h["folds"] == 5 and len(h["fold_thresholds"]) == 5
    assert h["at_current"]["missed"] <= 10  # only label noise below the current threshold
    assert h["error_rate_proposed"] < h["error_rate_current"]


def test_too_few_labels_is_refused_with_the_count_needed() -> None:
    """12 labels against a minimum of 30: refused, saying how many it has and needs."""
    (p,) = propose_thresholds(_labels("asylum", 0.5, 12, seed=2), {"asylum": 0.3}, min_labels=30)
    assert p.threshold is None
    assert p.refused is not None and "12 labels" in p.refused and "at least 30" in p.refused


def test_no_confirmed_label_is_refused() -> None:
    """All answers approved: no boundary to find (the threshold is somewhere above them)."""
    labels = _labels("labour", 1.01, 60, seed=3)
    (p,) = propose_thresholds(labels, {"labour": 0.3})
    assert p.threshold is None and p.refused is not None and "0 confirmed" in p.refused


def test_never_overturned_keeps_the_threshold() -> None:
    """Every reviewed answer confirmed: the current threshold stays (reviews cannot lower it)."""
    (p,) = propose_thresholds(_labels("t", 0.0, 80, seed=4), {"t": 0.3})
    assert p.threshold == 0.3
    assert "not too high" in p.note


def test_topics_without_labels_are_listed_as_refused() -> None:
    """A topic of the policy that no case reached is reported, not silently dropped."""
    out = propose_thresholds(_labels("a", 0.5, 50, seed=5), {"a": 0.3, "b": 0.5})
    assert [p.topic for p in out] == ["a", "b"]
    assert out[1].refused is not None and out[1].labels == 0


def _case(case_id: str, topic: str, score: float | None) -> EscalationCase:
    d = Decision(action="escalate", actions=["escalate"], flagged=score is not None,
                 score=score, threshold=0.3, topic=topic, queue="q")  # fmt: skip
    return EscalationCase(case_id=case_id, queue="q", created_at="2026-01-01T00:00:00Z",
                          question="q?", answer="a.", topics=[TopicLabel(label=topic,
                          confidence=1.0)], decision=d)  # fmt: skip


@pytest.mark.parametrize(("outcome", "bad"), [("approved", False), ("edited", True),
                                              ("rejected", True)])  # fmt: skip
def test_outcomes_become_labels(tmp_path, outcome: str, bad: bool) -> None:
    """approved = the answer was fine; edited or rejected = the guard was right."""
    q = ReviewQueue(tmp_path / "r.db")
    q.add(_case("c1", "health", 0.42))
    q.claim("c1", "dana")
    q.resolve("c1", outcome, final_answer="b." if outcome == "edited" else None)  # type: ignore[arg-type]
    (label,) = review_labels(q).labels
    assert (label.topic, label.score, label.outcome, label.hallucinated) == (
        "health",
        0.42,
        outcome,
        bad,
    )


def test_open_and_unscored_cases_are_not_labels(tmp_path) -> None:
    """Open cases are skipped; an unscored resolved case is left out with its reason."""
    q = ReviewQueue(tmp_path / "r.db")
    q.add(_case("open", "health", 0.5))
    q.add(_case("err", "health", None))
    q.claim("err", "dana")
    q.resolve("err", "rejected")
    source = review_labels(q)
    assert source.labels == []
    assert source.skipped == {"not scored (escalated on an error)": 1}


def test_audit_trail_is_the_source_of_scores(tmp_path) -> None:
    """With a trail, a case whose turn is missing from it or scored differently is left out."""
    from guardrail.audit import AuditLog, AuditRecord
    from guardrail.models import GuardResult

    q = ReviewQueue(tmp_path / "r.db")
    log = AuditLog(tmp_path / "a.jsonl", fsync=False)
    for cid, logged in (("same", 0.6), ("differs", 0.9)):
        case = _case(cid, "health", 0.6)
        q.add(case)
        q.claim(cid, "dana")
        q.resolve(cid, "approved")
        d = case.decision.model_copy(update={"score": logged})
        log.append(AuditRecord.from_result(GuardResult(audit_id=cid, policy="p", question="q?",
                   answer="a.", original_answer="a.", decision=d), policy_hash="h"))  # fmt: skip
    q.add(_case("absent", "health", 0.7))
    q.claim("absent", "dana")
    q.resolve("absent", "rejected")
    source = review_labels(q, audit=tmp_path / "a.jsonl")
    assert [x.case_id for x in source.labels] == ["same"]
    assert source.skipped == {"score differs between case and audit record": 1,
                              "turn record not in the audit trail": 1}  # fmt: skip
