"""Property-based tests over generated policies, thresholds and scores."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guardrail.exceptions import PolicyError
from guardrail.policy import ACTION_ORDER, PolicyEngine, parse_policy, strongest
from tests.policy.factories import label, report

NAMES = st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True)
UNIT = st.floats(0.0, 1.0, allow_nan=False)
QUEUE = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def on_flags(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {"highlight": draw(st.booleans()), "cite": draw(st.booleans())}
    if draw(st.booleans()):
        out["regenerate"] = {"max_attempts": draw(st.integers(1, 5))}
    if draw(st.booleans()):
        out["abstain"] = {"message": draw(st.text(min_size=1, max_size=20).filter(str.strip))}
    if draw(st.booleans()):
        out["escalate"] = {"queue": draw(QUEUE)}
    return out


@st.composite
def policies(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(NAMES, min_size=1, max_size=6, unique=True))
    topics = [
        {
            "name": name,
            "threshold": draw(UNIT),
            "sensitivity": draw(st.sampled_from(["normal", "sensitive"])),
            "reads": draw(st.sampled_from(["query", "context", "both"])),
            "on_flag": draw(on_flags()),
        }
        for name in names
    ]
    return {
        "name": draw(NAMES),
        "version": draw(st.integers(1, 99)),
        "classifier": {"default_topic": draw(st.sampled_from(names))},
        "topics": topics,
    }


@FAST
@given(policies())
def test_generated_policies_load_and_round_trip(data: dict[str, Any]):
    """Any well-formed policy loads, and dumping then reloading it gives the same policy/hash."""
    policy = parse_policy(yaml.safe_dump(data))
    again = parse_policy(yaml.safe_dump(policy.model_dump(mode="json")))
    assert again == policy
    assert again.content_hash == policy.content_hash
    assert [t.threshold for t in policy.topics] == [t["threshold"] for t in data["topics"]]


@FAST
@given(policies(), st.data())
def test_strictest_rule_has_the_lowest_threshold(data: dict[str, Any], draw: st.DataObject):
    """For any subset of detected topics, the applied rule has the subset's lowest threshold."""
    policy = parse_policy(yaml.safe_dump(data))
    names = [t.name for t in policy.topics]
    chosen = draw.draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    rule = PolicyEngine(policy).rule_for([label(n) for n in chosen])
    assert rule.name in chosen
    assert rule.threshold == min(policy.topic(n).threshold for n in chosen)


@given(UNIT, UNIT)
def test_flagged_exactly_when_score_reaches_threshold(threshold: float, score: float):
    """flagged == (score >= threshold) for every threshold and score in [0, 1]."""
    text = yaml.safe_dump({"name": "p", "topics": [{"name": "general", "threshold": threshold}]})
    decision = PolicyEngine(parse_policy(text)).decide(report(score), [])
    assert decision.flagged is (score >= threshold)
    assert decision.threshold == threshold


@FAST
@given(policies(), st.data(), UNIT, st.integers(1, 6))
def test_decision_invariants(data: dict[str, Any], draw: st.DataObject, score: float, attempt: int):
    """The plan is ordered, its strongest action is `action`, and escalation carries a queue."""
    policy = parse_policy(yaml.safe_dump(data))
    names = [t.name for t in policy.topics]
    chosen = draw.draw(st.lists(st.sampled_from(names), unique=True))
    decision = PolicyEngine(policy).decide(
        report(score), [label(n) for n in chosen], attempt=attempt
    )
    ranks = [ACTION_ORDER.index(a) for a in decision.actions]
    assert ranks == sorted(set(ranks))
    assert decision.action == strongest(decision.actions)
    assert (decision.queue is not None) == ("escalate" in decision.actions)
    if "regenerate" in decision.actions:
        assert not {"abstain", "escalate"} & set(decision.actions)
    if not decision.flagged:
        assert decision.actions == []


@given(
    st.one_of(
        st.floats(min_value=1.0, exclude_min=True, allow_nan=False),
        st.floats(max_value=0.0, exclude_max=True, allow_nan=False),
    ),
    st.integers(0, 2),
)
def test_out_of_range_thresholds_are_rejected_at_their_key_path(bad: float, index: int):
    """A threshold outside [0, 1] (or infinite) is a PolicyError at topics[i].threshold."""
    topics = [{"name": f"t{i}", "threshold": 0.5} for i in range(3)]
    topics[index]["threshold"] = bad
    text = yaml.safe_dump({"name": "p", "classifier": {"default_topic": "t0"}, "topics": topics})
    try:
        parse_policy(text)
    except PolicyError as exc:
        assert exc.key_path == f"topics[{index}].threshold"
    else:
        raise AssertionError(f"threshold {bad} was accepted")


FIELDS = {"name", "description", "sensitivity", "threshold", "reads", "keywords", "examples",
          "on_flag", "on_error"}  # fmt: skip


@FAST
@given(policies(), st.data(), NAMES.filter(lambda k: k not in FIELDS))
def test_unknown_topic_keys_are_rejected(data: dict[str, Any], draw: st.DataObject, key: str):
    """Any key a topic does not define is reported at topics[i].<key>."""
    index = draw.draw(st.integers(0, len(data["topics"]) - 1))
    data["topics"][index][key] = 1
    try:
        parse_policy(yaml.safe_dump(data))
    except PolicyError as exc:
        assert exc.key_path == f"topics[{index}].{key}"
        assert exc.problem.startswith("unknown key")
    else:
        raise AssertionError(f"unknown key {key!r} was accepted")
