"""A rule-based scripted judge for scorer tests: facts in ``TRUE`` are supported, facts in
``FALSE`` contradicted, everything else unknown."""

from __future__ import annotations

import json
from collections.abc import Iterable

from guardrail.judges.base import JudgeRequest
from guardrail.testing import ScriptedJudge


def fact_judge(
    factoids: list[str],
    true: Iterable[str] = (),
    false: Iterable[str] = (),
    *,
    latency_s: float = 0.0,
    name: str = "scripted",
) -> ScriptedJudge:
    """Decomposes into ``factoids``; synonym of X is "X (restated)."; antonym "NOT X."."""
    true_set, false_set = set(true), set(false)

    def handler(req: JudgeRequest) -> str:
        if req.task == "decompose":
            return json.dumps(factoids)
        if req.task == "synonym":
            return "\n".join(
                f"{req.inputs['factoid']} (restated {i})." for i in range(req.inputs["count"])
            )
        if req.task == "antonym":
            return "\n".join(
                f"NOT {req.inputs['factoid']} ({i})." for i in range(req.inputs["count"])
            )
        if req.task == "verify":
            statement: str = req.inputs["statement"]
            negated = statement.startswith("NOT ")
            base = next((f for f in factoids if f in statement), None)
            if base in true_set:
                return "NO. Contradicts the passage." if negated else "YES. Stated in the passage."
            if base in false_set:
                return "YES. The passage says the opposite." if negated else "NO. Contradicted."
            return "NOT SURE. The passage does not say."
        raise AssertionError(f"unexpected task {req.task}")

    return ScriptedJudge(handler, latency_s=latency_s, judge_name=name)
