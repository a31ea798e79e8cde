"""Reading a request's ``inputs`` for the offline judge: a missing key is a malformed request
(a typo must not turn into a silent NOT SURE), while an empty or ``None`` value is empty text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from guardrail.exceptions import JudgeRequestError

#: The most variants one mutation request may ask for.
MAX_COUNT = 50


def text_of(inputs: Mapping[str, Any], key: str) -> str:
    """``inputs[key]`` as text (a list of texts is joined with blank lines)."""
    if key not in inputs:
        raise JudgeRequestError(f"local judge: request inputs lack {key!r}")
    value = inputs[key]
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "\n\n".join(str(v) for v in value if v is not None)
    return str(value)


def texts_of(inputs: Mapping[str, Any], key: str) -> list[str]:
    """``inputs[key]`` as a list of texts (a missing key or a non-list is a malformed request)."""
    if key not in inputs:
        raise JudgeRequestError(f"local judge: request inputs lack {key!r}")
    value = inputs[key]
    if not isinstance(value, (list, tuple)):
        raise JudgeRequestError(f"local judge: {key!r} must be a list of texts")
    return ["" if v is None else str(v) for v in value]


def count_of(inputs: Mapping[str, Any]) -> int:
    """``inputs["count"]`` (default 1), clamped to 0..:data:`MAX_COUNT`."""
    raw = inputs.get("count", 1)
    try:
        count = int(raw)
    except (TypeError, ValueError):
        raise JudgeRequestError(f"local judge: 'count' must be an integer, got {raw!r}") from None
    return max(0, min(count, MAX_COUNT))


def context_of(inputs: Mapping[str, Any]) -> str:
    """``context``, or when it is absent or blank, ``passages`` (at least one is needed)."""
    if "context" not in inputs and "passages" not in inputs:
        raise JudgeRequestError("local judge: request inputs lack 'context' (or 'passages')")
    context = text_of(inputs, "context") if "context" in inputs else ""
    if not context.strip() and "passages" in inputs:
        context = text_of(inputs, "passages")
    return context


def flat(lines: Sequence[str]) -> list[str]:
    """Each line with its white space runs made single spaces."""
    return [" ".join(line.split()) for line in lines]
