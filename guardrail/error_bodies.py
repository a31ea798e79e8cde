"""A short, redacted summary of an HTTP error body from a judge's API or the proxy's upstream.

Servers put anything in their error bodies: some echo the request's headers (the API key with
them), some the prompt (a user's question, a retrieved passage, an answer). Such a body must
reach neither a client's reply, nor an audit record, nor a span attribute, whatever the
policy's redaction setting. So no free text of a body is ever kept; the summary holds only:

* the error's ``type``, ``code`` and ``param`` (OpenAI's and Anthropic's error shapes) when
  each is a plain identifier (letters, digits, ``_ . -``, at most 64 characters);
* which of a closed list of request fields (:data:`FIELDS`) the body's text mentions, so a
  caller can still tell "the server refused ``response_format``" without reading the text.

A body with none of these is summarised as "no details kept".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FIELDS", "ErrorSummary", "summarise"]

#: Request fields a summary may say the error mentions.
FIELDS = (
    "response_format",
    "max_tokens",
    "temperature",
    "tools",
    "tool_choice",
    "stream",
    "model",
    "messages",
)
_IDENTIFIER = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
_MENTION_SCAN_CHARS = 4096


@dataclass(frozen=True)
class ErrorSummary:
    """What may be said about an error body (see the module docstring)."""

    type: str | None = None
    code: str | None = None
    param: str | None = None
    mentions: tuple[str, ...] = ()

    def __str__(self) -> str:
        parts = [f"{name} {value}" for name, value in self.fields() if value is not None]
        if self.mentions:
            parts.append(f"mentions {', '.join(self.mentions)}")
        return "; ".join(parts) if parts else "no details kept"

    def fields(self) -> tuple[tuple[str, str | None], ...]:
        return (("type", self.type), ("code", self.code), ("param", self.param))


def _identifier(value: object) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str) and _IDENTIFIER.fullmatch(value):
        return value
    return None


def summarise(body: object, text: str = "") -> ErrorSummary:
    """The summary of an error ``body`` (parsed JSON, or ``None``) and its raw ``text``."""
    inner = body.get("error") if isinstance(body, dict) else None
    source = inner if isinstance(inner, dict) else body if isinstance(body, dict) else {}
    kind = _identifier(source.get("type"))
    head = text[:_MENTION_SCAN_CHARS]
    if isinstance(inner, dict) and isinstance(inner.get("message"), str):
        head += " " + inner["message"][:_MENTION_SCAN_CHARS]
    mentions = tuple(f for f in FIELDS if f in head)
    return ErrorSummary(
        type=kind,
        code=_identifier(source.get("code")),
        param=_identifier(source.get("param")),
        mentions=mentions,
    )
