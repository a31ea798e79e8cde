"""A scripted judge: the test double users can import (also via :mod:`guardrail.testing`).

Give it a handler ``request -> str | JudgeResponse`` (sync or async) and it answers every call
with it, optionally after a fixed ``latency_s`` (to measure concurrency), counting its calls.
Async code awaits :meth:`ScriptedJudge.complete`; blocking code calls
:meth:`ScriptedJudge.complete_sync` — one judge for both, whichever kind the handler is.
:class:`~guardrail.judges.testkit.TestJudge` is a scripted judge whose handler already speaks
every scorer protocol.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import ClassVar

from guardrail._sync import run_sync
from guardrail.judges.base import JudgeRequest, JudgeResponse
from guardrail.registry import Capabilities

Handler = Callable[[JudgeRequest], "str | JudgeResponse | Awaitable[str | JudgeResponse]"]


@dataclass
class ScriptedJudge:
    """Answers from a handler; records every request in ``requests``."""

    #: Answers in-process: offline (a held stream may check sentences with it).
    capabilities: ClassVar[Capabilities] = Capabilities(offline=True)
    handler: Handler
    latency_s: float = 0.0
    judge_name: str = "scripted"
    requests: list[JudgeRequest] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.judge_name

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        self.requests.append(request)
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        out = self.handler(request)
        if inspect.isawaitable(out):
            out = await out
        if isinstance(out, JudgeResponse):
            return out
        text = str(out)
        return JudgeResponse(
            text=text,
            model=self.judge_name,
            prompt_tokens=len(request.prompt.split()),
            completion_tokens=len(text.split()),
        )

    def complete_sync(self, request: JudgeRequest) -> JudgeResponse:
        """Blocking :meth:`complete`, for code outside an event loop."""
        return run_sync(self.complete(request))

    @property
    def calls(self) -> int:
        return len(self.requests)
