"""The policy engine: the >= comparison, strictest topic, action plans, fail-closed errors."""

from __future__ import annotations

import pytest

from guardrail.exceptions import ConfigError
from guardrail.policy import ACTION_ORDER, PolicyEngine, load_policy, parse_policy, strongest
from tests.policy.factories import BASE_YAML, DEFAULT_POLICY, label, report


@pytest.fixture
def engine() -> PolicyEngine:
    return PolicyEngine(parse_policy(BASE_YAML))


@pytest.fixture
def default_engine() -> PolicyEngine:
    return PolicyEngine(load_policy(DEFAULT_POLICY))


def test_score_equal_to_general_threshold_is_flagged(engine: PolicyEngine):
    """0.5 under the general threshold 0.5 is flagged: the comparison is >=, as in the paper."""
    decision = engine.decide(report(0.5), [label("general")])
    assert decision.flagged is True
    assert decision.comparison == ">="
    assert (decision.threshold, decision.topic) == (0.5, "general")
    assert decision.actions == ["highlight"]
    assert decision.action == "highlight"


def test_score_just_below_general_threshold_passes(engine: PolicyEngine):
    """0.49 under the general threshold 0.5 is not flagged and takes no action."""
    decision = engine.decide(report(0.49), [label("general")])
    assert decision.flagged is False
    assert (decision.action, decision.actions, decision.queue) == ("pass", [], None)
    assert "0.49 < threshold 0.50" in decision.reason


def test_boundary_score_is_flagged_under_the_asylum_threshold(engine: PolicyEngine):
    """The paper's refugee vignette: 0.5 sits at the general boundary but asylum's 0.3 flags it."""
    decision = engine.decide(report(0.5), [label("asylum")])
    assert decision.flagged is True
    assert decision.threshold == 0.3
    assert decision.actions == ["highlight", "cite", "abstain", "escalate"]
    assert (decision.action, decision.queue) == ("escalate", "asylum")


def test_score_below_sensitive_threshold_passes(engine: PolicyEngine):
    """0.29 under asylum's 0.3 passes; 0.3 is flagged."""
    assert engine.decide(report(0.29), [label("asylum")]).flagged is False
    assert engine.decide(report(0.3), [label("asylum")]).flagged is True


def test_strictest_topic_wins(engine: PolicyEngine):
    """With general and asylum detected, asylum's lower threshold applies."""
    topics = [label("general", 0.9), label("asylum", 0.4)]
    assert engine.rule_for(topics).name == "asylum"
    assert engine.decide(report(0.35), topics).flagged is True


def test_lowest_threshold_beats_sensitivity():
    """A normal topic with a lower threshold is stricter than a sensitive one."""
    text = BASE_YAML + "  - name: finance\n    threshold: 0.2\n"
    engine = PolicyEngine(parse_policy(text))
    assert engine.rule_for([label("asylum"), label("finance")]).name == "finance"


def test_threshold_ties_prefer_sensitive_topics():
    """Equal thresholds: the sensitive rule applies, whatever the label order."""
    text = BASE_YAML + "  - name: legal\n    threshold: 0.3\n"
    engine = PolicyEngine(parse_policy(text))
    assert engine.rule_for([label("legal"), label("labour")]).name == "labour"
    assert engine.rule_for([label("labour"), label("legal")]).name == "labour"


def test_no_topics_or_unknown_topics_use_the_default_rule(engine: PolicyEngine):
    """No labels, or labels the policy does not define, fall back to the default topic."""
    assert engine.rule_for([]).name == "general"
    assert engine.rule_for([label("astrology")]).name == "general"
    assert engine.rule_for([label("astrology"), label("labour")]).name == "labour"
    assert engine.decide(report(0.5), []).topic == "general"


def test_regenerate_comes_first_and_defers_escalation(default_engine: PolicyEngine):
    """Pregnancy, first answer: highlight, cite, regenerate — escalation waits for the retry."""
    decision = default_engine.decide(report(0.7), [label("pregnancy")], attempt=1)
    assert decision.actions == ["highlight", "cite", "regenerate"]
    assert (decision.action, decision.queue) == ("regenerate", None)
    assert "regeneration 1 of 1" in decision.reason


def test_regeneration_exhausted_escalates(default_engine: PolicyEngine):
    """Pregnancy, regenerated answer still flagged: no more regeneration; escalate to clinicians."""
    decision = default_engine.decide(report(0.7), [label("pregnancy")], attempt=2)
    assert decision.actions == ["highlight", "cite", "escalate"]
    assert (decision.action, decision.queue) == ("escalate", "clinical-review")
    assert "exhausted" in decision.reason


def test_regenerated_answer_that_passes_is_not_escalated(default_engine: PolicyEngine):
    """If the regenerated answer scores under the threshold, the turn passes."""
    decision = default_engine.decide(report(0.1), [label("pregnancy")], attempt=2)
    assert (decision.flagged, decision.action) == (False, "pass")


def test_more_regenerations_when_configured():
    """regenerate.max_attempts: 2 allows attempts 1 and 2 to regenerate, not 3."""
    policy = parse_policy(BASE_YAML.replace("{max_attempts: 1}", "{max_attempts: 2}"))
    engine = PolicyEngine(policy)
    plans = [engine.decide(report(0.9), [label("pregnancy")], attempt=a).action for a in (1, 2, 3)]
    assert plans == ["regenerate", "regenerate", "escalate"]


def test_default_policy_asylum_abstains_and_escalates(default_engine: PolicyEngine):
    """Default policy, flagged asylum answer: cite, abstain (expert verification), escalate."""
    decision = default_engine.decide(report(0.5), [label("asylum")])
    assert decision.actions == ["highlight", "cite", "abstain", "escalate"]
    assert decision.queue == "asylum"
    rule = default_engine.policy.topic("asylum")
    assert "expert verification" in rule.abstain_message.lower()


def test_flagged_with_no_actions_configured_still_reports_flagged():
    """A rule with every action off flags the answer but plans nothing."""
    text = BASE_YAML.replace(
        "    threshold: 0.5\n", "    threshold: 0.5\n    on_flag: {highlight: false}\n"
    )
    decision = PolicyEngine(parse_policy(text)).decide(report(0.8), [])
    assert (decision.flagged, decision.action, decision.actions) == (True, "pass", [])
    assert "no action configured" in decision.reason


def test_scoring_failure_fails_closed_for_sensitive_topics(engine: PolicyEngine):
    """report=None on a sensitive topic escalates to its queue and records the error."""
    decision = engine.decide(None, [label("pregnancy")], error="JudgeTimeout: 60s")
    assert (decision.action, decision.actions) == ("escalate", ["escalate"])
    assert decision.queue == "clinical-review"
    assert decision.score is None and decision.flagged is False
    assert decision.error == "JudgeTimeout: 60s"
    assert "fail closed" in decision.reason


def test_scoring_failure_without_queue_abstains(engine: PolicyEngine):
    """A sensitive topic with no escalation queue abstains when scoring fails."""
    decision = engine.decide(None, [label("labour")], error="boom")
    assert (decision.action, decision.actions, decision.queue) == ("abstain", ["abstain"], None)


def test_scoring_failure_passes_for_normal_topics(engine: PolicyEngine):
    """The general topic passes through unscored on error (its on_error default), error kept."""
    decision = engine.decide(None, [label("general")])
    assert (decision.action, decision.actions) == ("pass", [])
    assert decision.error == "scoring failed"


def test_scoring_failure_uses_the_strictest_topic(engine: PolicyEngine):
    """On error the strictest detected topic's on_error applies, not the default topic's."""
    decision = engine.decide(None, [label("general"), label("asylum")], error="x")
    assert (decision.topic, decision.action, decision.queue) == ("asylum", "escalate", "asylum")


def test_error_is_recorded_even_with_a_report(engine: PolicyEngine):
    """A partial failure (report present, error given) keeps the error text on the decision."""
    decision = engine.decide(report(0.1), [label("general")], error="1 verifier failed")
    assert decision.error == "1 verifier failed"


def test_attempt_must_be_positive(engine: PolicyEngine):
    """attempt counts answers from 1; 0 is refused like any invalid setting."""
    with pytest.raises(ConfigError, match="attempt must be >= 1, got 0"):
        engine.decide(report(0.1), [], attempt=0)


def test_action_strength_order():
    """pass < highlight < cite < custom < regenerate < abstain < escalate; empty is pass."""
    assert ACTION_ORDER == (
        "pass", "highlight", "cite", "custom", "regenerate", "abstain", "escalate"
    )  # fmt: skip
    assert strongest(["cite", "highlight"]) == "cite"
    assert strongest(["custom", "cite"]) == "custom"
    assert strongest(["escalate", "abstain"]) == "escalate"
    assert strongest([]) == "pass"


def test_decision_reason_names_score_threshold_and_topic(engine: PolicyEngine):
    """The reason is a sentence a reviewer can read without the code."""
    reason = engine.decide(report(0.62), [label("asylum")]).reason
    assert reason.startswith("score 0.62 >= threshold 0.30 for topic 'asylum' (sensitive)")
    assert "escalate to queue 'asylum'" in reason


def test_decision_round_trips_through_json(engine: PolicyEngine):
    """Decisions are plain values: they survive JSON unchanged (for the audit log)."""
    decision = engine.decide(report(0.62), [label("pregnancy")])
    assert type(decision).model_validate_json(decision.model_dump_json()) == decision
