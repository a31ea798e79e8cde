"""The action table: every action a policy can take on a flagged answer, weakest first.

The policy engine plans from it (an action is in the plan when its ``on_flag`` entry is on),
:attr:`Decision.action <guardrail.models.Decision.action>` is the strongest action by its
order, and the guard applies the planned actions in this order at the end of a turn:

============  =========================================================================
action        what the guard does
============  =========================================================================
pass          nothing (the answer is shown as it is)
highlight     marks the flagged spans (``GuardResult.highlighted``)
cite          adds an inline ``[n]`` citation (or ``[unsupported]``) after each sentence
custom        runs the policy's ``on_flag.custom`` actions (:mod:`guardrail.actions.custom`)
regenerate    asks the answer function for a stricter answer; while attempts are left the
              plan stops here (the guard re-scores the new answer and plans again)
abstain       shows the topic's abstain message instead of the answer
escalate      sends the case to the named review queue; shows the holding message
============  =========================================================================

A new built-in action is a row here, its name in :data:`guardrail.models.ActionName` and its
setting in :class:`~guardrail.actions.settings.OnFlag`; your own is a function registered with
:func:`~guardrail.actions.custom.register_action`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import get_args

from guardrail.actions.cite import add_citations
from guardrail.actions.custom import custom_action
from guardrail.actions.highlight import mark_spans
from guardrail.actions.settings import OnFlag
from guardrail.actions.turn import Turn
from guardrail.models import (
    ActionName,
    Decision,
    EscalationCase,
)

Apply = Callable[[Turn], Awaitable[None]]


@dataclass(frozen=True)
class Action:
    name: ActionName
    #: What the guard does at the end of the turn (``None``: nothing).
    apply: Apply | None = None
    #: Asks for a new answer: while attempts are left it ends the plan.
    retries: bool = False


async def _highlight(turn: Turn) -> None:
    if turn.report is not None:
        turn.highlighted = mark_spans(turn.answer, turn.report.flagged_spans)


async def _cite(turn: Turn) -> None:
    turn.final, turn.citations = add_citations(turn.answer, turn.contexts, turn.report)


async def _custom(turn: Turn) -> None:
    for name in turn.rule.on_flag.custom:
        out = custom_action(name)(turn)
        if inspect.isawaitable(out):
            out = await out
        if out is not None:
            turn.final = str(out)


def user_language(decision: Decision) -> str | None:
    """The language to answer the user in: the question's, else the answer's (``None`` when
    neither is known)."""
    found = decision.languages
    if found is None:
        return None
    for code in (found.question, found.answer):
        if code and code != "und":  # "und": text without letters, in no language
            return code
    return None


async def _abstain(turn: Turn) -> None:
    turn.final = turn.rule.abstain_message_in(user_language(turn.decision))


async def _escalate(turn: Turn) -> None:
    case = EscalationCase(
        case_id=turn.audit_id,
        queue=turn.decision.queue or "",  # the engine names the queue whenever it escalates
        created_at=datetime.now(timezone.utc).isoformat(),
        policy=turn.policy,
        question=turn.question,
        answer=turn.answer,
        contexts=turn.contexts,
        topics=turn.topics,
        decision=turn.decision,
        report=turn.report,
        audit_trail=turn.audit_trail,
    )
    outcome = await turn.escalator.send(case)
    if outcome.delivered_to is None:
        turn.escalation_error = "escalation not delivered: " + "; ".join(outcome.errors)
    elif outcome.errors:
        turn.escalation_error = f"escalation delivered to fallback {outcome.delivered_to}: " + (
            "; ".join(outcome.errors)
        )
    if turn.rule.on_flag.escalate is not None:
        turn.final = turn.rule.on_flag.escalate.in_language(user_language(turn.decision))


ACTIONS: tuple[Action, ...] = (
    Action("pass"),
    Action("highlight", _highlight),
    Action("cite", _cite),
    Action("custom", _custom),
    Action("regenerate", retries=True),
    Action("abstain", _abstain),
    Action("escalate", _escalate),
)
#: Action strength: ``Decision.action`` is the strongest action of the plan.
ACTION_ORDER: tuple[ActionName, ...] = tuple(a.name for a in ACTIONS)
_RANK = {name: i for i, name in enumerate(ACTION_ORDER)}

if get_args(ActionName) != ACTION_ORDER or [*OnFlag.model_fields] != list(ACTION_ORDER[1:]):
    raise RuntimeError("the action table, ActionName and OnFlag must list the same actions")


def strongest(actions: Sequence[ActionName]) -> ActionName:
    """The strongest of ``actions`` by :data:`ACTION_ORDER`; ``"pass"`` when empty."""
    return max(actions, key=_RANK.__getitem__, default="pass")


def exhausted_note(max_attempts: int) -> str:
    """The decision reason's note when a topic's regenerations are used up."""
    return f" (regeneration exhausted after {max_attempts})"


def planned(on_flag: OnFlag, attempt: int) -> tuple[list[ActionName], str]:
    """The actions ``on_flag`` turns on for a flagged answer, in table order, and a note.

    A retrying action (regenerate) with attempts left ends the plan, deferring the stronger
    ones to the next answer's decision; exhausted, it is left out and noted.
    """
    actions: list[ActionName] = []
    note = ""
    for action in ACTIONS[1:]:
        setting = getattr(on_flag, action.name)
        if not setting:
            continue
        if action.retries:
            limit: int = setting.max_attempts
            if attempt <= limit:
                actions.append(action.name)
                return actions, f" (regeneration {attempt} of {limit})"
            note = exhausted_note(limit)
            continue
        actions.append(action.name)
    return actions, note


async def apply_actions(turn: Turn) -> Turn:
    """Apply the decision's actions to ``turn``, in table order."""
    for action in ACTIONS:
        if action.apply is not None and action.name in turn.decision.actions:
            await action.apply(turn)
    return turn
