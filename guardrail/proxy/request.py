"""Read a chat-completions request: the question, the retrieved contexts, the upstream body.

* **Question**: the last ``user`` message (its text parts joined by newlines).
* **Contexts**, in this order:

  1. the request field ``guardrail.contexts`` (a list of strings); with the ``openai`` SDK:
     ``extra_body={"guardrail": {"contexts": [...]}}``. The ``guardrail`` field is removed
     before the request goes upstream;
  2. failing that, every ``<context>...</context>`` block in the ``system`` (or
     ``developer``) messages, one passage per block. These messages go upstream unchanged:
     the model needs its context too.

Everything else — tools, tool and function results, ``n``, ``logprobs``, unknown fields — goes
upstream exactly as sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from guardrail.exceptions import RequestError
from guardrail.serving.body import JsonShape
from guardrail.serving.limits import RequestLimits

__all__ = ["ChatTurn", "chat_shape", "context_blocks", "read_chat_request"]

_OPEN, _CLOSE = "<context>", "</context>"
_SYSTEM_ROLES = ("system", "developer")


def chat_shape(limits: RequestLimits) -> JsonShape:
    """The most a chat request body may hold before it is parsed: messages, content parts,
    tools and their schemas are nested, so the bounds are generous multiples of the contexts
    a request may carry — what they stop is a body of millions of values or of nesting deep
    enough to exhaust the parser."""
    return JsonShape(
        max_strings=20 * limits.max_contexts + 20_000,
        max_values=20 * limits.max_contexts + 20_000,
        max_containers=5 * limits.max_contexts + 5_000,
        what=f"a chat request of at most {limits.max_contexts} contexts (--max-contexts)",
    )


def context_blocks(text: str) -> list[str]:
    """The body of every ``<context>...</context>`` block in ``text``, in order (a block ends
    at the first closing tag after its opening tag; an unclosed block is ignored).

    Two string searches per block, so one pass over ``text`` whatever it holds: a lazy regex
    would rescan the rest of the text from every unclosed opening tag (quadratic).
    """
    blocks: list[str] = []
    at = 0
    while (start := text.find(_OPEN, at)) >= 0:
        end = text.find(_CLOSE, start + len(_OPEN))
        if end < 0:
            break  # no closing tag after this one, so none after any later opening tag
        blocks.append(text[start + len(_OPEN) : end])
        at = end + len(_CLOSE)
    return blocks


@dataclass(frozen=True)
class ChatTurn:
    """What the guard needs from one request, and the body to send upstream."""

    question: str
    contexts: list[str]
    upstream_body: dict[str, Any]
    stream: bool
    choices: int


def _text(content: Any) -> str:
    """A message's text: a string, or the ``text`` parts of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p["text"]
            for p in content
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        ]
        return "\n".join(parts)
    return ""


def read_chat_request(body: Any) -> ChatTurn:
    """Split a request body into a :class:`ChatTurn`; ``RequestError`` (400) names what is
    wrong."""
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list")
    if not all(isinstance(m, dict) for m in messages):
        raise RequestError("every message must be an object")
    upstream = {k: v for k, v in body.items() if k != "guardrail"}
    extra = body.get("guardrail")
    contexts: list[str] | None = None
    if extra is not None:
        if not isinstance(extra, dict):
            raise RequestError("'guardrail' must be an object such as {\"contexts\": [...]}")
        unknown = set(extra) - {"contexts"}
        if unknown:
            raise RequestError(f"unknown 'guardrail' field(s): {', '.join(sorted(unknown))}")
        given = extra.get("contexts")
        if given is not None:
            if not isinstance(given, list) or not all(isinstance(c, str) for c in given):
                raise RequestError("'guardrail.contexts' must be a list of strings")
            contexts = list(given)
    if contexts is None:
        contexts = [
            block.strip()
            for m in messages
            if m.get("role") in _SYSTEM_ROLES
            for block in context_blocks(_text(m.get("content")))
            if block.strip()
        ]
    users = [m for m in messages if m.get("role") == "user"]
    question = _text(users[-1].get("content")) if users else ""
    if not question.strip():
        raise RequestError("no user message with text: the guard needs the question")
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise RequestError("'stream' must be true or false")
    n = body.get("n")
    if n is None:
        n = 1
    elif not isinstance(n, int) or isinstance(n, bool) or n < 1:
        # "n": 2.0 or "2" would slip past the one-choice rule of a stream
        raise RequestError("'n' must be a positive integer")
    choices = n
    stream = stream is True
    return ChatTurn(question, contexts, upstream, stream, choices)
