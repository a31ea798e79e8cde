"""Custom actions: your own step for a flagged answer, named in a policy's ``on_flag.custom``.

A custom action is a function of the turn (:class:`~guardrail.actions.turn.Turn`: the
question, the scored answer, the contexts, the report, the decision, the text shown so far in
``turn.final``) that returns the text to show instead, or ``None`` to leave it; plain or
``async``::

    from guardrail.actions import register_action

    def add_disclaimer(turn):
        return turn.final + "\\n\\n(Automatically checked; may contain errors.)"

    register_action("disclaimer", add_disclaimer)

and in the policy: ``on_flag: {custom: [disclaimer]}``. Custom actions run after highlight and
cite and before abstain and escalate (whose messages replace the answer). An exception in one
is not swallowed: the turn fails, is audited as ``turn_failed`` and the error reaches the
caller — a step meant to make an answer safe must not be skipped silently.

Installed packages can provide actions through the ``guardrail.actions`` entry-point group
(:mod:`guardrail.plugins`): the entry point's name is the action's, imported on first use.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from guardrail.exceptions import ConfigError
from guardrail.registry import Registry

if TYPE_CHECKING:
    from guardrail.actions.turn import Turn

ENTRY_POINT_GROUP = "guardrail.actions"
#: ``fn(turn) -> new text or None``, plain or async.
CustomAction = Callable[["Turn"], "str | Awaitable[str | None] | None"]
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
#: The custom actions a policy can name (``on_flag.custom``).
ACTIONS: Registry[CustomAction] = Registry("action", ENTRY_POINT_GROUP)


def register_action(name: str, fn: CustomAction, *, replace: bool = False) -> None:
    """Make ``name`` usable in a policy's ``on_flag.custom`` list."""
    if not _NAME.match(name):
        raise ConfigError(
            f"action name {name!r}: lower-case letters, digits, '_', '-' and '.', starting "
            "with a letter or digit"
        )
    if not callable(fn):
        raise ConfigError(f"action {name!r} must be callable, got {type(fn).__name__}")
    ACTIONS.register(name, fn, replace=replace)


def custom_action(name: str) -> CustomAction:
    """The action registered as ``name`` (an installed plug-in is imported for it)."""
    entry = ACTIONS.find(name)
    if entry is None:
        known = sorted(ACTIONS.names())
        raise ConfigError(
            f"unknown action {name!r}; register it with guardrail.actions.register_action "
            f"(registered: {', '.join(known) or 'none'})"
        )
    return entry.value


def check_actions(names: list[str]) -> list[str]:
    """``names`` if each is a registered action (for policy validation)."""
    for name in names:
        try:
            custom_action(name)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
    if len(set(names)) != len(names):
        raise ValueError("an action is listed twice")
    return names


def registered_actions() -> dict[str, Any]:
    """The registered custom actions (a copy)."""
    return {entry.name: entry.value for entry in ACTIONS.entries()}
