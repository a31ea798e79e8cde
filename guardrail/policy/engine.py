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
4. **Scoring failed** (``report is None``) or **the judge was unusable** (``report.status`` is
   ``judge_unusable``: no parsable verdict, so the score carries no signal): the rule's
   ``on_error`` decides — pass, abstain, or escalate to ``on_flag.escalate.queue``. Sensitive
   topics default to failing closed.
5. **Languages.** When the turn's languages are given and the judge cannot verify the answer
   in them, the rule's ``on_unverified_language`` decides (:mod:`guardrail.policy.languages`);
   sensitive topics default to failing closed.
"""

from __future__ import annotations

from collections.abc import Sequence

from guardrail.actions.table import ACTION_ORDER, planned, strongest
from guardrail.exceptions import ConfigError
from guardrail.models import ActionName, Decision, ScoreReport, TopicLabel, TurnLanguages
from guardrail.policy.languages import with_languages
from guardrail.policy.schema import Policy, TopicRule
from guardrail.scoring.cascade import CascadeChoice

__all__ = ["ACTION_ORDER", "PolicyEngine", "strongest"]


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
        return with_languages(self.policy, self.rule_for(topics), decision, languages)

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
        if report.status == "judge_unusable":
            return self._on_error(rule, f"judge unusable: {report.problem or 'no signal'}")

        flagged = report.score >= rule.threshold
        comparison = ">=" if flagged else "<"
        head = (
            f"score {report.score:.2f} {comparison} threshold {rule.threshold:.2f} "
            f"for topic {rule.name!r} ({rule.sensitivity})"
        )
        if not flagged:
            return Decision(
                action="pass",
                actions=[],
                flagged=False,
                score=report.score,
                threshold=rule.threshold,
                topic=rule.name,
                reason=f"{head}: not flagged",
                error=error,
            )

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

    def _on_error(self, rule: TopicRule, error: str) -> Decision:
        action: ActionName = rule.on_error
        queue = None
        if action == "escalate" and rule.on_flag.escalate is not None:
            queue = rule.on_flag.escalate.queue
        what = {
            "pass": "passed through unscored",
            "abstain": "abstained (fail closed)",
            "escalate": f"escalated to queue {queue!r} (fail closed)",
        }[action]
        return Decision(
            action=action,
            actions=[] if action == "pass" else [action],
            flagged=False,
            score=None,
            threshold=rule.threshold,
            topic=rule.name,
            queue=queue,
            reason=f"scoring failed for topic {rule.name!r} ({rule.sensitivity}): {what}",
            error=error,
        )


def _describe(actions: Sequence[ActionName], queue: str | None, custom: Sequence[str]) -> str:
    if not actions:
        return "no action configured"
    named = {"escalate": f"escalate to queue {queue!r}", "custom": f"custom ({', '.join(custom)})"}
    return ", ".join(named.get(a, a) for a in actions)
