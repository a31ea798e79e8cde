"""A judge for tests that speaks every scorer protocol correctly, from one verdict rule.

:class:`TestJudge` answers each task the built-in scorers ask — MetaRAG's ``decompose``,
``synonym``, ``antonym`` and ``verify`` (the paper protocol), ``mutate_all`` and
``verify_batch`` (the factoid and answer protocols), RT4CHART's ``claims``, ``local_verify``
and ``global_verify`` — in the exact reply format each prompt asks for, so no parser ever
needs a fallback. What it *decides* comes from one rule you give: ``verdict(statement,
context)`` returns a :class:`~guardrail.models.Label` (or ``True`` = YES, ``False`` = NO,
``None`` = NOT SURE, or the label's text), and may be a plain or an ``async`` function.

How it answers:

* decompose / claims: the factoids ``decompose(text)`` returns (default: one per sentence);
* synonym *i* of a factoid ``F``: ``"F (restated i)"``; antonym *i*: ``"It is not true that
  F (i)"`` — distinct variants the judge recognises when asked to verify them;
* verify: the rule on the variant's factoid; an antonym gets the opposite label (YES <-> NO;
  NOT SURE stays), as a faithful verifier would give;
* RT4CHART: YES -> ENTAILED, NO -> CONTRADICTED, NOT SURE -> BASELESS, on the chunk (local)
  or the whole context (global).

It is a :class:`~guardrail.judges.scripted.ScriptedJudge`: it records ``requests`` and can
wait ``latency_s`` a call; ``complete`` serves async callers, ``complete_sync`` blocking ones.
A task it does not know is a :class:`~guardrail.exceptions.JudgeRequestError`.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from guardrail.exceptions import JudgeRequestError
from guardrail.judges.base import (
    ANTONYM,
    DECOMPOSE,
    MUTATE_ALL,
    SYNONYM,
    VERIFY,
    VERIFY_BATCH,
    JudgeRequest,
)
from guardrail.judges.scripted import ScriptedJudge
from guardrail.models import Label
from guardrail.text.sentences import split_sentences
from guardrail.text.tokens import content_keys

VerdictLike = Label | bool | str | None
#: ``verdict(statement, context)``: plain or async.
VerdictRule = Callable[[str, str], "VerdictLike | Awaitable[VerdictLike]"]
Decomposer = Callable[[str], Sequence[str]]

_NEGATION = "It is not true that "
_ANTONYM = re.compile(rf"^{_NEGATION}(?P<base>.*) \(\d+\)$", re.DOTALL)
_SYNONYM = re.compile(r"^(?P<base>.*) \(restated \d+\)$", re.DOTALL)
_OPPOSITE = {Label.YES: Label.NO, Label.NO: Label.YES, Label.NOT_SURE: Label.NOT_SURE}
_RT4CHART = {Label.YES: "ENTAILED", Label.NO: "CONTRADICTED", Label.NOT_SURE: "BASELESS"}
_REASONS = {
    Label.YES: "the context supports it",
    Label.NO: "the context contradicts it",
    Label.NOT_SURE: "the context does not say",
}


def words_in_context(statement: str, context: str) -> Label:
    """The default rule: YES when every content word of ``statement`` occurs in ``context``,
    else NOT SURE (it never answers NO)."""
    words = content_keys(statement)
    return Label.YES if words and words <= content_keys(context) else Label.NOT_SURE


def sentences(text: str) -> list[str]:
    """The default decomposition: one factoid per sentence."""
    return [text[s:e] for s, e in split_sentences(text, rules="plain")]


def synonym(factoid: str, i: int) -> str:
    """The test judge's ``i``-th (1-based) synonym of ``factoid``."""
    return f"{factoid} (restated {i})"


def antonym(factoid: str, i: int) -> str:
    """The test judge's ``i``-th (1-based) antonym of ``factoid``."""
    return f"{_NEGATION}{factoid} ({i})"


def source_of(statement: str) -> tuple[str, bool]:
    """The factoid a statement was made from, and whether it is an antonym (negated)."""
    if match := _ANTONYM.match(statement):
        return match["base"], True
    if match := _SYNONYM.match(statement):
        return match["base"], False
    return statement, False


def _label(value: VerdictLike) -> Label:
    if isinstance(value, Label):
        return value
    if value is None:
        return Label.NOT_SURE
    if isinstance(value, bool):
        return Label.YES if value else Label.NO
    return Label(" ".join(str(value).upper().replace("_", " ").split()))


class TestJudge(ScriptedJudge):
    """Answers every task of every scorer protocol; ``verdict`` decides what is supported."""

    __test__ = False  # a library class, not a pytest test class

    def __init__(
        self,
        verdict: VerdictRule = words_in_context,
        *,
        decompose: Decomposer = sentences,
        latency_s: float = 0.0,
        judge_name: str = "test",
    ) -> None:
        super().__init__(self._answer, latency_s=latency_s, judge_name=judge_name)
        self.verdict = verdict
        self.decompose = decompose

    async def judge(self, statement: str, context: str) -> Label:
        """The label a faithful verifier gives ``statement`` (an antonym: the opposite)."""
        base, negated = source_of(statement)
        out = self.verdict(base, context)
        if inspect.isawaitable(out):
            out = await out
        label = _label(out)
        return _OPPOSITE[label] if negated else label

    async def _answer(self, request: JudgeRequest) -> str:
        inputs = request.inputs
        task = request.task
        if task in (DECOMPOSE, "claims"):
            return json.dumps([str(f) for f in self.decompose(_text(inputs, "text"))])
        if task in (SYNONYM, ANTONYM):
            make = synonym if task == SYNONYM else antonym
            factoid = _text(inputs, "factoid")
            return "\n".join(make(factoid, i) for i in range(1, _count(inputs) + 1))
        if task == MUTATE_ALL:
            count = _count(inputs)
            factoids = _texts(inputs, "factoids")
            return json.dumps(
                {
                    str(n): {
                        "synonyms": [synonym(f, i) for i in range(1, count + 1)],
                        "antonyms": [antonym(f, i) for i in range(1, count + 1)],
                    }
                    for n, f in enumerate(factoids, start=1)
                }
            )
        if task == VERIFY:
            label = await self.judge(_text(inputs, "statement"), _text(inputs, "context"))
            return f"{label.value}. {_REASONS[label]}"
        if task == VERIFY_BATCH:
            context = _text(inputs, "context")
            lines = []
            for n, statement in enumerate(_texts(inputs, "statements"), start=1):
                label = await self.judge(statement, context)
                lines.append(f"{n}. {label.value}. {_REASONS[label]}")
            return "\n".join(lines)
        if task in ("local_verify", "global_verify"):
            label = await self.judge(_text(inputs, "claim"), _text(inputs, "context"))
            return f"{_RT4CHART[label]}. {_REASONS[label]}"
        raise JudgeRequestError(f"test judge: unknown task {task!r}")


def _text(inputs: Mapping[str, Any], key: str) -> str:
    if key not in inputs:
        raise JudgeRequestError(f"test judge: request inputs lack {key!r}")
    value = inputs[key]
    return "" if value is None else str(value)


def _texts(inputs: Mapping[str, Any], key: str) -> list[str]:
    value = inputs.get(key)
    if not isinstance(value, (list, tuple)):
        raise JudgeRequestError(f"test judge: {key!r} must be a list of texts")
    return [str(v) for v in value]


def _count(inputs: Mapping[str, Any]) -> int:
    try:
        return max(0, int(inputs.get("count", 1)))
    except (TypeError, ValueError):
        raise JudgeRequestError(f"test judge: bad count {inputs.get('count')!r}") from None
