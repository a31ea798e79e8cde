"""Turn a score and the turn's topics into a :class:`~guardrail.models.Decision`.

The engine is a pure function of (policy, report, topics, attempt): no I/O, no clock, no
randomness, so the same inputs always give the same decision and the audit log can replay it.

Rules, in the order they apply:

1. **Strictest topic wins.** Among the detected topics the policy knows, the rule with the
   lowest threshold applies (ties: sensitive before normal, then policy order). No known topic
   means the default topic's rule. Unknown labels are ignored.
2. **Flagged when score >= threshold** — the comparison the MetaRAG paper uses, so a score of
   exactly 0.5 under a 0.5 threshold is flagged.
3. **The plan.** A flagged turn gets ``on_flag``'s actions in the order of the action table
   (:mod:`guardrail.actions.table`): highlight, cite, custom, regenerate, abstain, escalate.
   Regeneration comes before abstain and escalate and *defers* them: while a regeneration is
   left (``attempt <= regenerate.max_attempts``) the plan ends with
   regenerate, and the guard scores the new answer and asks again with ``attempt + 1``. Only
   when regeneration is exhausted (or not configured) do abstain and escalate join the plan —
   "if hallucinations persist above threshold, escalate".
4. **No signal** — scoring failed (``report is None``), or the report's status says its score
   carries none (:data:`STATUS_PATHS`: ``unverifiable``, ``empty_answer``, ``judge_unusable``):
   the rule's ``on_error`` decides — pass, abstain, or escalate to
   ``on_flag.escalate.queue``. Sensitive topics default to failing closed. A ``pass`` here is
   always the policy's own word.
5. **Nothing claimed** — an answer that only declines (``abstained``: "I don't know.") states
   nothing that could be wrong: it passes, and the reason says why. An *empty* answer is not
   a refusal the user can read: it goes to ``on_error`` like a turn whose upstream answer had no
   text (:meth:`PolicyEngine.decide_unscored`, ``no_text``).

6. **Languages.** When the turn's languages are given and the judge cannot verify the answer
   in them, the rule's ``on_unverified_language`` decides (:mod:`guardrail.policy.languages`);
   sensitive topics default to failing closed.

:data:`STATUS_PATHS` is the one table of every report status and the path it takes; turns
that end without any report are decided by :meth:`PolicyEngine.decide_unscored`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from guardrail.actions.table import ACTION_ORDER, planned, strongest
from guardrail.exceptions import ConfigError
from guardrail.models import (
    ActionName,
    Decision,
    ReportStatus,
    ScoreReport,
    TopicLabel,
    TurnLanguages,
)
from guardrail.policy.languages import checked
from guardrail.policy.schema import Policy, TopicRule
from guardrail.scoring.cascade import CascadeChoice

__all__ = [
    "ACTION_ORDER",
    "STATUS_PATHS",
    "DecisionPath",
    "PolicyEngine",
    "UnscoredEnding",
    "strongest",
]

#: How a turn can end without a score, and the rule field that decides each:
#: ``tool_calls`` (the turn ended in tool calls, no text for the user) -> ``on_tool_calls``;
#: ``unread`` (the consumer closed the stream before anything was shown), ``no_text`` (the
#: upstream's answer had no text) and ``failed`` (no score could be had) -> ``on_error``.
UnscoredEnding = Literal["tool_calls", "unread", "no_text", "failed"]

#: ``scored``: the score meets the topic's threshold; ``on_error``: no signal, the topic's
#: ``on_error`` rule decides; ``nothing_claimed``: the answer states nothing, it passes.
DecisionPath = Literal["scored", "on_error", "nothing_claimed"]

#: Every report status and the decision path it takes (one row per status; a test walks it).
STATUS_PATHS: Mapping[ReportStatus, tuple[DecisionPath, str]] = {
    "ok": ("scored", ""),
    "empty_context": ("scored", "no retrieved context: nothing could be verified"),
    "empty_answer": ("on_error", "the answer is empty: nothing to verify"),
    "abstained": ("nothing_claimed", "the answer declines to answer: nothing claimed, passed"),
    "unverifiable": ("on_error", "the answer has no verifiable statement"),
    "no_factoids": ("on_error", "the answer has no verifiable statement"),
    "judge_unusable": ("on_error", "judge unusable"),
}


class PolicyEngine:
    """Applies one :class:`~guardrail.policy.schema.Policy`. Cheap to build; holds no state."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._order = {rule.name: i for i, rule in enumerate(policy.topics)}

    def _known_rules(self, topics: Sequence[TopicLabel]) -> list[TopicRule]:
        """The policy's rules for the topics it defines (unknown labels are ignored)."""
        return [self.policy.topic(t.label) for t in topics if t.label in self._order]

    def rule_for(self, topics: Sequence[TopicLabel]) -> TopicRule:
        """The strictest rule among ``topics``; the default topic's rule when none is known."""
        known = self._known_rules(topics)
        if not known:
            return self.policy.default_rule
        return min(known, key=lambda r: (r.threshold, 0 if r.sensitive else 1, self._order[r.name]))

    def cascade_for(self, topics: Sequence[TopicLabel]) -> CascadeChoice:
        """The cascade for an answer on ``topics`` (each known topic's ``cascade``, strictest
        wins): off when any turns it off, else the lowest cut-off one sets, else on when one
        says true, else ``None`` (the scorer's own setting)."""
        choices = [r.cascade for r in self._known_rules(topics) or [self.policy.default_rule]]
        if any(c is False for c in choices):
            return False
        cutoffs = [c for c in choices if isinstance(c, float) and not isinstance(c, bool)]
        if cutoffs:
            return min(cutoffs)
        return True if any(c is True for c in choices) else None

    def decide(
        self,
        report: ScoreReport | None,
        topics: Sequence[TopicLabel],
        *,
        error: str | None = None,
        attempt: int = 1,
        languages: TurnLanguages | None = None,
    ) -> Decision:
        """Decide what to do with one scored answer (``attempt`` 1 is the original answer).

        ``languages`` (:func:`guardrail.lang.detect_turn`) are checked against what the judge
        verifies (:mod:`guardrail.policy.languages`) and recorded in the decision.
        """
        decision = self._decide(report, topics, error=error, attempt=attempt)
        if languages is None:
            return decision
        languages = checked(self.policy, languages)
        if languages.verifiable:
            return decision.model_copy(update={"languages": languages})
        rule = self.rule_for(topics)
        problem = languages.problem or "unverifiable"
        action = rule.unverified_language
        if action == "score":
            reason = f"{decision.reason}; not verified: {problem}"
            return decision.model_copy(update={"languages": languages, "reason": reason})
        unread = self._on_error(rule, decision.error, action=action)
        what = "abstained" if action == "abstain" else f"escalated to queue {unread.queue!r}"
        reason = (
            f"not verified for topic {rule.name!r} ({rule.sensitivity}): {problem}; "
            f"{what} (fail closed)"
        )
        return unread.model_copy(
            update={"languages": languages, "score": decision.score, "reason": reason}
        )

    def _decide(
        self,
        report: ScoreReport | None,
        topics: Sequence[TopicLabel],
        *,
        error: str | None,
        attempt: int,
    ) -> Decision:
        if attempt < 1:
            raise ConfigError(f"attempt must be >= 1, got {attempt}")
        rule = self.rule_for(topics)
        if report is None:
            return self._on_error(rule, error or "scoring failed")
        path, note = STATUS_PATHS[report.status]
        if path == "on_error":
            detail = f"{note}: {report.problem}" if report.problem else note
            return self._on_error(rule, detail, head=f"{report.status} ({detail})")
        if path == "nothing_claimed":
            reason = f"{report.status} for topic {rule.name!r} ({rule.sensitivity}): {note}"
            return _passed(rule, report.score, reason, error)

        flagged = report.score >= rule.threshold
        comparison = ">=" if flagged else "<"
        head = (
            f"score {report.score:.2f} {comparison} threshold {rule.threshold:.2f} "
            f"for topic {rule.name!r} ({rule.sensitivity})"
        )
        if note:
            head = f"{head}; {note}"
        if not flagged:
            return _passed(rule, report.score, f"{head}: not flagged", error)

        actions, note = planned(rule.on_flag, attempt)
        queue = (
            rule.on_flag.escalate.queue if "escalate" in actions and rule.on_flag.escalate else None
        )
        return Decision(
            action=strongest(actions),
            actions=actions,
            flagged=True,
            score=report.score,
            threshold=rule.threshold,
            topic=rule.name,
            queue=queue,
            reason=f"{head}: flagged; {_describe(actions, queue, rule.on_flag.custom)}{note}",
            error=error,
        )

    def decide_unscored(
        self, topics: Sequence[TopicLabel], *, ending: UnscoredEnding, reason: str
    ) -> Decision:
        """Decide a turn that carries no score (see :data:`UnscoredEnding`): the topic's
        ``on_tool_calls`` for a tool-call turn, its ``on_error`` otherwise — never a hard-coded
        pass."""
        rule = self.rule_for(topics)
        tool_turn = ending == "tool_calls"
        return self._on_error(
            rule,
            None if tool_turn else reason,
            action=rule.on_tool_calls if tool_turn else None,
            head=f"not scored ({reason})",
            setting="on_tool_calls" if tool_turn else "on_error",
        )

    def _on_error(
        self,
        rule: TopicRule,
        error: str | None,
        *,
        action: ActionName | None = None,
        head: str = "scoring failed",
        setting: str = "on_error",
    ) -> Decision:
        action = rule.on_error if action is None else action
        queue = None
        if action == "escalate" and rule.on_flag.escalate is not None:
            queue = rule.on_flag.escalate.queue
        what = {
            "pass": f"passed through unscored ({setting}: pass)",
            "abstain": f"abstained (fail closed; {setting}: abstain)",
            "escalate": f"escalated to queue {queue!r} (fail closed; {setting}: escalate)",
        }[action]
        return Decision(
            action=action,
            actions=[] if action == "pass" else [action],
            flagged=False,
            score=None,
            threshold=rule.threshold,
            topic=rule.name,
            queue=queue,
            reason=f"{head} for topic {rule.name!r} ({rule.sensitivity}): {what}",
            error=error,
        )


def _passed(rule: TopicRule, score: float, reason: str, error: str | None) -> Decision:
    """A pass on a score (the report's own)."""
    return Decision(
        action="pass",
        actions=[],
        flagged=False,
        score=score,
        threshold=rule.threshold,
        topic=rule.name,
        reason=reason,
        error=error,
    )


def _describe(actions: Sequence[ActionName], queue: str | None, custom: Sequence[str]) -> str:
    if not actions:
        return "no action configured"
    named = {"escalate": f"escalate to queue {queue!r}", "custom": f"custom ({', '.join(custom)})"}
    return ", ".join(named.get(a, a) for a in actions)
