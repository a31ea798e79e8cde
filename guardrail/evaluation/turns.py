"""Logged turns to re-score: read from a guardrail audit log or from a chat-log JSON Lines file.

**Chat log** — one JSON object per line (extra keys are ignored)::

    {"id": "t1", "question": "...", "answer": "...", "contexts": ["passage", ...],
     "topic": "medical", "score": 0.7, "decision": "escalate"}

``question``, ``answer`` (strings) and ``contexts`` (a list of strings) are required; ``id``
defaults to ``line-N``; ``topic``, when it names a topic of the policy, selects that topic's
rule (otherwise the question is classified as the guard would); ``score`` and ``decision``
(an action name) are the old outcome to compare with, if the log has one.

**Audit log** — a file written by :class:`~guardrail.audit.log.AuditLog`, recognised by its
first record. Only ``kind="turn"`` records are turns; resolutions and events are skipped. An
audit record never holds the retrieved contexts (by design), and its question and answer may
be hashed or dropped (``text_redaction``). So a turn can be re-scored only with a *contexts
file* (``--contexts``): one JSON object per line, ``{"id": AUDIT_ID, "contexts": [...]}``,
plus ``"question"`` and ``"answer"`` for hashed records (their sha256 must equal the logged
digests). Turns that still lack something are kept, with the reason, as not re-scorable.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import ValidationError

from guardrail.audit.record import AuditRecord, text_hash
from guardrail.evaluation.datasets import json_lines
from guardrail.exceptions import ConfigError
from guardrail.models import ActionName
from guardrail.validation import error_line

LogKind = Literal["audit", "chat"]

NO_CONTEXTS = "the audit log does not record retrieved contexts; supply them with --contexts"


#: The decisions a chat log may name (the guard's action names).
ACTIONS: tuple[str, ...] = get_args(ActionName)


@dataclass(frozen=True)
class Turn:
    """One logged turn: what to score (when known), the old outcome, or why it cannot be."""

    id: str
    line: int
    question: str | None
    answer: str | None
    contexts: tuple[str, ...] = ()
    topic: str | None = None
    old_score: float | None = None
    old_action: str | None = None
    old_topic: str | None = None
    attempts: int = 1
    problem: str | None = None

    @property
    def rescorable(self) -> bool:
        return self.problem is None


@dataclass(frozen=True)
class ContextEntry:
    """One line of a contexts file."""

    contexts: tuple[str, ...]
    question: str | None = None
    answer: str | None = None


def _json_lines(path: Path, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line; errors name the line."""
    for number, obj in json_lines(path, what):
        if not isinstance(obj, dict):
            raise ConfigError(f"{path}:{number}: expected a JSON object, got {type(obj).__name__}")
        yield number, obj


def _text(obj: dict[str, Any], key: str, where: str, *, required: bool) -> str | None:
    value = obj.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where}: field {key!r} must be a string, got {value!r}")
    return value


def _passages(obj: dict[str, Any], where: str) -> tuple[str, ...]:
    value = obj.get("contexts")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: field 'contexts' must be a list of strings, got {value!r}")
    return tuple(value)


def log_kind(path: Path) -> LogKind:
    """``audit`` when the first record looks like an audit record, else ``chat``."""
    for _number, obj in _json_lines(path, "log"):
        return "audit" if "audit_id" in obj and "kind" in obj else "chat"
    raise ConfigError(f"{path}: the log has no records")


def load_contexts(path: Path) -> dict[str, ContextEntry]:
    """A contexts file: audit id to the turn's passages (and texts of hashed records)."""
    out: dict[str, ContextEntry] = {}
    for number, obj in _json_lines(path, "contexts file"):
        where = f"{path}:{number}"
        turn_id = _text(obj, "id", where, required=True)
        assert turn_id is not None
        if turn_id in out:
            raise ConfigError(f"{where}: duplicate id {turn_id!r}")
        out[turn_id] = ContextEntry(
            contexts=_passages(obj, where),
            question=_text(obj, "question", where, required=False),
            answer=_text(obj, "answer", where, required=False),
        )
    return out


def chat_turns(path: Path) -> list[Turn]:
    """Every line of a chat log as a turn (see the module docstring for the schema)."""
    turns: list[Turn] = []
    seen: dict[str, int] = {}
    for number, obj in _json_lines(path, "chat log"):
        where = f"{path}:{number}"
        missing = [k for k in ("question", "answer", "contexts") if k not in obj]
        if missing:
            raise ConfigError(f"{where}: missing field(s) {', '.join(map(repr, missing))}")
        turn_id = _text(obj, "id", where, required=False) or f"line-{number}"
        if turn_id in seen:
            raise ConfigError(f"{where}: duplicate id {turn_id!r} (first on line {seen[turn_id]})")
        seen[turn_id] = number
        score = obj.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
            raise ConfigError(f"{where}: field 'score' must be a number, got {score!r}")
        if score is not None and not (math.isfinite(score) and 0.0 <= score <= 1.0):
            raise ConfigError(f"{where}: field 'score' must be between 0 and 1, got {score!r}")
        decision = _text(obj, "decision", where, required=False)
        if decision is not None and decision not in ACTIONS:
            raise ConfigError(
                f"{where}: field 'decision' must be one of {', '.join(ACTIONS)}, got {decision!r}"
            )
        turns.append(
            Turn(
                id=turn_id,
                line=number,
                question=_text(obj, "question", where, required=True),
                answer=_text(obj, "answer", where, required=True),
                contexts=_passages(obj, where),
                topic=_text(obj, "topic", where, required=False),
                old_score=None if score is None else float(score),
                old_action=decision,
                old_topic=_text(obj, "topic", where, required=False),
            )
        )
    if not turns:
        raise ConfigError(f"{path}: the chat log has no turns")
    return turns


def _logged_text(
    logged: str | None, given: str | None, redaction: str, field: str
) -> tuple[str | None, str | None]:
    """``(text to score, problem)`` for one redactable field of an audit record."""
    if redaction == "none" and logged is not None:
        if given is not None and given != logged:
            return None, f"the contexts file's {field} differs from the logged one"
        return logged, None
    if redaction == "hash" and logged is not None:
        if given is None:
            return None, (
                f"the {field} is logged as a sha256 digest; give its text in the contexts file"
            )
        if text_hash(given) != logged:
            return None, f"the contexts file's {field} does not match the logged sha256 digest"
        return given, None
    return None, f"the {field} was dropped from the log (text_redaction={redaction})"


def audit_turns(path: Path, contexts: dict[str, ContextEntry] | None) -> tuple[list[Turn], int]:
    """The turn records of an audit log, and how many other records (events, resolutions)."""
    turns: list[Turn] = []
    others = 0
    for number, obj in _json_lines(path, "audit log"):
        try:
            record = AuditRecord.model_validate(obj)
        except ValidationError as exc:
            raise ConfigError(f"{path}:{number}: not an audit record ({error_line(exc)})") from None
        if record.kind != "turn":
            others += 1
            continue
        entry = (contexts or {}).get(record.audit_id)
        question, q_problem = _logged_text(
            record.question, entry.question if entry else None, record.text_redaction, "question"
        )
        answer, a_problem = _logged_text(
            record.answer, entry.answer if entry else None, record.text_redaction, "answer"
        )
        problem = q_problem or a_problem or (None if entry is not None else NO_CONTEXTS)
        decision = record.decision
        turns.append(
            Turn(
                id=record.audit_id,
                line=number,
                question=question if problem is None else None,
                answer=answer if problem is None else None,
                contexts=entry.contexts if entry is not None and problem is None else (),
                old_score=record.score,
                old_action=decision.action if decision is not None else None,
                old_topic=decision.topic if decision is not None else None,
                attempts=record.attempts,
                problem=problem,
            )
        )
    return turns, others


def load_turns(path: Path, contexts_path: Path | None = None) -> tuple[LogKind, list[Turn], int]:
    """The turns of ``path`` (an audit log or a chat log), its kind, and how many of its
    records were not turns. ``contexts_path`` is only for audit logs."""
    kind = log_kind(path)
    if kind == "chat":
        if contexts_path is not None:
            raise ConfigError(
                f"{path}: --contexts is for audit logs; a chat log carries its own contexts"
            )
        return kind, chat_turns(path), 0
    contexts = load_contexts(contexts_path) if contexts_path is not None else None
    turns, others = audit_turns(path, contexts)
    if not turns:
        raise ConfigError(f"{path}: the audit log has no turn records")
    return kind, turns, others
