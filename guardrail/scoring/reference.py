"""Reference-based RAG hallucination metrics: judge claims against references *and* a target.

From the RAG Hallucination evaluation description (shared/seeds/004, after RAGChecker, Ru et
al. 2024). Each claim of the response is checked twice with the ``verify`` task: against the
retrieved references ("supported") and against the ground-truth target answer ("correct").
A claim counts as supported/correct only on a ``YES`` verdict; ``NO`` and ``NOT SURE`` do not.

====================  ===========================================================
metric                fraction of the response's claims that are ...
====================  ===========================================================
``hallucination``     neither supported by the references nor correct (the metric)
``faithfulness``      supported by the references (correct or not)
``noise_sensitivity`` supported by the references but not correct — the references
                      misled the model (an attribution error, not a hallucination)
``self_knowledge``    not supported but correct — the model used its own knowledge
====================  ===========================================================

The seed checks correctness only for unsupported claims; we check every claim against the
target because noise sensitivity needs the correctness of supported claims too. With no
claims, every fraction is 0.0 except ``faithfulness``, which is 1.0 (nothing unfaithful was
said); ``n_claims`` says so. Every call goes through :class:`~guardrail.judges.runner.JudgeRunner`
and is returned; a call that fails for good raises :class:`~guardrail.exceptions.ScoringError`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from guardrail.judges.base import DECOMPOSE, VERIFY, Judge, JudgeRequest
from guardrail.judges.runner import JudgeRunner, RetryPolicy
from guardrail.models import JudgeCall, Label, Usage
from guardrail.scoring.base import CallLog, with_parse_failure
from guardrail.scoring.parsing import parse_statements, parse_verdict
from guardrail.scoring.stages import request as stage_request
from guardrail.scoring.stages import run_stage
from guardrail.scoring.templates import PromptSet


class ClaimCheck(BaseModel):
    """One response claim and its two verdicts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    claim: str
    references: Label = Field(description="verdict against the retrieved references")
    target: Label = Field(description="verdict against the target answer")

    @property
    def supported(self) -> bool:
        return self.references == Label.YES

    @property
    def correct(self) -> bool:
        return self.target == Label.YES


class ReferenceResult(BaseModel):
    """The four fractions, the per-claim checks behind them, and what the judging cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    claims: list[ClaimCheck] = Field(default_factory=list)
    hallucination: float = Field(ge=0.0, le=1.0)
    faithfulness: float = Field(ge=0.0, le=1.0)
    noise_sensitivity: float = Field(ge=0.0, le=1.0)
    self_knowledge: float = Field(ge=0.0, le=1.0)
    usage: Usage = Field(default_factory=Usage)
    calls: list[JudgeCall] = Field(default_factory=list)

    @classmethod
    def from_checks(
        cls, checks: list[ClaimCheck], calls: list[JudgeCall], usage: Usage
    ) -> ReferenceResult:
        n = len(checks)

        def share(pred: list[bool]) -> float:
            return sum(pred) / n if n else 0.0

        return cls(
            claims=checks,
            hallucination=share([not c.supported and not c.correct for c in checks]),
            faithfulness=share([c.supported for c in checks]) if n else 1.0,
            noise_sensitivity=share([c.supported and not c.correct for c in checks]),
            self_knowledge=share([not c.supported and c.correct for c in checks]),
            usage=usage,
            calls=calls,
        )

    def summary(self) -> dict[str, float | int]:
        return {
            "hallucination": self.hallucination,
            "faithfulness": self.faithfulness,
            "noise_sensitivity": self.noise_sensitivity,
            "self_knowledge": self.self_knowledge,
            "n_claims": len(self.claims),
            "judge_calls": self.usage.judge_calls,
        }


class ReferenceMetric:
    """Computes :class:`ReferenceResult` for one response with one judge.

    Uses the ``decompose`` and ``verify`` prompts of ``prompts`` (MetaRAG's by default), so every
    judge that serves MetaRAG — including the offline one — serves this metric too.
    """

    def __init__(
        self,
        judge: Judge,
        *,
        prompts: PromptSet | None = None,
        runner: JudgeRunner | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.judge = judge
        self.prompts = prompts or PromptSet.builtin("metarag_v1").fenced()
        self.runner = runner or JudgeRunner(judge, retry or RetryPolicy())

    async def evaluate(
        self,
        question: str,
        answer: str,
        references: Sequence[str],
        target: str,
        *,
        claims: Sequence[str] | None = None,
    ) -> ReferenceResult:
        """Judge ``claims`` (decomposed from ``answer`` when not given)."""
        started = time.perf_counter()
        log = CallLog()
        if claims is None:
            claims = await self._decompose(question, answer, log)
        claims = [c for c in claims if c.strip()]
        refs = [r for r in references if r.strip()]
        jobs = [self._verify(c, refs, log) for c in claims]
        jobs += [self._verify(c, [target] if target.strip() else [], log) for c in claims]
        verdicts = await run_stage(
            log, "reference metric", VERIFY, jobs, unrecorded=lambda v: [v[1]] if v[1] else []
        )
        labels: list[Label] = []
        for label, call in verdicts:
            labels.append(label)
            if call is not None:
                log.record(call)
        n = len(claims)
        checks = [
            ClaimCheck(claim=c, references=labels[i], target=labels[n + i])
            for i, c in enumerate(claims)
        ]
        return ReferenceResult.from_checks(checks, log.calls, log.usage(started))

    async def summary(
        self,
        question: str,
        answer: str,
        references: Sequence[str],
        target: str,
        *,
        claims: Sequence[str] | None = None,
    ) -> dict[str, float | int]:
        """The figures only — what ``guardrail eval`` stores per row."""
        result = await self.evaluate(question, answer, references, target, claims=claims)
        return result.summary()

    async def _decompose(self, question: str, answer: str, log: CallLog) -> list[str]:
        if not answer.strip():
            return []
        request = JudgeRequest(
            task=DECOMPOSE,
            prompt=self.prompts.render(DECOMPOSE, inputText=answer),
            system=self.prompts.system,
            inputs={"text": answer, "question": question},
        )
        [(response, call)] = await run_stage(
            log,
            "reference metric",
            DECOMPOSE,
            [stage_request(log, self.runner, DECOMPOSE, request)],
            unrecorded=lambda reply: [reply[1]],
        )
        items, failure = parse_statements(response.text)
        log.record(call, failure)
        return items

    async def _verify(
        self, claim: str, passages: list[str], log: CallLog
    ) -> tuple[Label, JudgeCall | None]:
        """One verdict; no passages means nothing can support the claim (no call is made)."""
        if not passages:
            return Label.NOT_SURE, None
        context = "\n\n".join(passages)
        request = JudgeRequest(
            task=VERIFY,
            prompt=self.prompts.render(VERIFY, context=context, statement=claim),
            system=self.prompts.system,
            inputs={"statement": claim, "context": context, "passages": list(passages)},
        )
        response, call = await stage_request(log, self.runner, VERIFY, request)
        label, _reason, failure = parse_verdict(response.text)
        return label, with_parse_failure(call, failure)
