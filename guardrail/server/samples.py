"""A realistic escalated case, for the review page's screenshot, demos and tests.

The report is hand-written in the exact shape the MetaRAG scorer produces (factoids with answer
spans, synonym/antonym variants, verifier verdicts, judge calls), so the page can be shown and
tested without an LLM. It is sample data, clearly named so, not a scorer.
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


def _span(text: str) -> Span:
    start = ANSWER.index(text)
    return (start, start + len(text))


def _variant(relation: Relation, text: str, labels: tuple[Label, Label], penalty: float) -> Variant:
    reasons = {
        Label.YES: "The context states this.",
        Label.NO: "The context says otherwise.",
        Label.NOT_SURE: "The context does not say.",
    }
    pairs = zip(JUDGES, labels, strict=True)
    verdicts = [Verdict(judge=j, label=lab, reason=reasons[lab]) for j, lab in pairs]
    combined = labels[0] if labels[0] == labels[1] else Label.NOT_SURE
    return Variant(relation=relation, text=text, verdicts=verdicts, label=combined, penalty=penalty)


def _factoids() -> list[Factoid]:
    y, n, u = Label.YES, Label.NO, Label.NOT_SURE
    syn, ant = Relation.SYNONYM, Relation.ANTONYM
    first = "Adults can take up to 8 grams of paracetamol per day."
    second = "The maximum single dose is 1 gram."
    third = "It is safe to combine paracetamol with alcohol."
    return [
        Factoid(
            index=0,
            text=first,
            spans=[_span(first)],
            aligned=True,
            alignment=1.0,
            score=0.92,
            flagged=True,
            evidence=["Do not take more than 4 g in 24 hours."],
            variants=[
                _variant(syn, "An adult may use as much as 8 g of paracetamol daily.", (n, n), 1.0),
                _variant(ant, "Adults must not take 8 grams of paracetamol a day.", (y, y), 1.0),
                _variant(syn, "Up to eight grams a day is fine for adults.", (n, u), 0.75),
            ],
        ),
        Factoid(
            index=1,
            text=second,
            spans=[_span(second)],
            aligned=True,
            alignment=1.0,
            score=0.08,
            variants=[
                _variant(syn, "One dose should not exceed 1 g.", (y, y), 0.0),
                _variant(ant, "A single dose may be larger than 1 gram.", (n, n), 0.0),
                _variant(syn, "Each dose tops out at one gram.", (y, u), 0.25),
            ],
        ),
        Factoid(
            index=2,
            text=third,
            spans=[_span(third)],
            aligned=True,
            alignment=1.0,
            score=0.81,
            flagged=True,
            variants=[
                _variant(syn, "Paracetamol and alcohol can safely be taken together.", (n, n), 1.0),
                _variant(ant, "Combining paracetamol with alcohol is risky.", (y, u), 0.5),
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
        threshold=0.5,
        flagged=True,
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
            reason=f"score 0.92 >= 0.50 on sensitive topic {queue!r}",
        ),
        report=report,
    )
