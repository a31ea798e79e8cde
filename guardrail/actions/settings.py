"""A topic's ``on_flag`` block: which actions a flagged answer gets, and their settings.

The fields of :class:`OnFlag` follow the action table (:mod:`guardrail.actions.table`), in its
order; the table checks that they match when it is built.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from guardrail.actions.custom import check_actions
from guardrail.validation import Settings

DEFAULT_ABSTAIN_MESSAGE = (
    "I can't give a reliable answer to this question. Please check with a qualified expert."
)
DEFAULT_HOLDING_MESSAGE = (
    "This answer needs review by a specialist before it can be shared. We will get back to you."
)
DEFAULT_REGENERATE_INSTRUCTION = (
    "Answer again using only statements that the retrieved context supports, "
    "and cite the passage for each statement."
)

NAME_PATTERN = r"^[a-z0-9][a-z0-9_.-]*$"


class RegenerateAction(Settings):
    """Ask the answer function for a new answer with a stricter instruction."""

    max_attempts: int = Field(default=1, ge=1, le=5, description="regenerations allowed")
    instruction: str = Field(default=DEFAULT_REGENERATE_INSTRUCTION, min_length=1)


class AbstainAction(Settings):
    """Replace the answer with a message."""

    message: str = Field(default=DEFAULT_ABSTAIN_MESSAGE, min_length=1)


class EscalateAction(Settings):
    """Send the turn to a human review queue; the user sees the holding message."""

    queue: str = Field(pattern=NAME_PATTERN, description="review queue name")
    message: str = Field(default=DEFAULT_HOLDING_MESSAGE, min_length=1)


class OnFlag(Settings):
    """What happens when a response is flagged. Null or false switches an action off."""

    highlight: bool = Field(default=True, description="mark unsupported spans")
    cite: bool = Field(default=False, description="add inline citations to the context")
    custom: Annotated[list[str], AfterValidator(check_actions)] = Field(
        default_factory=list,
        description="actions registered in code (guardrail.actions.register_action) or by an "
        "installed plug-in, by name, run in this order; each may replace the answer shown",
    )
    regenerate: RegenerateAction | None = None
    abstain: AbstainAction | None = None
    escalate: EscalateAction | None = None
