"""Rows the judge could not score count in every figure: as the on-error outcome in the answer
metrics (with the scored-only figures beside them), and with their calls, tokens and time in
the cost."""

from __future__ import annotations

import json

from guardrail.evaluation.datasets import EvalRow
from guardrail.evaluation.results import summarize
from guardrail.evaluation.runner import run_rows
from guardrail.exceptions import JudgeServerError
from guardrail.judges.base import JudgeRequest
from guardrail.judges.runner import RetryPolicy
from guardrail.scoring import MetaRAG, MetaRAGConfig
from guardrail.testing import ScriptedJudge

CONTEXT = "Ibuprofen is contraindicated in the third trimester of pregnancy."


def _row(row_id: str, answer: str, label: int) -> EvalRow:
    return EvalRow(id=row_id, task="qa", question="q?", context=CONTEXT, answer=answer, label=label)


ROWS = [
    _row("good-negative", "Ibuprofen is contraindicated late in pregnancy.", 0),
    _row("good-positive", "Ibuprofen is safe in pregnancy.", 1),
    _row("down", "The server goes down on this one.", 1),
    _row("mute", "The judge says nothing useful on this one.", 1),
]


def handler(request: JudgeRequest) -> str:
    text = json.dumps(dict(request.inputs), default=str)
    if "goes down" in text:
        raise JudgeServerError("HTTP 503: overloaded")
    if "nothing useful" in text:
        return "" if request.task != "decompose" else '["The judge says nothing useful."]'
    if request.task == "decompose":
        return json.dumps([request.inputs["text"]])
    if request.task in ("synonym", "antonym"):
        # a synonym of a supported claim is supported; an antonym of anything is not
        fact = str(request.inputs["factoid"])
        if request.task == "synonym":
            return f"{fact} (restated)" if "contraindicated" in fact else f"{fact} (again)"
        return "It is not so."
    statement = str(request.inputs["statement"])
    supported = "contraindicated" in statement or "synonym" in statement
    return "YES. stated" if supported else "NO. contradicted"


async def _run():  # type: ignore[no-untyped-def]
    judge = ScriptedJudge(handler)
    scorer = MetaRAG(
        judge,
        config=MetaRAGConfig(k=1),
        retry=RetryPolicy(max_attempts=1),
        localizer=None,
    )
    return await run_rows(ROWS, scorer)


async def test_failed_and_unusable_rows_count_as_the_on_error_outcome() -> None:
    result = await _run()
    assert not result.outcomes["down"].ok
    assert result.outcomes["mute"].status == "judge_unusable"
    flagged = summarize(ROWS, result.outcomes, threshold=0.5, threshold_source="t")
    assert (flagged.failed, flagged.unusable, flagged.n) == (1, 1, 2)
    # every row is in the answer figures: the two unscored positives count as flagged
    assert flagged.answer["n"] == 4
    assert (flagged.answer["tp"], flagged.answer["fn"]) == (3, 0)
    # ... and the scored-only figures are there beside them
    assert flagged.answer_scored_only["n"] == 2
    passed = summarize(ROWS, result.outcomes, threshold=0.5, threshold_source="t", on_error="pass")
    assert (passed.answer["tp"], passed.answer["fn"]) == (1, 2)
    assert passed.answer_scored_only == flagged.answer_scored_only


async def test_failed_rows_cost_their_calls_tokens_and_time() -> None:
    result = await _run()
    down = result.outcomes["down"]
    assert down.judge_calls >= 1 and down.failed_calls >= 1 and down.seconds > 0
    summary = summarize(ROWS, result.outcomes, threshold=0.5, threshold_source="t")
    cost = summary.cost
    assert cost is not None and cost.rows == 4
    outcomes = list(result.outcomes.values())
    assert cost.judge_calls_per_answer == sum(o.judge_calls for o in outcomes) / 4
    assert cost.seconds_per_answer == sum(o.seconds for o in outcomes) / 4
    assert cost.judge_calls_of_failed_rows == down.judge_calls
    assert cost.parse_failures >= result.outcomes["mute"].parse_failures > 0


async def test_unusable_replies_are_counted_apart_from_recovered_slips() -> None:
    """The "mute" row's mutation and verify replies are empty (no signal at all); a "slip"
    row's verdicts carry their label late in the reply (read, a format slip): only the first
    are unusable."""

    def slipping(request: JudgeRequest) -> str:
        if request.task == "verify" and "slips" in str(request.inputs["factoid"]):
            return "Based on the passages, the answer is NO."
        return handler(request)

    rows = [*ROWS, _row("slip", "The judge slips on this one.", 1)]
    scorer = MetaRAG(
        ScriptedJudge(slipping),
        config=MetaRAGConfig(k=1),
        retry=RetryPolicy(max_attempts=1),
        localizer=None,
    )
    result = await run_rows(rows, scorer)
    mute, slip = result.outcomes["mute"], result.outcomes["slip"]
    # k=1: a synonym call, an antonym call and two verify calls, each empty reply asked
    # again without stops (8 empty replies); the mutations were then filled mechanically
    assert mute.unusable_replies == 8
    assert mute.unusable_causes == {"empty": 8, "too_few_items": 2}
    assert (slip.unusable_replies, slip.parse_failures) == (0, 2)
    assert slip.parse_causes == {"label_not_at_start": 2}
    cost = summarize(rows, result.outcomes, threshold=0.5, threshold_source="t").cost
    assert cost is not None
    assert cost.unusable_replies == 8
    assert cost.unusable_causes == {"empty": 8, "too_few_items": 2}
    assert cost.parse_causes == {"empty": 8, "too_few_items": 2, "label_not_at_start": 2}
    assert cost.judge_calls == sum(o.judge_calls for o in result.outcomes.values())
    line = cost.parse_summary()
    assert line.startswith(f"judge replies that could not be used: 8 of {cost.judge_calls} calls")
    assert "(empty 8, too_few_items 2)" in line
    assert "2 more read after a format slip (label_not_at_start 2)" in line
