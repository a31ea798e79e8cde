"""The shipped default policy passes its own test cases (policies/default.cases.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from guardrail.policytest import CaseResult, load_cases, policy_path, run_cases

CASES = Path(__file__).resolve().parents[2] / "policies" / "default.cases.yaml"
NAMES = [c.name for c in load_cases(CASES).cases]


@pytest.fixture(scope="module")
def results() -> dict[str, CaseResult]:
    cases = load_cases(CASES)
    policy = policy_path(CASES, cases)
    assert policy is not None
    return {r.name: r for r in run_cases(policy, cases)}


@pytest.mark.parametrize("name", NAMES)
def test_default_policy_case(results: dict[str, CaseResult], name: str) -> None:
    """Each case of the default policy's case file meets its expectations."""
    r = results[name]
    assert r.passed, r.error or "\n".join(r.failures)


def test_cases_cover_every_topic_and_action() -> None:
    """The case file exercises every topic of the policy and every action it can take."""
    from guardrail.policy import load_policy

    cases = load_cases(CASES)
    policy = load_policy(policy_path(CASES, cases))  # type: ignore[arg-type]
    topics = {c.expect.topic for c in cases.cases}
    assert topics == {t.name for t in policy.topics}
    actions = {c.expect.action for c in cases.cases} | {
        a for c in cases.cases for a in c.expect.actions_include
    }
    assert actions >= {"pass", "highlight", "cite", "regenerate", "abstain", "escalate"}
