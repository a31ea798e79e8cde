"""Fold an audit trail, one record at a time, into the figures of ``guardrail report``.

One pass, constant memory in the number of turns apart from three things that grow with what
they count: the judge latencies (one float per call, kept in ``array('d')``: 8 bytes each), the
distinct flagged factoid and span texts, and the escalated turns waiting for their resolution
record. Records are read as plain JSON, not validated into :class:`AuditRecord` models: the
report must read a 100,000-turn log in seconds, and the fields it uses are read defensively —
a line that is not a JSON object, or a turn without a decision, is counted as unreadable and
shown as such, never skipped silently.

Redaction is respected by construction: the report only ever shows text the log holds. A
``"hash"``-redacted factoid is shown as its digest prefix (identical claims still group
together), a ``"drop"``-redacted one as ``(dropped)``; span texts are cut out of the logged
answer only when the answer itself is in the clear.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

_loads: Callable[[bytes | str], Any]
try:  # the `report` extra: orjson decodes a log about twice as fast as the standard library
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - exercised where orjson is absent
    from json import loads as _loads

__all__ = ["SCORE_BINS", "AuditFigures", "parse_time", "percentiles"]

#: Score histogram bins over [0, 1] (0.02 wide).
SCORE_BINS = 50
#: How many of the most flagged factoids and spans the report lists.
TOP_N = 15
_PCTS = (50, 90, 99)


def parse_time(value: str) -> datetime:
    """An ISO 8601 timestamp (``Z`` or an offset) as an aware UTC datetime."""
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def percentiles(values: Iterable[float]) -> dict[str, float | int | None]:
    """``n``, ``p50``, ``p90``, ``p99`` and ``max`` (nearest rank); ``None`` when empty."""
    ordered = sorted(values)
    n = len(ordered)
    out: dict[str, float | int | None] = {"n": n}
    for p in _PCTS:
        out[f"p{p}"] = ordered[min(n - 1, max(0, -(-p * n // 100) - 1))] if n else None
    out["max"] = ordered[-1] if n else None
    return out


def _cause(error: str) -> str:
    """A judge error's cause: the exception name (or first words) before the first colon."""
    head = error.split(":", 1)[0].strip()
    return head[:60] or "unknown"


def _shown(text: Any, redaction: str) -> str:
    """A logged text as the report may show it."""
    if not isinstance(text, str) or text == "":
        return "(dropped)" if redaction == "drop" or text is None else "(empty)"
    if redaction == "hash":
        return f"sha256:{text[:12]}…"
    return " ".join(text.split())[:200]


@dataclass
class _Topic:
    turns: int = 0
    scored: int = 0
    flagged: int = 0
    unscored: int = 0
    actions: Counter[str] = field(default_factory=Counter)
    bins: list[int] = field(default_factory=lambda: [0] * SCORE_BINS)
    thresholds: Counter[float] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)


@dataclass
class AuditFigures:
    """Accumulates the figures of one trail; :meth:`add_line` per line, :meth:`finish` once.

    ``since`` / ``until`` (inclusive / exclusive) keep only records whose ``time`` falls in
    the window.
    """

    since: datetime | None = None
    until: datetime | None = None
    lines: int = 0
    unreadable: int = 0
    outside: int = 0
    first: datetime | None = None
    last: datetime | None = None
    kinds: Counter[str] = field(default_factory=Counter)
    events: Counter[str] = field(default_factory=Counter)
    topics: dict[str, _Topic] = field(default_factory=dict)
    hourly: dict[str, Counter[tuple[str, str]]] = field(default_factory=dict)
    factoids: Counter[str] = field(default_factory=Counter)
    spans: Counter[str] = field(default_factory=Counter)
    redaction: Counter[str] = field(default_factory=Counter)
    languages: Counter[str] = field(default_factory=Counter)
    calls: int = 0
    cached: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    unusable: Counter[str] = field(default_factory=Counter)
    parse_causes: Counter[str] = field(default_factory=Counter)
    latency: dict[str, array[float]] = field(default_factory=dict)
    escalated: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    resolutions: list[tuple[str, str, str]] = field(default_factory=list)

    def add_line(self, raw: bytes | str) -> None:
        """Fold one line of the trail in."""
        self.lines += 1
        try:
            rec = _loads(raw)
        except ValueError:
            self.unreadable += 1
            return
        if not isinstance(rec, dict) or not isinstance(rec.get("time"), str):
            self.unreadable += 1
            return
        try:
            when = parse_time(rec["time"])
        except ValueError:
            self.unreadable += 1
            return
        if (self.since and when < self.since) or (self.until and when >= self.until):
            self.outside += 1
            return
        kind = rec.get("kind")
        try:
            if kind == "turn":
                self._turn(rec, when)
            elif kind == "resolution":
                review = rec["resolution"]
                self.resolutions.append((review["case_id"], review["outcome"], rec["time"]))
            elif kind == "event":
                self.events[str(rec.get("event_name"))] += 1
            else:
                self.unreadable += 1
                return
        except (KeyError, TypeError, ValueError, IndexError):
            self.unreadable += 1
            return
        self.kinds[str(kind)] += 1
        if self.first is None or when < self.first:
            self.first = when
        if self.last is None or when > self.last:
            self.last = when

    def _turn(self, rec: dict[str, Any], when: datetime) -> None:
        decision = rec["decision"]
        topic_name = str(decision["topic"])
        action = str(decision["action"])
        score = decision.get("score")
        redaction = str(rec.get("text_redaction", "none"))
        spans = (
            [rec["answer"][s:e] for s, e in rec.get("flagged_spans") or []]
            if (redaction == "none" and isinstance(rec.get("answer"), str))
            else None
        )
        topic = self.topics.get(topic_name) or self.topics.setdefault(topic_name, _Topic())
        topic.turns += 1
        topic.actions[action] += 1
        topic.thresholds[float(decision["threshold"])] += 1
        if score is None:
            topic.unscored += 1
            topic.errors[_cause(str(rec.get("error") or decision.get("error") or "unscored"))] += 1
        else:
            topic.scored += 1
            topic.flagged += bool(decision["flagged"])
            topic.bins[min(SCORE_BINS - 1, max(0, int(float(score) * SCORE_BINS)))] += 1
        stamp = rec["time"]
        # a record's time is UTC (the schema refuses other offsets): its first 13 characters
        # are the hour, which saves formatting a datetime per turn
        hour = stamp[:13] if stamp.endswith(("Z", "+00:00")) else when.strftime("%Y-%m-%dT%H")
        bucket = self.hourly.get(hour) or self.hourly.setdefault(hour, Counter())
        bucket[(topic_name, action)] += 1
        self.redaction[redaction] += 1
        language = rec.get("language")
        if isinstance(language, str) and language:
            self.languages[language] += 1
        for f in rec.get("factoids") or []:
            if f.get("flagged"):
                self.factoids[_shown(f.get("text"), redaction)] += 1
        if spans is not None:
            for text in spans:
                self.spans[_shown(text, "none")] += 1
        elif rec.get("flagged_spans"):
            self.spans[f"({redaction}-redacted answer)"] += len(rec["flagged_spans"])
        for call in rec.get("judge_calls") or []:
            self._call(call)
        if decision.get("queue"):
            self.escalated[str(rec["audit_id"])] = (topic_name, str(decision["queue"]), rec["time"])

    def _call(self, call: dict[str, Any]) -> None:
        self.calls += 1
        if call.get("cached"):
            self.cached += 1
        key = f"{call.get('judge', '?')} · {call.get('stage', '?')}"
        lat = self.latency.get(key)
        if lat is None:
            lat = self.latency[key] = array("d")
        lat.append(float(call.get("latency_s") or 0.0))
        if not call.get("ok", True):
            self.failures[_cause(str(call.get("error") or "failed"))] += 1
        causes = call.get("parse_causes") or []
        if call.get("reply_unusable"):
            for cause in causes or ["unstated"]:
                self.unusable[str(cause)] += 1
        else:
            for cause in causes:
                self.parse_causes[str(cause)] += 1

    def merge(self, other: AuditFigures) -> None:
        """Add the figures of another part of the same trail (read in parallel) to these."""
        self.lines += other.lines
        self.unreadable += other.unreadable
        self.outside += other.outside
        for when in (other.first, other.last):
            if when is not None:
                self.first = when if self.first is None else min(self.first, when)
                self.last = when if self.last is None else max(self.last, when)
        for mine, theirs in (
            (self.kinds, other.kinds),
            (self.events, other.events),
            (self.factoids, other.factoids),
            (self.spans, other.spans),
            (self.redaction, other.redaction),
            (self.languages, other.languages),
            (self.failures, other.failures),
            (self.unusable, other.unusable),
            (self.parse_causes, other.parse_causes),
        ):
            mine.update(theirs)
        for name, t in other.topics.items():
            into = self.topics.setdefault(name, _Topic())
            into.turns += t.turns
            into.scored += t.scored
            into.flagged += t.flagged
            into.unscored += t.unscored
            into.actions.update(t.actions)
            into.thresholds.update(t.thresholds)
            into.errors.update(t.errors)
            into.bins = [a + b for a, b in zip(into.bins, t.bins, strict=True)]
        for hour, counts in other.hourly.items():
            self.hourly.setdefault(hour, Counter()).update(counts)
        self.calls += other.calls
        self.cached += other.cached
        for key, values in other.latency.items():
            self.latency.setdefault(key, array("d")).extend(values)
        self.escalated.update(other.escalated)
        self.resolutions.extend(other.resolutions)

    # --- results ----------------------------------------------------------------------------

    def finish(self) -> dict[str, Any]:
        """The figures as one JSON-ready mapping (the ``audit`` part of the report)."""
        span_hours = 0.0
        if self.first and self.last:
            span_hours = (self.last - self.first).total_seconds() / 3600
        period = "hour" if span_hours <= 72 else "day"
        over_time: dict[str, dict[str, dict[str, int]]] = {}
        for hour in sorted(self.hourly):
            key = hour if period == "hour" else hour[:10]
            slot = over_time.setdefault(key, {})
            for (topic, action), n in self.hourly[hour].items():
                per = slot.setdefault(topic, {})
                per[action] = per.get(action, 0) + n
        topics: dict[str, Any] = {}
        for name in sorted(self.topics):
            t = self.topics[name]
            current = max(t.thresholds.items(), key=lambda kv: kv[1])[0] if t.thresholds else None
            topics[name] = {
                "turns": t.turns,
                "scored": t.scored,
                "flagged": t.flagged,
                "unscored": t.unscored,
                "flag_rate": round(t.flagged / t.scored, 4) if t.scored else None,
                "actions": dict(t.actions.most_common()),
                "threshold": current,
                "thresholds_seen": sorted(t.thresholds),
                "score_histogram": list(t.bins),
                "unscored_causes": dict(t.errors.most_common()),
            }
        resolved: dict[str, Any] = self._resolved()
        return {
            "lines": self.lines,
            "unreadable_lines": self.unreadable,
            "outside_window": self.outside,
            "records": dict(self.kinds),
            "first": self.first.isoformat() if self.first else None,
            "last": self.last.isoformat() if self.last else None,
            "period": period,
            "events": dict(self.events.most_common()),
            "topics": topics,
            "decisions_over_time": over_time,
            "top_flagged_factoids": self.factoids.most_common(TOP_N),
            "top_flagged_spans": self.spans.most_common(TOP_N),
            "text_redaction": dict(self.redaction),
            "languages": dict(self.languages.most_common()),
            "judge": {
                "calls": self.calls,
                "cached": self.cached,
                "failed": sum(self.failures.values()),
                "failures_by_cause": dict(self.failures.most_common()),
                "unusable_by_cause": dict(self.unusable.most_common()),
                "parse_fallbacks_by_cause": dict(self.parse_causes.most_common()),
                "latency_s": {k: percentiles(v) for k, v in sorted(self.latency.items())},
            },
            "resolutions_in_log": resolved,
        }

    def _resolved(self) -> dict[str, Any]:
        """Overturn rates and time to resolution from the log alone (the turn's record to its
        ``resolution`` record), per topic and queue."""
        groups: dict[tuple[str, str], list[Any]] = {}
        unmatched = 0
        for case_id, outcome, at in self.resolutions:
            turn = self.escalated.get(case_id)
            if turn is None:
                unmatched += 1
                continue
            topic, queue, turned = turn
            hours = (parse_time(at) - parse_time(turned)).total_seconds() / 3600
            groups.setdefault((topic, queue), []).append((outcome, hours))
        rows = []
        for (topic, queue), items in sorted(groups.items()):
            outcomes = Counter(o for o, _ in items)
            rows.append(
                {
                    "topic": topic,
                    "queue": queue,
                    "resolved": len(items),
                    "outcomes": dict(outcomes),
                    "overturn_rate": round(outcomes["approved"] / len(items), 4),
                    "hours_to_resolution": percentiles(h for _, h in items),
                }
            )
        return {
            "escalated_turns": len(self.escalated),
            "resolution_records": len(self.resolutions),
            "without_their_turn": unmatched,
            "by_topic_and_queue": rows,
        }
