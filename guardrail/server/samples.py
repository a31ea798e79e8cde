"""A realistic escalated case, for the review page's screenshot, demos and tests.

The verdicts are hand-written in the exact shape the MetaRAG scorer produces (factoids with
answer spans, synonym/antonym variants, verifier verdicts, judge calls), so the page can be shown
and tested without an LLM; penalties and scores come from the scorer's own rules
(:func:`~guardrail.scoring.metarag.combine` with ``mean_penalty``, the mean per factoid, the
maximum per answer). It is sample data, clearly named so, not a scorer.
"""

from __future__ import annotations

from guardrail.models import (
    Decision,
    EscalationCase,
    Factoid,
    JudgeCall,
    Label,
    Relation,
    ScoreReport,
    Span,
    TopicLabel,
    Usage,
    Variant,
    Verdict,
)
from guardrail.scoring.metarag import combine, factoid_score

__all__ = ["sample_case"]

QUESTION = "How much paracetamol can an adult take in a day, and can I drink alcohol with it?"
ANSWER = (
    "Adults can take up to 8 grams of paracetamol per day. The maximum single dose is 1 gram. "
    "It is safe to combine paracetamol with alcohol."
)
CONTEXTS = [
    "Paracetamol (acetaminophen) is used to treat pain and fever. For adults, the usual dose is "
    "500 mg to 1 g every 4 to 6 hours. Do not take more than 4 g in 24 hours.",
    "Drinking alcohol while taking paracetamol increases the risk of liver damage. People who "
    "drink heavily should talk to a doctor before using it.",
    "Paracetamol is sold without prescription in most countries.",
]
JUDGES = ("openai:gpt-4.1-mini", "anthropic:claude-haiku")
THRESHOLD = 0.5


def _span(text: str) -> Span:
    start = ANSWER.index(text)
    return (start, start + len(text))


def _variant(relation: Relation, text: str, labels: tuple[Label, Label]) -> Variant:
    reasons = {
        Label.YES: "The context states this.",
        Label.NO: "The context says otherwise.",
        Label.NOT_SURE: "The context does not say.",
    }
    pairs = zip(JUDGES, labels, strict=True)
    verdicts = [Verdict(judge=j, label=lab, reason=reasons[lab]) for j, lab in pairs]
    label, penalty = combine(relation, verdicts, "mean_penalty")
    return Variant(relation=relation, text=text, verdicts=verdicts, label=label, penalty=penalty)


def _factoid(
    index: int, text: str, variants: list[Variant], evidence: tuple[str, ...] = ()
) -> Factoid:
    score = factoid_score(variants)
    return Factoid(
        index=index,
        text=text,
        spans=[_span(text)],
        aligned=True,
        alignment=1.0,
        score=score,
        flagged=score >= THRESHOLD,
        evidence=list(evidence),
        variants=variants,
    )


def _factoids() -> list[Factoid]:
    y, n, u = Label.YES, Label.NO, Label.NOT_SURE
    syn, ant = Relation.SYNONYM, Relation.ANTONYM
    first = "Adults can take up to 8 grams of paracetamol per day."
    second = "The maximum single dose is 1 gram."
    third = "It is safe to combine paracetamol with alcohol."
    return [
        _factoid(
            0,
            first,
            [
                _variant(syn, "An adult may use as much as 8 g of paracetamol daily.", (n, n)),
                _variant(ant, "Adults must not take 8 grams of paracetamol a day.", (y, y)),
                _variant(syn, "Up to eight grams a day is fine for adults.", (n, u)),
            ],
            evidence=("Do not take more than 4 g in 24 hours.",),
        ),
        _factoid(
            1,
            second,
            [
                _variant(syn, "One dose should not exceed 1 g.", (y, y)),
                _variant(ant, "A single dose may be larger than 1 gram.", (n, n)),
                _variant(syn, "Each dose tops out at one gram.", (y, u)),
            ],
        ),
        _factoid(
            2,
            third,
            [
                _variant(syn, "Paracetamol and alcohol can safely be taken together.", (n, n)),
                _variant(ant, "Combining paracetamol with alcohol is risky.", (y, u)),
            ],
        ),
    ]


def _calls() -> list[JudgeCall]:
    calls = [JudgeCall(stage="decompose", judge=JUDGES[0], prompt_tokens=412, completion_tokens=61,
                       latency_s=0.84)]  # fmt: skip
    for stage, n, latency in (("synonym", 3, 0.61), ("antonym", 3, 0.58), ("verify", 16, 0.37)):
        for i in range(n):
            calls.append(
                JudgeCall(
                    stage=stage,
                    judge=JUDGES[i % 2],
                    prompt_tokens=180 + 20 * i,
                    completion_tokens=14 + i,
                    latency_s=latency + 0.05 * i,
                )
            )
    return calls


def sample_report() -> ScoreReport:
    """The sample case's MetaRAG report (two flagged factoids out of three)."""
    factoids = _factoids()
    calls = _calls()
    return ScoreReport(
        score=max(f.score for f in factoids),
        threshold=THRESHOLD,
        flagged=any(f.flagged for f in factoids),
        factoids=factoids,
        flagged_spans=[s for f in factoids if f.flagged for s in f.spans],
        usage=Usage.from_calls(calls, [], wall_seconds=2.9),
        calls=calls,
    )


def sample_case(case_id: str = "demo-0001", queue: str = "medical") -> EscalationCase:
    """An escalated medical answer with a wrong dose and an unsafe claim (topic = queue)."""
    report = sample_report()
    return EscalationCase(
        case_id=case_id,
        queue=queue,
        created_at="2025-03-14T09:26:53+00:00",
        policy="healthcare-strict",
        question=QUESTION,
        answer=ANSWER,
        contexts=list(CONTEXTS),
        topics=[TopicLabel(label=queue, confidence=0.97, sensitivity="sensitive")],
        decision=Decision(
            action="escalate",
            actions=["highlight", "escalate"],
            flagged=True,
            score=report.score,
            threshold=report.threshold,
            topic=queue,
            queue=queue,
            reason=(
                f"score {report.score:.2f} >= {report.threshold:.2f} on sensitive topic {queue!r}"
            ),
        ),
        report=report,
    )
