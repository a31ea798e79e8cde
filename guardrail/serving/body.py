"""Reading a JSON request body cheaply and safely, before any model validation.

The body-size cap (:class:`~guardrail.serving.limits.GuardGate`) bounds the bytes, but not what
they describe: 4 MB of ``[1,1,1,...]`` is two million list items, and parsing then validating
them took half a minute and gigabytes. :func:`precheck_json` counts a body's strings, values
and containers in a few linear byte scans (``bytes.count`` and one regular expression that
matches only string literals) and refuses a body with more than a request can legitimately
hold *before* it is parsed; :func:`parse_json` then parses it and turns every parser failure —
invalid UTF-8, deep nesting, a 5,000-digit number — into one :class:`BodyError`.

Both are plain functions, so any JSON endpoint (the check API, a proxy in front of a chatbot)
can use them with its own :class:`JsonShape`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["BodyError", "JsonShape", "parse_json", "precheck_json"]

#: One JSON string literal, escapes included (the "unrolled loop" form: linear, no backtracking).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


class BodyError(ValueError):
    """A body refused before validation; ``status`` is 413 (too many parts) or 422 (malformed)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass(frozen=True)
class JsonShape:
    """The most a valid body can hold: string literals, values (items and members) and
    containers (objects and arrays). ``what`` names the limit that bounds them, for the 413."""

    max_strings: int
    max_values: int
    max_containers: int
    what: str = "items"


def precheck_json(raw: bytes, shape: JsonShape) -> None:
    """Raise :class:`BodyError` when ``raw`` holds more than ``shape`` allows (linear time)."""
    quotes = raw.count(b'"') - raw.count(b'\\"')  # escaped quotes do not delimit strings
    if quotes // 2 > shape.max_strings:
        raise BodyError(413, f"more than {shape.max_strings} strings in the body ({shape.what})")
    outside = _STRING.sub(b'""', raw)  # at most max_strings matches
    values = outside.count(b",") + 1
    if values > shape.max_values:
        raise BodyError(413, f"more than {shape.max_values} values in the body ({shape.what})")
    containers = outside.count(b"[") + outside.count(b"{")
    if containers > shape.max_containers:
        raise BodyError(
            422, f"more than {shape.max_containers} objects or arrays (nested too deep?)"
        )


def parse_json(raw: bytes) -> Any:
    """``json.loads`` with every failure as a :class:`BodyError` (422) of one line."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise BodyError(422, "JSON nested too deeply") from None
    except UnicodeDecodeError as exc:
        raise BodyError(422, f"body is not UTF-8 JSON (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise BodyError(422, f"invalid JSON: {exc.msg} at byte {exc.pos}") from None
    except ValueError as exc:  # e.g. an integer literal longer than Python converts
        raise BodyError(422, f"invalid JSON: {str(exc).splitlines()[0][:200]}") from None
