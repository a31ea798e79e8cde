"""Aggregation properties: factoid score is the mean penalty, response score the max."""

from __future__ import annotations

import json
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from guardrail.judges import JudgeRequest, ScriptedJudge
from guardrail.models import Factoid, JudgeCall, Label, Relation
from guardrail.scoring import PENALTY, MetaRAG, MetaRAGConfig
from guardrail.scoring.base import CallLog, flagged_spans

LABELS = ["YES", "NO", "NOT SURE"]


@settings(max_examples=60, deadline=None)
@given(
    k=st.integers(min_value=1, max_value=3),
    verdicts=st.lists(st.sampled_from(LABELS), min_size=1, max_size=60),
    n_facts=st.integers(min_value=1, max_value=4),
    threshold=st.floats(min_value=0.0, max_value=1.0),
)
def test_scores_follow_equations_1_and_2(k, verdicts, n_facts, threshold):
    """For any verdicts: factoid = mean penalty of its 2k variants; response = max; flag >=."""
    facts = [f"Fact {i} is true." for i in range(n_facts)]
    answer = " ".join(facts)
    stream = iter(verdicts * 100)

    def handler(req: JudgeRequest) -> str:
        if req.task == "decompose":
            return json.dumps(facts)
        if req.task in ("synonym", "antonym"):
            tag = "S" if req.task == "synonym" else "A"
            return "\n".join(f"{tag}{i} {req.inputs['factoid']}" for i in range(k))
        return next(stream) + ". reason"

    report = MetaRAG(ScriptedJudge(handler), config=MetaRAGConfig(k=k)).score_sync(
        "q", answer, ["ctx"], threshold=threshold
    )
    for factoid in report.factoids:
        assert len(factoid.variants) == 2 * k
        penalties = [PENALTY[(v.relation, v.label)] for v in factoid.variants]
        assert [v.penalty for v in factoid.variants] == penalties
        assert abs(factoid.score - sum(penalties) / len(penalties)) < 1e-12
        assert 0.0 <= factoid.score <= 1.0
        assert factoid.flagged is (factoid.score >= threshold)
        assert all(isinstance(v.label, Label) for v in factoid.variants)
        assert {v.relation for v in factoid.variants} == {Relation.SYNONYM, Relation.ANTONYM}
    assert report.score == max(f.score for f in report.factoids)
    assert report.flagged is (report.score >= threshold)


def test_flagged_spans_prefer_focus_and_need_a_flagged_report():
    def factoid(i: int, spans: list, focus: list, flagged: bool) -> Factoid:
        return Factoid(
            index=i,
            text="x",
            spans=spans,
            focus=focus,
            aligned=True,
            alignment=1.0,
            score=1.0 if flagged else 0.0,
            flagged=flagged,
        )

    factoids = [
        factoid(0, [(0, 10)], [(2, 4)], True),
        factoid(1, [(8, 20)], [], True),
        factoid(2, [(30, 40)], [], False),
    ]
    assert flagged_spans(factoids, True) == [(2, 4), (8, 20)]
    assert flagged_spans(factoids, False) == []


def test_call_log_records_parse_failures_and_usage():
    log = CallLog()
    log.record(JudgeCall(stage="verify", judge="j", prompt_tokens=3))
    log.record(JudgeCall(stage="verify", judge="j", prompt_tokens=4), "no label")
    assert [c.parse_failure for c in log.calls] == [None, "no label"]
    usage = log.usage(time.perf_counter())
    assert (usage.judge_calls, usage.prompt_tokens, usage.parse_failures) == (2, 7, 1)
