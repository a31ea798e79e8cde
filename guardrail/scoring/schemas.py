"""JSON Schemas of MetaRAG's judge replies, for structured output.

With ``structured_output: auto`` (the default) every MetaRAG request carries the schema of
its reply (:attr:`~guardrail.judges.base.JudgeRequest.schema`); a judge that can constrain its
output to a schema does so, and a small model's reply then parses by construction. Each
schema's root is an object (the OpenAI API requires it), every property is required and no
other is allowed (its strict mode requires that too). The parsers in
:mod:`guardrail.scoring.parsing` read these shapes as well as the prompts' text formats.
"""

from __future__ import annotations

from typing import Any

from guardrail.judges.base import ANTONYM, DECOMPOSE, MUTATE_ALL, SYNONYM, VERIFY, VERIFY_BATCH

_STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
_LABEL: dict[str, Any] = {"type": "string", "enum": ["YES", "NO", "NOT SURE"]}


def _object(**properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


_VERDICT = _object(verdict=_LABEL, reason={"type": "string"})

#: Reply schema per task.
SCHEMAS: dict[str, dict[str, Any]] = {
    DECOMPOSE: _object(factoids=_STRINGS),
    SYNONYM: _object(variants=_STRINGS),
    ANTONYM: _object(variants=_STRINGS),
    MUTATE_ALL: _object(
        factoids={"type": "array", "items": _object(synonyms=_STRINGS, antonyms=_STRINGS)}
    ),
    VERIFY: _VERDICT,
    VERIFY_BATCH: _object(verdicts={"type": "array", "items": _VERDICT}),
}


def schema_for(task: str) -> dict[str, Any] | None:
    """The reply schema of ``task``, or ``None`` for a task without one."""
    return SCHEMAS.get(task)
