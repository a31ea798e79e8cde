"""Test doubles for the evaluation harness: a scorer with fixed answers, a rule-based judge."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from guardrail.exceptions import ScoringError
from guardrail.judges.base import JudgeRequest
from guardrail.models import Factoid, ScoreReport, Span, Usage
from guardrail.testing import ScriptedJudge


@dataclass
class FakeScorer:
    """Returns ``outputs[answer] = (score, spans)`` (default 0.0, no spans); counts calls.

    Answers in ``fail`` raise :class:`ScoringError`, like a scorer whose judge went down.
    """

    outputs: dict[str, tuple[float, list[Span]]] = field(default_factory=dict)
    fail: set[str] = field(default_factory=set)
    latency_s: float = 0.0
    calls: list[str] = field(default_factory=list)
    method: str = "fake"
    threshold: float = 0.5

    async def score(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
    ) -> ScoreReport:
        self.calls.append(answer)
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        if answer in self.fail:
            raise ScoringError("judge unavailable")
        tau = self.threshold if threshold is None else threshold
        score, spans = self.outputs.get(answer, (0.0, []))
        factoid = Factoid(
            index=0,
            text=answer,
            spans=spans,
            aligned=bool(spans),
            alignment=1.0 if spans else 0.0,
            score=score,
            flagged=score >= tau,
        )
        return ScoreReport(
            method=self.method,
            score=score,
            threshold=tau,
            flagged=score >= tau,
            factoids=[factoid],
            flagged_spans=spans if score >= tau else [],
            usage=Usage(judge_calls=3, prompt_tokens=100, completion_tokens=20, wall_seconds=0.5),
        )


NEGATION = "It is not true that "


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def substring_judge(latency_s: float = 0.0) -> ScriptedJudge:
    """Answers every RT4CHART and MetaRAG task: a claim is ENTAILED/YES iff its words (in
    order) occur in the context; each answer sentence is one claim."""

    def handler(req: JudgeRequest) -> str:
        if req.task in ("claims", "decompose"):
            return json.dumps([req.inputs["text"]])
        if req.task == "synonym":
            return "\n".join([req.inputs["factoid"]] * int(req.inputs["count"]))
        if req.task == "antonym":
            return "\n".join([NEGATION + req.inputs["factoid"]] * int(req.inputs["count"]))
        claim = req.inputs.get("claim") or req.inputs.get("statement", "")
        negated = claim.startswith(NEGATION)
        found = _norm(claim.removeprefix(NEGATION)) in _norm(req.inputs["context"])
        if req.task in ("local_verify", "global_verify"):
            return "ENTAILED. found" if found else "BASELESS. not found"
        if req.task == "verify":
            if not found:
                return "NOT SURE. not found"
            return "NO. the context says otherwise" if negated else "YES. found"
        raise AssertionError(f"unexpected task {req.task}")

    return ScriptedJudge(handler, latency_s=latency_s)
