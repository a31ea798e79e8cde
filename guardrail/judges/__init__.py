"""Judges: the backends scorers call. See :mod:`guardrail.judges.base` for the protocol."""

from guardrail.judges.base import Judge, JudgeRequest, JudgeResponse
from guardrail.judges.runner import JudgeRunner, RetryPolicy
from guardrail.judges.scripted import ScriptedJudge

__all__ = ["Judge", "JudgeRequest", "JudgeResponse", "JudgeRunner", "RetryPolicy", "ScriptedJudge"]
