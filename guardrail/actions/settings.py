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
#: The default abstention message in the other languages the offline judge reads.
DEFAULT_ABSTAIN_MESSAGES: dict[str, str] = {
    "en": DEFAULT_ABSTAIN_MESSAGE,
    "de": "Ich kann auf diese Frage keine verlässliche Antwort geben. Bitte wenden Sie sich an "
    "eine qualifizierte Fachperson.",
    "fr": "Je ne peux pas donner de réponse fiable à cette question. Veuillez vous adresser à "
    "un professionnel qualifié.",
    "es": "No puedo dar una respuesta fiable a esta pregunta. Consulte con un profesional "
    "cualificado.",
    "it": "Non posso dare una risposta affidabile a questa domanda. Si rivolga a un esperto "
    "qualificato.",
    "pt": "Não posso dar uma resposta fiável a esta pergunta. Consulte um profissional "
    "qualificado.",
    "nl": "Ik kan geen betrouwbaar antwoord op deze vraag geven. Neem contact op met een "
    "gekwalificeerde deskundige.",
}
#: The default holding message in the other languages the offline judge reads.
DEFAULT_HOLDING_MESSAGES: dict[str, str] = {
    "en": DEFAULT_HOLDING_MESSAGE,
    "de": "Diese Antwort muss von einer Fachperson geprüft werden, bevor wir sie weitergeben "
    "können. Wir melden uns bei Ihnen.",
    "fr": "Cette réponse doit être vérifiée par un spécialiste avant de pouvoir être "
    "communiquée. Nous reviendrons vers vous.",
    "es": "Un especialista debe revisar esta respuesta antes de que podamos compartirla. Nos "
    "pondremos en contacto con usted.",
    "it": "Questa risposta deve essere verificata da uno specialista prima di poter essere "
    "condivisa. La ricontatteremo.",
    "pt": "Esta resposta tem de ser verificada por um especialista antes de a podermos "
    "partilhar. Entraremos em contacto consigo.",
    "nl": "Dit antwoord moet door een specialist worden gecontroleerd voordat we het kunnen "
    "delen. We nemen contact met u op.",
}
DEFAULT_REGENERATE_INSTRUCTION = (
    "Answer again using only statements that the retrieved context supports, "
    "and cite the passage for each statement."
)

NAME_PATTERN = r"^[a-z0-9][a-z0-9_.-]*$"


class RegenerateAction(Settings):
    """Ask the answer function for a new answer with a stricter instruction."""

    max_attempts: int = Field(default=1, ge=1, le=5, description="regenerations allowed")
    instruction: str = Field(default=DEFAULT_REGENERATE_INSTRUCTION, min_length=1)


_MESSAGES_HELP = (
    "the message in other languages, by ISO 639-1 code of the question's language (de, fr, "
    "...); a language not listed gets `message`"
)


def _in_language(
    message: str, messages: dict[str, str], default: str, defaults: dict[str, str], code: str | None
) -> str:
    """The message for a question in ``code``: the policy's own for that language, else the
    built-in translation while the policy keeps the built-in message, else ``message``."""
    if code and code in messages:
        return messages[code]
    if message == default and code in defaults:
        return defaults[code]
    return message


class AbstainAction(Settings):
    """Replace the answer with a message (in the question's language when one is given)."""

    message: str = Field(default=DEFAULT_ABSTAIN_MESSAGE, min_length=1)
    messages: dict[str, Annotated[str, Field(min_length=1)]] = Field(
        default_factory=dict, description=_MESSAGES_HELP
    )

    def in_language(self, code: str | None) -> str:
        """The message for a question in language ``code`` (``None``: not known)."""
        return _in_language(
            self.message, self.messages, DEFAULT_ABSTAIN_MESSAGE, DEFAULT_ABSTAIN_MESSAGES, code
        )


class EscalateAction(Settings):
    """Send the turn to a human review queue; the user sees the holding message."""

    queue: str = Field(pattern=NAME_PATTERN, description="review queue name")
    message: str = Field(default=DEFAULT_HOLDING_MESSAGE, min_length=1)
    messages: dict[str, Annotated[str, Field(min_length=1)]] = Field(
        default_factory=dict, description=_MESSAGES_HELP
    )

    def in_language(self, code: str | None) -> str:
        """The holding message for a question in language ``code`` (``None``: not known)."""
        return _in_language(
            self.message, self.messages, DEFAULT_HOLDING_MESSAGE, DEFAULT_HOLDING_MESSAGES, code
        )


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
