"""The status table: every report status has one decision path, and no path passes an answer
without a score unless the policy's rule says so."""

from __future__ import annotations

from typing import get_args

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from guardrail.models import ReportStatus, ScoreReport
from guardrail.policy import PolicyEngine, load_policy, parse_policy
from guardrail.policy.engine import STATUS_PATHS
from tests.policy.factories import DEFAULT_POLICY, label

STATUSES: tuple[ReportStatus, ...] = get_args(ReportStatus)
ON_ERROR = ("pass", "abstain", "escalate")


def _policy(on_error: str, threshold: float, sensitivity: str) -> PolicyEngine:
    data = {
        "name": "walk",
        "version": 1,
        "topics": [
            {
                "name": "general",
                "threshold": threshold,
                "sensitivity": sensitivity,
                "on_error": on_error,
                "on_flag": {"highlight": True, "escalate": {"queue": "review"}},
            }
        ],
    }
    return PolicyEngine(parse_policy(yaml.safe_dump(data)))


def _report(status: ReportStatus, score: float) -> ScoreReport:
    return ScoreReport(score=score, threshold=0.5, flagged=score >= 0.5, status=status)


def test_every_status_has_one_row() -> None:
    """The table lists every status the report type allows, and nothing else."""
    assert set(STATUS_PATHS) == set(STATUSES)


@settings(max_examples=300, deadline=None)
@given(
    status=st.sampled_from(STATUSES),
    on_error=st.sampled_from(ON_ERROR),
    threshold=st.floats(0.0, 1.0, allow_nan=False),
    score=st.floats(0.0, 1.0, allow_nan=False),
    sensitivity=st.sampled_from(("normal", "sensitive")),
)
def test_no_pass_without_a_score_unless_the_rule_says_so(
    status: ReportStatus, on_error: str, threshold: float, score: float, sensitivity: str
) -> None:
    """A pass comes from a score under the threshold, the rule's own ``on_error: pass``, or an
    answer that claims nothing — and a no-signal status never passes on its score."""
    engine = _policy(on_error, threshold, sensitivity)
    decision = engine.decide(_report(status, score), [label("general")])
    path, _note = STATUS_PATHS[status]
    if path == "scored":
        assert decision.score == score
        assert (decision.action == "pass") == (score < threshold)
    elif path == "on_error":
        assert decision.score is None
        assert decision.action == on_error
        assert status in decision.reason
    else:
        assert decision.action == "pass" and not decision.flagged
        assert status in decision.reason


@given(on_error=st.sampled_from(ON_ERROR))
def test_a_failed_scoring_follows_on_error(on_error: str) -> None:
    """No report at all (scoring raised) is decided by ``on_error`` and carries no score."""
    decision = _policy(on_error, 0.5, "normal").decide(None, [], error="boom")
    assert decision.action == on_error and decision.score is None


def test_unverifiable_on_a_sensitive_default_topic_is_not_passed() -> None:
    """Under the shipped default policy, "Yes." that verifies nothing on pregnancy fails
    closed, and on the general topic the policy's ``on_error: abstain`` withholds it."""
    engine = PolicyEngine(load_policy(DEFAULT_POLICY))
    report = _report("unverifiable", 0.0)
    sensitive = engine.decide(report, [label("pregnancy")])
    general = engine.decide(report, [label("general")])
    assert sensitive.action in ("abstain", "escalate")
    assert general.action == "abstain" and "on_error: abstain" in general.reason


def test_empty_context_says_so_in_the_reason() -> None:
    """A score made without any retrieved context says the context was missing."""
    decision = _policy("pass", 0.5, "normal").decide(
        _report("empty_context", 0.5), [label("general")]
    )
    assert "no retrieved context" in decision.reason and decision.flagged


def test_an_empty_answer_follows_on_error() -> None:
    """An empty answer claims nothing the user could read: the rule's ``on_error`` decides
    (fail closed on every topic of the default policy), never a silent pass."""
    engine = PolicyEngine(load_policy(DEFAULT_POLICY))
    report = _report("empty_answer", 0.0)
    sensitive = engine.decide(report, [label("pregnancy")])
    general = engine.decide(report, [label("general")])
    assert sensitive.action in ("abstain", "escalate") and sensitive.score is None
    assert "empty_answer" in sensitive.reason
    assert general.action == "abstain" and "on_error: abstain" in general.reason


def test_the_default_policy_passes_nothing_unscored() -> None:
    """No topic of the shipped default policy passes an answer that carries no score: every
    status that goes to ``on_error`` (and a failed scoring) is withheld or escalated."""
    engine = PolicyEngine(load_policy(DEFAULT_POLICY))
    to_on_error = [
        s for s in STATUSES if engine.decide(_report(s, 0.0), [label("general")]).score is None
    ]
    assert "unverifiable" in to_on_error and "judge_unusable" in to_on_error
    for topic in engine.policy.topics:
        for status in to_on_error:
            decision = engine.decide(_report(status, 0.0), [label(topic.name)])
            assert decision.action != "pass", (topic.name, status, decision.reason)
        failed = engine.decide(None, [label(topic.name)], error="boom")
        assert failed.action != "pass", (topic.name, failed.reason)
