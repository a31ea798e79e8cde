"""Append reviewers' resolutions to the audit log (the queue's ``on_resolve`` hook)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from guardrail.audit.record import AuditRecord
from guardrail.audit.trail import AuditTrail

if TYPE_CHECKING:  # pragma: no cover
    from guardrail.queues.review_queue import CaseResolution


def record_resolutions(log: AuditTrail) -> Callable[[CaseResolution], None]:
    """A hook for ``ReviewQueue(on_resolve=...)``: one ``resolution`` record per decision.

    The queue calls it inside the resolving transaction, so if the audit write fails the
    resolution is rolled back: the log never misses a resolution that happened.
    """

    def hook(resolution: CaseResolution) -> None:
        log.append(
            AuditRecord.resolution(
                resolution.case_id,
                resolution.reviewer,
                resolution.outcome,
                resolution.final_answer,
                resolution.note,
            )
        )

    return hook
