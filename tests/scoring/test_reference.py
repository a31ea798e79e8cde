"""The reference-based metric (seed 004): hallucination, faithfulness, noise sensitivity."""

from __future__ import annotations

import json

import pytest

from guardrail.exceptions import JudgeRequestError, ScoringError
from guardrail.judges import JudgeRequest, RetryPolicy, ScriptedJudge
from guardrail.models import Label
from guardrail.scoring.reference import ReferenceMetric

REFERENCES = ["MSFT ROE: 2022 47.2%, 2023 38.8%, 2024 37.1%."]
TARGET = "Microsoft's ROE was 38.8% in 2023 and its CEO is Satya Nadella."
# claim -> (supported by the references?, correct per the target?)
TRUTH = {
    "Microsoft's ROE was 38.8% in 2023.": ("YES", "YES"),  # faithful and correct
    "Microsoft's ROE was 47.2% in 2023.": ("YES", "NO"),  # noise: references misled
    "Microsoft's CEO is Satya Nadella.": ("NOT SURE", "YES"),  # self-knowledge
    "Microsoft's ROE was 55% in 2021.": ("NOT SURE", "NOT SURE"),  # hallucination
}


def truth_judge() -> ScriptedJudge:
    def handler(req: JudgeRequest) -> str:
        if req.task == "decompose":
            return json.dumps(list(TRUTH))
        assert req.task == "verify"
        on_refs = req.inputs["passages"] == REFERENCES
        verdict = TRUTH[req.inputs["statement"]][0 if on_refs else 1]
        return f"{verdict}. scripted"

    return ScriptedJudge(handler)


def metric(judge: ScriptedJudge) -> ReferenceMetric:
    return ReferenceMetric(judge, retry=RetryPolicy(max_attempts=1))


async def test_four_claim_example_gives_each_fraction():
    """One claim of each kind: every fraction is 1/4, faithfulness 2/4."""
    judge = truth_judge()
    result = await metric(judge).evaluate("ROE of MSFT?", "answer text", REFERENCES, TARGET)
    assert result.hallucination == 0.25
    assert result.faithfulness == 0.5
    assert result.noise_sensitivity == 0.25
    assert result.self_knowledge == 0.25
    assert [c.references for c in result.claims] == [Label.YES, Label.YES] + [Label.NOT_SURE] * 2
    assert judge.calls == 1 + 2 * 4  # one decomposition, two verdicts per claim
    assert result.usage.judge_calls == len(result.calls) == 9
    assert {s.stage for s in result.usage.stages} == {"decompose", "verify"}


async def test_given_claims_skip_decomposition():
    """Claims from a scorer's report are judged as given; no decompose call is made."""
    judge = truth_judge()
    claims = ["Microsoft's ROE was 55% in 2021.", "Microsoft's ROE was 38.8% in 2023."]
    result = await metric(judge).evaluate("q", "a", REFERENCES, TARGET, claims=claims)
    assert not any(r.task == "decompose" for r in judge.requests)
    assert result.hallucination == 0.5 and result.faithfulness == 0.5
    summary = result.summary()
    assert summary["n_claims"] == 2 and summary["judge_calls"] == 4


async def test_contradicted_by_target_counts_as_incorrect():
    """A NO against the target is 'not correct', the same as NOT SURE."""
    claims = ["Microsoft's ROE was 47.2% in 2023."]
    result = await metric(truth_judge()).evaluate("q", "a", REFERENCES, TARGET, claims=claims)
    assert result.noise_sensitivity == 1.0 and result.hallucination == 0.0


async def test_no_claims_and_empty_sources():
    """No claims: faithfulness 1.0, others 0. Empty references/target: no calls, not supported."""
    judge = truth_judge()
    empty = await metric(judge).evaluate("q", "", REFERENCES, TARGET)
    assert (empty.hallucination, empty.faithfulness) == (0.0, 1.0) and judge.calls == 0
    result = await metric(judge).evaluate(
        "q", "a", ["  "], "", claims=["Microsoft's ROE was 38.8% in 2023."]
    )
    assert judge.calls == 0 and result.hallucination == 1.0


async def test_unparsable_verdicts_are_recorded_and_read_as_not_sure():
    """Garbage verdicts count as NOT SURE and are recorded as parse failures."""
    judge = ScriptedJudge(lambda r: "maybe?")
    result = await metric(judge).evaluate("q", "a", REFERENCES, TARGET, claims=["x is y."])
    assert result.hallucination == 1.0
    assert result.usage.parse_failures == 2


async def test_failed_call_raises_scoring_error_with_calls():
    """A verify call that fails for good fails the metric and keeps the calls made."""

    def handler(req: JudgeRequest) -> str:
        if req.inputs.get("passages") == REFERENCES:
            raise JudgeRequestError("bad", status_code=400)
        return "YES. ok"

    with pytest.raises(ScoringError) as info:
        await metric(ScriptedJudge(handler)).evaluate("q", "a", REFERENCES, TARGET, claims=["c."])
    assert [c.ok for c in info.value.calls] == [False, True]
