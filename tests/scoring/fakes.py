"""A rule-based test judge for scorer tests: facts in ``TRUE`` are supported, facts in
``FALSE`` contradicted, everything else unknown."""

from __future__ import annotations

from collections.abc import Iterable

from guardrail.models import Label
from guardrail.testing import TestJudge


def fact_judge(
    factoids: list[str],
    true: Iterable[str] = (),
    false: Iterable[str] = (),
    *,
    latency_s: float = 0.0,
    name: str = "scripted",
) -> TestJudge:
    """Decomposes every answer into ``factoids``; a verifier that finds the facts in ``true``
    stated by the passages and those in ``false`` contradicted (the test judge's protocol)."""
    true_set, false_set = set(true), set(false)

    def verdict(statement: str, context: str) -> Label:
        if statement in true_set:
            return Label.YES
        return Label.NO if statement in false_set else Label.NOT_SURE

    return TestJudge(verdict, decompose=lambda text: factoids, latency_s=latency_s, judge_name=name)
