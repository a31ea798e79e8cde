"""Append reviewers' resolutions to the audit log (the queue's ``on_resolve`` hook)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from guardrail.audit.log import AuditLog
from guardrail.audit.record import AuditRecord

if TYPE_CHECKING:  # pragma: no cover
    from guardrail.queues.sqlite import CaseResolution


def record_resolutions(log: AuditLog) -> Callable[[CaseResolution], None]:
    """A hook for ``SQLiteQueue(on_resolve=...)``: one ``resolution`` record per decision.

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
