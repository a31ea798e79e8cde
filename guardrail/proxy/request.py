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

from guardrail.exceptions import ConfigError

__all__ = ["ChatTurn", "context_blocks", "read_chat_request"]

_OPEN, _CLOSE = "<context>", "</context>"
_SYSTEM_ROLES = ("system", "developer")


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
    """Split a request body into a :class:`ChatTurn`; ``ConfigError`` names what is wrong."""
    if not isinstance(body, dict):
        raise ConfigError("the request body must be a JSON object")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ConfigError("'messages' must be a non-empty list")
    if not all(isinstance(m, dict) for m in messages):
        raise ConfigError("every message must be an object")
    upstream = {k: v for k, v in body.items() if k != "guardrail"}
    extra = body.get("guardrail")
    contexts: list[str] | None = None
    if extra is not None:
        if not isinstance(extra, dict):
            raise ConfigError("'guardrail' must be an object such as {\"contexts\": [...]}")
        unknown = set(extra) - {"contexts"}
        if unknown:
            raise ConfigError(f"unknown 'guardrail' field(s): {', '.join(sorted(unknown))}")
        given = extra.get("contexts")
        if given is not None:
            if not isinstance(given, list) or not all(isinstance(c, str) for c in given):
                raise ConfigError("'guardrail.contexts' must be a list of strings")
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
        raise ConfigError("no user message with text: the guard needs the question")
    stream = body.get("stream") is True
    n = body.get("n", 1)
    choices = n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1
    return ChatTurn(question, contexts, upstream, stream, choices)
