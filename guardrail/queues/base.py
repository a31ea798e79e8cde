"""The sink protocol: one async method that durably accepts an escalated case.

``send`` must be idempotent on ``case.case_id`` (the audit id): sending the same case twice
leaves one case. It raises :class:`~guardrail.exceptions.EscalationError` when the case could
not be accepted, so the guard can fall back and record it — a case is never silently dropped.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from guardrail.models import EscalationCase


@runtime_checkable
class EscalationSink(Protocol):
    @property
    def name(self) -> str: ...

    async def send(self, case: EscalationCase) -> None: ...
