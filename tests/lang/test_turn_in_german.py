"""The issue's German asylum turn, decided end to end as a guard would decide it."""

from __future__ import annotations

from guardrail.judges.local import LocalJudge
from guardrail.lang import detect_turn
from guardrail.policy import PolicyEngine, load_policy
from guardrail.scoring import MetaRAG
from guardrail.topics import TopicClassifier
from tests.policy.factories import DEFAULT_POLICY

QUESTION = "Wann dürfen Asylbewerber eine Arbeitserlaubnis beantragen?"
CONTEXT = "Asylbewerber dürfen nach sechs Monaten eine Arbeitserlaubnis beantragen."


def _decide(answer: str) -> tuple[str, str, float]:
    policy = load_policy(DEFAULT_POLICY)
    engine = PolicyEngine(policy)
    topics = TopicClassifier.from_policy(policy).classify(QUESTION, [CONTEXT])
    rule = engine.rule_for(topics)
    report = MetaRAG(LocalJudge()).score_sync(QUESTION, answer, [CONTEXT], threshold=rule.threshold)
    decision = engine.decide(report, topics, languages=detect_turn(QUESTION, answer, [CONTEXT]))
    return rule.name, decision.action, report.score


def test_a_changed_waiting_time_in_german_is_not_passed() -> None:
    """ "zwei Monaten" against "sechs Monaten": an asylum question, flagged, not passed."""
    topic, action, score = _decide(
        "Asylbewerber können nach zwei Monaten eine Arbeitserlaubnis beantragen."
    )
    assert topic == "asylum"
    assert score >= 0.3 and action != "pass"


def test_the_same_fact_in_german_passes() -> None:
    """The faithful German answer is verified and passes on the asylum topic."""
    topic, action, score = _decide(
        "Nach sechs Monaten können Asylbewerber eine Arbeitserlaubnis beantragen."
    )
    assert topic == "asylum"
    assert (action, score < 0.3) == ("pass", True)
