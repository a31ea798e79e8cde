"""The audit record: one JSON object per line of the audit log.

The schema is the privacy guarantee. Every model here is ``extra="forbid"``, so a field that
is not declared below — a user id, an age, a postcode, any protected attribute — cannot be
put into a record, by a caller or by a future refactor, without changing this file and its
tests. Free text the user or the model produced (question, answers, factoid texts, reviewer
notes) is *redactable*: ``"hash"`` keeps only a sha256 hex digest, so an auditor holding a
known text can still prove it was (or was not) logged; ``"drop"`` keeps nothing.

``seq``, ``prev_hash`` and ``hash`` are left empty here and filled by
:class:`guardrail.audit.log.AuditLog` when the record is appended, because they depend on the
log's state, not on the turn.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from guardrail.models import (
    ActionName,
    Decision,
    EscalationCase,
    GuardResult,
    JudgeCall,
    ReportStatus,
    ReviewOutcome,
    ScoreReport,
    Span,
    TopicLabel,
    TurnLanguages,
    Usage,
)

TextRedaction = Literal["none", "hash", "drop"]
RecordKind = Literal["turn", "resolution", "event"]
#: ``event_name`` of a turn record rebuilt from its review case after a crash.
RECOVERED_TURN = "turn_recovered"

#: Strength order: applying a weaker redaction to a record never un-redacts it.
_STRENGTH: dict[str, int] = {"none": 0, "hash": 1, "drop": 2}


def text_hash(text: str) -> str:
    """The digest stored for ``text`` under ``"hash"`` redaction (sha256 of its UTF-8 bytes).

    Unsalted on purpose, so anyone holding the original text can match it. That also means a
    short or guessable text can be recovered by trying candidates: use ``"drop"`` for those.
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def redact_text(text: str | None, mode: TextRedaction) -> str | None:
    """Apply one redaction mode to one text; ``None`` stays ``None``."""
    if text is None or mode == "none":
        return text
    if mode == "hash":
        return text_hash(text)
    return None


def utc_now_iso() -> str:
    """Now, as ISO 8601 UTC with a ``Z`` suffix (the format every record uses)."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


class _AuditModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class FactoidEntry(_AuditModel):
    """One factoid as the audit log keeps it: no variants or verdicts, only the outcome."""

    index: int
    text: str | None = Field(description="the claim; a sha256 hex or null when redacted")
    score: float = Field(ge=0.0, le=1.0)
    spans: list[Span] = Field(default_factory=list)
    focus: list[Span] = Field(
        default_factory=list, description="the words within spans the localizer pointed at"
    )
    flagged: bool = False
    conflicts: list[str] = Field(
        default_factory=list,
        description="values the context states differently, as the verifier named them "
        "(e.g. 'context says Warsaw, not Vienna'); redacted like the text",
    )


class ResolvedEntry(_AuditModel):
    """A statement the answer was read as, with its question ("Yes" -> "Pregnant women can
    take ibuprofen."): what was decomposed in the bare answer's place."""

    text: str | None = Field(description="the statement; a sha256 hex or null when redacted")
    spans: list[Span] = Field(default_factory=list, description="the answer words it stands for")
    rule: str


class Resolution(_AuditModel):
    """A reviewer's outcome for one escalated case (``kind="resolution"`` records)."""

    case_id: str = Field(description="the escalated turn's audit id")
    reviewer: str
    outcome: ReviewOutcome
    final_answer: str | None = Field(default=None, description="redactable")
    note: str | None = Field(default=None, description="redactable: free text may quote the answer")


class AuditRecord(_AuditModel):
    """One line of the audit log.

    Build one with :meth:`from_result` (a guarded turn), :meth:`resolution` (a reviewer's
    outcome) or :meth:`event` (an operational event). The resolution payload is stored under
    the JSON key ``"resolution"`` and read as ``record.review`` in Python, because the name
    ``resolution`` belongs to the constructor.
    """

    model_config = ConfigDict(populate_by_name=True)

    kind: RecordKind
    audit_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    seq: int | None = Field(default=None, ge=1, description="1-based line number; set on append")
    time: str = Field(default_factory=utc_now_iso, description="ISO 8601 UTC")
    policy: str = ""
    policy_hash: str = ""
    event_name: str | None = Field(default=None, description="what happened (kind='event')")
    topics: list[TopicLabel] = Field(default_factory=list)
    languages: TurnLanguages | None = Field(
        default=None, description="the turn's languages (language codes only, no text)"
    )
    score: float | None = Field(default=None, description="response score; null if not scored")
    threshold: float | None = None
    status: ReportStatus | None = Field(
        default=None, description="how scoring ended (ok, unverifiable, abstained, ...)"
    )
    resolved: list[ResolvedEntry] = Field(
        default_factory=list,
        description="the statements an answer that leans on its question was read as",
    )
    factoids: list[FactoidEntry] = Field(default_factory=list)
    flagged_spans: list[Span] = Field(default_factory=list)
    decision: Decision | None = None
    actions: list[ActionName] = Field(default_factory=list)
    attempts: int = Field(default=1, description="answers scored, counting regenerations")
    judge_calls: list[JudgeCall] = Field(default_factory=list)
    usage: Usage | None = None
    error: str | None = None
    question: str | None = None
    answer: str | None = Field(default=None, description="the answer as first generated")
    final_answer: str | None = Field(default=None, description="the text shown to the user")
    text_redaction: TextRedaction = "none"
    review: Resolution | None = Field(default=None, alias="resolution")
    prev_hash: str | None = None
    hash: str | None = None

    @field_validator("time")
    @classmethod
    def _utc_iso(cls, value: str) -> str:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValueError(f"time must be ISO 8601, got {value!r}") from exc
        if parsed.utcoffset() is None or parsed.utcoffset() != timezone.utc.utcoffset(None):
            raise ValueError(f"time must be UTC, got {value!r}")
        return value

    # --- constructors -------------------------------------------------------------------------

    @classmethod
    def from_result(
        cls,
        result: GuardResult,
        *,
        policy_hash: str,
        redaction: TextRedaction = "none",
        error: str | None = None,
        calls: Sequence[JudgeCall] | None = None,
    ) -> AuditRecord:
        """The record of one guarded turn. ``error`` defaults to the decision's error;
        ``calls`` (every judge call of the turn, across regenerations) to the report's own.

        Retrieved contexts are deliberately not recorded: they can be large and hold data the
        turn never surfaced; the answer's flagged spans and factoid scores say what mattered.
        """
        report = result.report
        decision = result.decision
        record = cls(
            kind="turn",
            audit_id=result.audit_id,
            policy=result.policy,
            policy_hash=policy_hash,
            topics=list(result.topics),
            languages=decision.languages,
            score=decision.score,
            threshold=decision.threshold,
            status=report.status if report else None,
            resolved=_resolved_entries(report),
            factoids=_factoid_entries(report),
            flagged_spans=list(report.flagged_spans) if report else [],
            decision=decision,
            actions=list(decision.actions),
            attempts=result.attempts,
            judge_calls=list(calls) if calls is not None else list(report.calls if report else []),
            usage=report.usage if report else None,
            error=error if error is not None else decision.error,
            question=result.question,
            answer=result.original_answer,
            final_answer=result.answer,
        )
        return record.redacted(redaction)

    @classmethod
    def recovered_turn(
        cls, case: EscalationCase, *, policy_hash: str = "", redaction: TextRedaction = "none"
    ) -> AuditRecord:
        """The record of a turn rebuilt from its review case, when the process died between
        escalating the turn and writing its record (``event_name="turn_recovered"``). What the
        case does not hold is missing: the judge calls, the usage and the final answer."""
        report = case.report
        decision = case.decision
        record = cls(
            kind="turn",
            audit_id=case.case_id,
            event_name=RECOVERED_TURN,
            policy=case.policy,
            policy_hash=policy_hash,
            topics=list(case.topics),
            languages=decision.languages,
            score=decision.score,
            threshold=decision.threshold,
            status=report.status if report else None,
            resolved=_resolved_entries(report),
            factoids=_factoid_entries(report),
            flagged_spans=list(report.flagged_spans) if report else [],
            decision=decision,
            actions=list(decision.actions),
            error=decision.error,
            question=case.question,
            answer=case.answer,
        )
        return record.redacted(redaction)

    @classmethod
    def resolution(
        cls,
        case_id: str,
        reviewer: str,
        outcome: ReviewOutcome,
        final_answer: str | None = None,
        note: str | None = None,
        *,
        policy: str = "",
        redaction: TextRedaction = "none",
    ) -> AuditRecord:
        """The record of a reviewer closing an escalated case (``case_id`` = the turn's id)."""
        record = cls(
            kind="resolution",
            policy=policy,
            review=Resolution(
                case_id=case_id,
                reviewer=reviewer,
                outcome=outcome,
                final_answer=final_answer,
                note=note,
            ),
        )
        return record.redacted(redaction)

    @classmethod
    def event(
        cls,
        name: str,
        *,
        policy: str = "",
        policy_hash: str = "",
        error: str | None = None,
    ) -> AuditRecord:
        """An operational event (policy loaded, guard started, ...) with no user text in it."""
        return cls(
            kind="event", event_name=name, policy=policy, policy_hash=policy_hash, error=error
        )

    # --- transforms ---------------------------------------------------------------------------

    def redacted(self, mode: TextRedaction) -> AuditRecord:
        """This record with its free text redacted to at least ``mode``.

        Redaction only ever gets stronger: a ``"hash"`` record asked for ``"none"`` stays
        hashed, and asked for ``"drop"`` loses its hashes too.
        """
        if _STRENGTH[mode] <= _STRENGTH[self.text_redaction]:
            return self
        update: dict[str, Any] = {
            "text_redaction": mode,
            "question": redact_text(self.question, mode),
            "answer": redact_text(self.answer, mode),
            "final_answer": redact_text(self.final_answer, mode),
            "resolved": [
                r.model_copy(update={"text": redact_text(r.text, mode)}) for r in self.resolved
            ],
            "factoids": [
                f.model_copy(
                    update={
                        "text": redact_text(f.text, mode),
                        "conflicts": [
                            r for c in f.conflicts if (r := redact_text(c, mode)) is not None
                        ],
                    }
                )
                for f in self.factoids
            ],
        }
        if self.review is not None:
            update["review"] = self.review.model_copy(
                update={
                    "final_answer": redact_text(self.review.final_answer, mode),
                    "note": redact_text(self.review.note, mode),
                }
            )
        return self.model_copy(update=update)

    def to_json_dict(self) -> dict[str, Any]:
        """The record as the JSON object written to the log (JSON key names, all fields)."""
        return self.model_dump(mode="json", by_alias=True)


def _factoid_entries(report: ScoreReport | None) -> list[FactoidEntry]:
    """The report's factoids as the audit record keeps them (no variants or verdicts)."""
    return [
        FactoidEntry(
            index=f.index,
            text=f.text,
            score=f.score,
            spans=list(f.spans),
            focus=list(f.focus),
            flagged=f.flagged,
            conflicts=f.conflicts(),
        )
        for f in (report.factoids if report else [])
    ]


def _resolved_entries(report: ScoreReport | None) -> list[ResolvedEntry]:
    return [
        ResolvedEntry(text=r.text, spans=list(r.spans), rule=r.rule)
        for r in (report.resolved if report else [])
    ]
