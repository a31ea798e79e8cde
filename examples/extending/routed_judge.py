"""A custom judge: the offline judge for the cheap stages, another judge for verification.

MetaRAG's decomposition and mutation stages cost many calls and little judgement; routing them
to the offline judge and only the verdicts to an LLM cuts the bill. Once this module is
imported, a policy or the CLI can name it as ``routed:<spec of the verifying judge>``::

    scorer: {judge: "routed:openai:gpt-4.1-mini"}

Run it (offline: the ``test`` judge stands in for the LLM)::

    python examples/extending/routed_judge.py
"""

from __future__ import annotations

from typing import Any

from guardrail.judges import Judge, JudgeRequest, JudgeResponse
from guardrail.judges.registry import make_judge, parse_spec, register_judge

VERDICT_TASKS = {"verify", "verify_batch", "local_verify", "global_verify"}


class RoutedJudge:
    """Sends verdict tasks to ``verifier`` and every other task to ``helper``."""

    def __init__(self, verifier: Judge, helper: Judge) -> None:
        self.verifier = verifier
        self.helper = helper

    @property
    def name(self) -> str:
        return f"routed:{self.verifier.name}"

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        judge = self.verifier if request.task in VERDICT_TASKS else self.helper
        return await judge.complete(request)


def routed(spec: str, **options: Any) -> RoutedJudge:
    """``routed:SPEC``: ``options`` go to the verifying judge."""
    return RoutedJudge(make_judge(spec, **options), make_judge("local"))


register_judge("routed", routed, check=parse_spec, usage="routed:SPEC")


if __name__ == "__main__":
    from guardrail.scoring.factory import build_scorer
    from guardrail.scoring.settings import MetaRAGSettings

    scorer = build_scorer(MetaRAGSettings(judge="routed:test"))
    report = scorer.score_sync(
        "When is the library open?",
        "The library is open on Saturdays. It is open on Sundays.",
        ["The city library is open on Saturdays from 10:00 to 14:00."],
    )
    print(f"score: {report.score:.2f} flagged: {report.flagged}")
    for stage, model in dict.fromkeys((call.stage, call.model) for call in report.calls):
        print(f"  {stage:<10} answered by {model}")
