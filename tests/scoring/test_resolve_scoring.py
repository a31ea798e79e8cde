"""The resolution step inside the scorers: what the decomposer reads, what the report shows."""

from __future__ import annotations

from guardrail.judges.base import DECOMPOSE
from guardrail.models import Label
from guardrail.scoring.metarag import MetaRAG
from guardrail.scoring.rt4chart import RT4Chart
from guardrail.scoring.settings import MetaRAGConfig
from guardrail.scoring.templates import PromptSet
from guardrail.testing import TestJudge

QUESTION = "Can pregnant women take ibuprofen?"
CONTEXT = ["Ibuprofen is contraindicated in pregnancy."]


def contradicted(statement: str, context: str) -> Label:
    """Says NO to the one statement the tests make wrong, YES to everything else."""
    return Label.NO if statement == "Pregnant women can take ibuprofen." else Label.YES


def decompose_prompt(judge: TestJudge) -> str:
    return next(r.prompt for r in judge.requests if r.task == DECOMPOSE)


async def test_yes_is_scored_as_the_statement_it_makes() -> None:
    """ "Yes." to a yes/no question is verified as the question's statement, flagged when
    the context contradicts it, and the report lists the resolved statement on "Yes"."""
    judge = TestJudge(contradicted)
    report = await MetaRAG(judge).score(QUESTION, "Yes.", CONTEXT)
    assert [s.text for s in report.resolved] == ["Pregnant women can take ibuprofen."]
    assert report.resolved[0].rule == "yes_no" and report.resolved[0].spans == [(0, 3)]
    (factoid,) = report.factoids
    assert factoid.text == "Pregnant women can take ibuprofen."
    assert factoid.spans == [(0, 3)] and factoid.aligned
    assert report.flagged and report.score == 1.0 and report.flagged_spans == [(0, 3)]


async def test_the_faithful_no_passes() -> None:
    """ "No." resolves to the denied statement, which the (same) verifier does not reject."""
    report = await MetaRAG(TestJudge(contradicted)).score(QUESTION, "No.", CONTEXT)
    assert [f.text for f in report.factoids] == ["Pregnant women cannot take ibuprofen."]
    assert not report.flagged


async def test_the_paper_protocol_sends_prompt_a1_verbatim_with_the_resolved_text() -> None:
    """Under ``protocol: paper`` the decomposition prompt is A.1 as published, its input the
    resolved statement; the question is not added to it."""
    judge = TestJudge(contradicted)
    await MetaRAG(judge, prompts=PromptSet.builtin("metarag_v1")).score(QUESTION, "Yes.", CONTEXT)
    expected = PromptSet.builtin("metarag_v1").render(
        "decompose", inputText="Pregnant women can take ibuprofen."
    )
    assert decompose_prompt(judge) == expected


async def test_the_cheaper_protocols_give_the_decomposer_the_question() -> None:
    """Under ``protocol: answer`` the decomposition prompt carries the question, so an LLM can
    resolve what the rules could not."""
    judge = TestJudge(contradicted)
    scorer = MetaRAG(judge, config=MetaRAGConfig(protocol="answer"))
    await scorer.score(QUESTION, "Because of the risk.", CONTEXT)
    prompt = decompose_prompt(judge)
    assert QUESTION in prompt and "Because of the risk." in prompt


async def test_a_refusal_is_abstained_without_a_judge_call() -> None:
    """An answer that only declines is reported ``abstained``, score 0, no judge call."""
    judge = TestJudge(contradicted)
    report = await MetaRAG(judge).score(QUESTION, "I don't know.", CONTEXT)
    assert report.status == "abstained" and report.score == 0.0 and judge.calls == 0


async def test_an_answer_with_nothing_to_verify_is_unverifiable() -> None:
    """A non-empty answer that yields no statement is ``unverifiable`` (not a clean 0.0)."""
    judge = TestJudge(contradicted, decompose=lambda text: [])
    report = await MetaRAG(judge).score("", "Yes.", CONTEXT)
    assert report.status == "unverifiable" and not report.factoids


async def test_rt4chart_reads_the_resolved_sentence() -> None:
    """RT4CHART's claim extraction receives the resolved statement for the leaning sentence
    and reports it; the claim's span is the answer's sentence."""
    judge = TestJudge(contradicted)
    report = await RT4Chart(judge, localizer=None).score(QUESTION, "Yes.", CONTEXT)
    claims = [r for r in judge.requests if r.task == "claims"]
    assert [r.inputs["text"] for r in claims] == ["Pregnant women can take ibuprofen."]
    assert [s.text for s in report.resolved] == ["Pregnant women can take ibuprofen."]
    assert report.flagged and report.factoids[0].spans


async def test_rt4chart_abstains_and_reports_unverifiable() -> None:
    """RT4CHART shares the statuses: a refusal is abstained, an empty claim list unverifiable."""
    judge = TestJudge(contradicted, decompose=lambda text: [])
    scorer = RT4Chart(judge, localizer=None)
    assert (await scorer.score(QUESTION, "I can't answer that.", CONTEXT)).status == "abstained"
    assert (await scorer.score("", "Hello there!", CONTEXT)).status == "unverifiable"
