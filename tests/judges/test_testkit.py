"""guardrail.testing.TestJudge: every task of every protocol answered in format, decided by the
verdict rule; the "test" spec; sync and async callers and rules."""

from __future__ import annotations

import asyncio

import pytest

from guardrail.exceptions import JudgeRequestError
from guardrail.judges import JudgeRequest
from guardrail.judges.registry import make_judge
from guardrail.models import Label
from guardrail.scoring import MetaRAG, MetaRAGConfig, RT4Chart, RT4ChartConfig
from guardrail.testing import TestJudge, antonym, source_of, synonym, words_in_context

QUESTION = "What does the library offer?"
ANSWER = "The library opens on Saturdays. The library lends bicycles. The library sells cake."
CONTEXT = ["The library opens on Saturdays. The library does not lend bicycles."]
TRUE = "The library opens on Saturdays."
FALSE = "The library lends bicycles."


def rule(statement: str, context: str) -> Label:
    return {TRUE: Label.YES, FALSE: Label.NO}.get(statement, Label.NOT_SURE)


@pytest.mark.parametrize("protocol", ["paper", "factoid", "answer"])
def test_metarag_reads_every_reply_without_a_fallback_in_every_protocol(protocol: str):
    """Supported -> 0, contradicted -> 1, unknown -> 0.5, with no parse failure anywhere."""
    judge = TestJudge(rule)
    scorer = MetaRAG(judge, config=MetaRAGConfig(protocol=protocol), localizer=None)
    report = scorer.score_sync(QUESTION, ANSWER, CONTEXT)
    assert [(f.text, f.score) for f in report.factoids] == [
        (TRUE, 0.0),
        (FALSE, 1.0),
        ("The library sells cake.", 0.5),
    ]
    assert report.usage.parse_failures == 0 and report.usage.failed_calls == 0
    assert all(v.generated for f in report.factoids for v in f.variants)
    assert {r.task for r in judge.requests} >= {"decompose", "verify" if protocol == "paper"
                                                 else "mutate_all"}  # fmt: skip


def test_rt4chart_reads_every_reply_without_a_fallback():
    judge = TestJudge(rule)
    scorer = RT4Chart(judge, RT4ChartConfig(), localizer=None)
    report = scorer.score_sync(QUESTION, ANSWER, CONTEXT)
    assert [f.score for f in report.factoids] == [0.0, 1.0, 0.5]
    assert report.usage.parse_failures == 0
    assert {r.task for r in judge.requests} == {"claims", "local_verify", "global_verify"}


def test_antonyms_get_the_opposite_verdict_and_synonyms_the_same():
    judge = TestJudge(rule)
    assert source_of(antonym(TRUE, 2)) == (TRUE, True)
    assert source_of(synonym(TRUE, 1)) == (TRUE, False)
    verdicts = [
        asyncio.run(judge.judge(s, ""))
        for s in (synonym(TRUE, 1), antonym(TRUE, 1), antonym(FALSE, 1))
    ]
    assert verdicts == [Label.YES, Label.NO, Label.YES]


def test_sync_callers_and_async_rules_share_one_class():
    async def slow_rule(statement: str, context: str) -> bool | None:
        await asyncio.sleep(0)
        return True if statement == TRUE else None

    judge = TestJudge(slow_rule)
    request = JudgeRequest("verify", "p", {"statement": antonym(TRUE, 1), "context": ""})
    assert judge.complete_sync(request).text.startswith("NO.")
    request = JudgeRequest("verify", "p", {"statement": "other", "context": ""})
    assert asyncio.run(judge.complete(request)).text.startswith("NOT SURE.")
    assert judge.calls == 2


def test_unknown_tasks_and_malformed_inputs_are_request_errors():
    judge = TestJudge()
    with pytest.raises(JudgeRequestError, match="unknown task 'triples'"):
        judge.complete_sync(JudgeRequest("triples", "p", {}))
    with pytest.raises(JudgeRequestError, match="lack 'statement'"):
        judge.complete_sync(JudgeRequest("verify", "p", {"context": ""}))


def test_the_test_spec_builds_a_test_judge_with_the_word_rule():
    judge = make_judge("test")
    assert isinstance(judge, TestJudge) and judge.name == "test"
    assert words_in_context("The library opens.", "the library opens daily") is Label.YES
    assert words_in_context("The pool opens.", "the library opens daily") is Label.NOT_SURE
