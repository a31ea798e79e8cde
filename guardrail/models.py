"""Value types shared by scorers, judges, policies, the guard and the audit log.

Everything here is a pydantic model so it round-trips through JSON unchanged
(``model_dump(mode="json")`` / ``model_validate``). Spans are ``(start, end)`` character
offsets into the *answer* text, end exclusive, serialized as ``[start, end]``.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

Span = tuple[int, int]


class Label(str, Enum):
    """A verifier's decision on one statement against the retrieved context."""

    YES = "YES"
    NO = "NO"
    NOT_SURE = "NOT SURE"


class Relation(str, Enum):
    """The metamorphic relation that produced a variant."""

    SYNONYM = "synonym"
    ANTONYM = "antonym"


#: Why a judge reply needed a fallback (``JudgeCall.parse_causes``), one word each:
#:
#: ======================= ===================================================================
#: ``empty``               no text (or nothing after an echo of the prompt's data fence)
#: ``unparsable``          text without the requested format: no label, no JSON, no item
#: ``placeholder``         the prompt's placeholders or answer format copied (``"..."``,
#:                         ``<statement>``, ``YES|NO|NOT SURE``) instead of content
#: ``echoed_instructions`` the prompt's own instructions or examples copied back
#: ``echoed_fence``        began with an echo of the prompt's data fence (stripped; the rest
#:                         was read)
#: ``non_string_items``    JSON items that are not strings (dropped)
#: ``truncated``           a cut-off JSON array (its complete strings were kept)
#: ``label_not_at_start``  the verdict label was found later in the reply
#: ``nonstandard_label``   a label outside the requested words, read as the closest one
#: ``missing_items``       a batch reply lacks (or garbles) some of its items
#: ``too_few_items``       fewer usable variants than asked for (filled mechanically)
#: ``no_items``            a well-formed but empty list where one was needed (a fallback
#:                         supplied the items)
#: ``other``               a plug-in scorer's own note
#: ======================= ===================================================================
ParseCause = Literal[
    "empty",
    "unparsable",
    "placeholder",
    "echoed_instructions",
    "echoed_fence",
    "non_string_items",
    "truncated",
    "label_not_at_start",
    "nonstandard_label",
    "missing_items",
    "too_few_items",
    "no_items",
    "other",
]


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class JudgeCall(_Value):
    """One call to a judge, as recorded in results and the audit log."""

    stage: str = Field(description="decompose | synonym | antonym | verify | ...")
    judge: str = Field(description="the judge's name, e.g. 'openai:gpt-4.1-mini' or 'local'")
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    attempts: int = 1
    ok: bool = True
    parse_failure: str | None = Field(
        default=None, description="why the output could not be parsed; the fallback rule applied"
    )
    parse_causes: list[ParseCause] = Field(
        default_factory=list,
        description="the parse failure's causes, from a fixed vocabulary (empty, unparsable, "
        "placeholder, echoed_instructions, ...)",
    )
    reply_unusable: bool = Field(
        default=False,
        description="nothing in the reply could be used: a fallback stood in for all of it",
    )
    error: str | None = None
    cached: bool = Field(
        default=False, description="answered from the response cache: no tokens were spent"
    )
    cached_prompt_tokens: int | None = Field(
        default=None,
        description="prompt tokens the server read from its prompt cache; null when its API "
        "does not report them",
    )
    usage_reported: bool = Field(
        default=True,
        description="false when the server reported no token usage (a streamed reply without "
        "a usage chunk): completion tokens were counted one per chunk, prompt tokens are "
        "unknown (0)",
    )


class Verdict(_Value):
    """One verifier's label for one variant."""

    judge: str
    label: Label
    reason: str = ""
    parsed: bool = Field(default=True, description="False when the label came from a fallback")


class Variant(_Value):
    """A synonym or antonym mutation of a factoid, with its verdict(s) and penalty."""

    relation: Relation
    text: str
    verdicts: list[Verdict] = Field(default_factory=list)
    label: Label = Field(description="the combined label (ensemble rule applied)")
    penalty: float = Field(ge=0.0, le=1.0)
    generated: bool = Field(
        default=True, description="False when the variant is a documented mechanical fallback"
    )


#: How a verifier names a conflicting value in a verdict's reason (the offline judge does).
_CONFLICT_NOTE = re.compile(r"\b(context says .+?, not .+?)(?::|\.\s|\.?$)")


class Factoid(_Value):
    """An atomic claim taken from the answer, where it sits in the answer, and its score."""

    index: int
    text: str
    spans: list[Span] = Field(default_factory=list)
    focus: list[Span] = Field(
        default_factory=list,
        description="the words within spans a localizer points at (empty: not narrowed)",
    )
    aligned: bool = Field(description="False when no span of the answer could be matched")
    alignment: float = Field(ge=0.0, le=1.0, description="share of the claim's words matched")
    variants: list[Variant] = Field(default_factory=list)
    score: float = Field(ge=0.0, le=1.0)
    flagged: bool = False
    evidence: list[str] = Field(
        default_factory=list, description="context passages/sentences a scorer cited, if any"
    )
    screen_risk: float | None = Field(
        default=None,
        description="the cascade's offline unsupported-risk of this factoid (null: not screened "
        "or not weighable)",
    )
    screened: bool = Field(
        default=False,
        description="settled as supported by the cascade's offline screen: no LLM call was made",
    )

    def conflicts(self) -> list[str]:
        """The values a verifier found the context stating differently, as it wrote them in
        its reasons ("context says Warsaw, not Vienna"), once each."""
        notes = (
            m.group(1)
            for v in self.variants
            for d in v.verdicts
            if d.label is Label.NO
            for m in [_CONFLICT_NOTE.search(d.reason)]
            if m is not None
        )
        return list(dict.fromkeys(notes))


class StageTiming(_Value):
    stage: str
    seconds: float
    calls: int


class Usage(_Value):
    """What scoring one answer cost."""

    judge_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    parse_failures: int = Field(
        default=0, description="calls whose reply needed a fallback rule (for all or part of it)"
    )
    unusable_replies: int = Field(
        default=0, description="calls whose reply could not be used at all"
    )
    parse_causes: dict[str, int] = Field(
        default_factory=dict,
        description="calls by parse-failure cause (a call with several causes counts in each)",
    )
    unusable_causes: dict[str, int] = Field(
        default_factory=dict, description="the unusable replies by cause"
    )
    failed_calls: int = 0
    calls_without_usage: int = Field(
        default=0,
        description="successful calls whose server reported no token usage (their prompt "
        "tokens are unknown, counted as 0)",
    )
    cached_calls: int = Field(default=0, description="calls answered from the response cache")
    cached_prompt_tokens: int | None = Field(
        default=None,
        description="prompt tokens served from the servers' prompt caches, summed over the calls "
        "whose API reports them; null when none does",
    )
    stages: list[StageTiming] = Field(default_factory=list)
    wall_seconds: float = 0.0

    @classmethod
    def from_calls(
        cls, calls: list[JudgeCall], stages: list[StageTiming], wall_seconds: float
    ) -> Usage:
        return cls(
            judge_calls=len(calls),
            prompt_tokens=sum(c.prompt_tokens for c in calls),
            completion_tokens=sum(c.completion_tokens for c in calls),
            parse_failures=sum(1 for c in calls if c.parse_failure),
            unusable_replies=sum(1 for c in calls if c.reply_unusable),
            parse_causes=count_causes(calls),
            unusable_causes=count_causes([c for c in calls if c.reply_unusable]),
            failed_calls=sum(1 for c in calls if not c.ok),
            calls_without_usage=sum(1 for c in calls if c.ok and not c.usage_reported),
            cached_calls=sum(1 for c in calls if c.cached),
            cached_prompt_tokens=(
                sum(c.cached_prompt_tokens or 0 for c in calls)
                if any(c.cached_prompt_tokens is not None for c in calls)
                else None
            ),
            stages=stages,
            wall_seconds=wall_seconds,
        )


def count_causes(calls: list[JudgeCall]) -> dict[str, int]:
    """How many of ``calls`` have each parse-failure cause, in the vocabulary's order."""
    counts = {cause: sum(1 for c in calls if cause in c.parse_causes) for cause in _CAUSES}
    return {cause: n for cause, n in counts.items() if n}


_CAUSES: tuple[str, ...] = get_args(ParseCause)


#: How scoring one answer ended. The policy engine's ``STATUS_PATHS`` table
#: (:mod:`guardrail.policy.engine`) says which decision path each one takes:
#:
#: ==================== ====================================================================
#: ``ok``               scored: the score is compared with the topic's threshold
#: ``empty_context``    scored, with nothing to verify against (every verdict NOT SURE)
#: ``empty_answer``     nothing was said (empty or whitespace only): ``on_error``
#: ``abstained``        the answer only declines ("I don't know."): passed, nothing claimed
#: ``unverifiable``     a non-empty answer with no verifiable statement: ``on_error``
#: ``no_factoids``      the name ``unverifiable`` had in earlier records: ``on_error``
#: ``judge_unusable``   the judge's replies carried no signal: ``on_error``
#: ==================== ====================================================================
ReportStatus = Literal[
    "ok",
    "empty_answer",
    "abstained",
    "unverifiable",
    "no_factoids",
    "empty_context",
    "judge_unusable",
]


class ResolvedStatement(_Value):
    """A self-contained statement made from an answer that leans on its question ("Yes." to
    "Can pregnant women take ibuprofen?" -> "Pregnant women can take ibuprofen.")."""

    text: str
    spans: list[Span] = Field(
        default_factory=list, description="the answer's words the statement stands for"
    )
    rule: str = Field(description="the resolution rule that made it (yes_no, wh_value, ...)")


class ScoreReport(_Value):
    """The result of scoring one answer: response score, factoids, flagged spans, usage.

    ``score`` is the max over factoid scores (0.0 when there are none); ``flagged`` is
    ``score >= threshold`` — the comparison the MetaRAG paper uses.
    """

    method: str = "metarag"
    score: float = Field(ge=0.0, le=1.0)
    threshold: float = Field(ge=0.0, le=1.0)
    flagged: bool
    status: ReportStatus = "ok"
    factoids: list[Factoid] = Field(default_factory=list)
    flagged_spans: list[Span] = Field(default_factory=list)
    unaligned_flagged: list[int] = Field(
        default_factory=list, description="indices of flagged factoids with no answer span"
    )
    usage: Usage = Field(default_factory=Usage)
    calls: list[JudgeCall] = Field(default_factory=list)
    settings: dict[str, object] = Field(default_factory=dict)
    problem: str | None = Field(
        default=None, description="why the status is judge_unusable: which replies, and why"
    )
    resolved: list[ResolvedStatement] = Field(
        default_factory=list,
        description="the statements the answer makes when read with its question (empty when "
        "it stands on its own); these, not the bare answer, were decomposed",
    )

    def flagged_text(self, answer: str) -> list[str]:
        """The answer's text under each flagged span."""
        return [answer[s:e] for s, e in self.flagged_spans]


def merge_spans(spans: list[Span]) -> list[Span]:
    """Sort and merge overlapping or touching spans."""
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


# --- policy-side values (used by topics, policy engine, guard, queues, audit) -----------------

Sensitivity = Literal["normal", "sensitive"]
#: The actions, weakest first (the order of :data:`guardrail.actions.table.ACTIONS`).
ActionName = Literal["pass", "highlight", "cite", "custom", "regenerate", "abstain", "escalate"]
#: What a human reviewer did with an escalated answer.
ReviewOutcome = Literal["approved", "edited", "rejected"]


class TopicLabel(_Value):
    """A topic tag for one turn. Only the topic is used — never a protected attribute."""

    label: str
    confidence: float = Field(ge=0.0, le=1.0)
    source: Literal["classifier", "keyword", "default"] = "classifier"
    sensitivity: Sensitivity = "normal"
    found_in: Literal["question", "context"] | None = Field(
        default=None,
        description="the text that detected the topic: the question or a retrieved passage",
    )


class TurnLanguages(_Value):
    """The languages one turn is written in (ISO 639-1 codes; ``"und"``: no letters), and
    whether the configured judge could verify the answer in them."""

    question: str = Field(description="the question's language")
    answer: str = Field(description="the answer's language")
    contexts: list[str] = Field(
        default_factory=list, description="the retrieved passages' languages, once each"
    )
    judge_languages: list[str] = Field(
        default_factory=list, description="the languages the configured judge verifies"
    )
    verifiable: bool | None = Field(
        default=None,
        description="whether the judge could verify the answer against its contexts in these "
        "languages (null: not checked)",
    )
    problem: str | None = Field(
        default=None, description="why the turn could not be verified in its languages"
    )


class Decision(_Value):
    """What the policy decided for one turn, and why."""

    action: ActionName = Field(description="the strongest action taken; 'pass' when none")
    actions: list[ActionName] = Field(default_factory=list, description="every action, in order")
    flagged: bool
    score: float | None = Field(description="response score; None when scoring failed")
    threshold: float
    comparison: Literal[">="] = ">="
    topic: str = Field(description="the topic whose rule applied (the strictest)")
    queue: str | None = None
    reason: str = ""
    error: str | None = None
    languages: TurnLanguages | None = Field(
        default=None, description="the turn's languages, when they were detected"
    )


class EscalationCase(_Value):
    """Everything a human reviewer needs about one escalated turn.

    ``case_id`` equals the turn's audit id, which makes enqueueing idempotent.
    """

    case_id: str
    queue: str
    created_at: str = Field(description="ISO 8601 UTC")
    policy: str = ""
    question: str
    answer: str
    contexts: list[str] = Field(default_factory=list)
    topics: list[TopicLabel] = Field(default_factory=list)
    decision: Decision
    report: ScoreReport | None = None
    audit_trail: str | None = Field(
        default=None,
        description="the audit trail the turn's record goes to ('' none; None: not said)",
    )


class Citation(_Value):
    """Links one answer sentence to the context passage that best supports it."""

    sentence: Span
    passage: int | None = Field(description="0-based index into contexts; None when unsupported")
    marker: str = Field(description="the inline marker inserted, e.g. '[2]' or '[unsupported]'")
    support: float = Field(ge=0.0, le=1.0)


class GuardResult(_Value):
    """What the guard returns for one turn (and what ``POST /v1/check`` answers)."""

    audit_id: str
    policy: str
    question: str
    answer: str = Field(description="the final text to show the user")
    original_answer: str
    contexts: list[str] = Field(default_factory=list)
    decision: Decision
    topics: list[TopicLabel] = Field(default_factory=list)
    report: ScoreReport | None = None
    citations: list[Citation] = Field(default_factory=list)
    highlighted: str | None = Field(default=None, description="answer with flagged spans marked")
    attempts: int = Field(default=1, description="answers scored, counting regenerations")
    scored_answer: str = Field(
        default="",
        description="the answer the report's spans index: original_answer, or the last "
        "regenerated answer",
    )

    @property
    def report_text(self) -> str:
        """The text that ``report`` spans and ``citations`` offsets refer to."""
        return self.scored_answer or self.original_answer
