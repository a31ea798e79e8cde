"""An OpenAI-compatible proxy that guards every chat completion (``guardrail proxy``).

Point any OpenAI client at the proxy instead of the model server: requests go upstream
unchanged (less the ``guardrail`` field), answers come back scored and, where the policy says
so, held, corrected, abstained or escalated. See ``docs/proxy.md``.
"""

from __future__ import annotations

from guardrail.proxy.app import ProxyState, create_proxy_app
from guardrail.proxy.request import ChatTurn, context_blocks, read_chat_request
from guardrail.proxy.upstream import Upstream, UpstreamError

__all__ = [
    "ChatTurn",
    "ProxyState",
    "Upstream",
    "UpstreamError",
    "context_blocks",
    "create_proxy_app",
    "read_chat_request",
]
