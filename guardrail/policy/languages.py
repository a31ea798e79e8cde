"""The policy's languages rule: can the configured judge verify this turn in its languages,
and if not, what does the turn get?

A judge verifies an answer by reading it against the retrieved passages. The offline judge
reads only the languages it has checks for (:data:`guardrail.lang.OFFLINE_JUDGE_LANGUAGES`);
an LLM judge reads those the policy names (``languages.judge_languages``, English only when
unnamed). A turn is *unverifiable* when

* its answer, or one of its passages, is in a language the judge does not read, or
* its answer is in another language than every passage and the judge cannot compare across
  languages (``languages.cross_lingual``; the offline judge cannot).

Text without letters (``"und"``: a bare number, an empty passage) is in no language and never
makes a turn unverifiable. The question's language is recorded but does not gate: the judge
reads the answer and the passages, not the question.

An unverifiable turn gets its topic's ``on_unverified_language``: ``score`` (decide on the
score, as usual, saying the judge could not read it), ``abstain`` or ``escalate``. Every topic
defaults to failing closed (``escalate`` when it has a review queue, else ``abstain``), so an
answer in a language outside the verified list never passes unless the policy says ``score``.
"""

from __future__ import annotations

from guardrail.judges.registry import spec_capabilities
from guardrail.lang import UNDETERMINED
from guardrail.models import TurnLanguages
from guardrail.policy.schema import Policy

__all__ = ["checked", "judge_reads"]


def judge_reads(policy: Policy) -> tuple[list[str], bool]:
    """The languages the policy's judges verify, and whether they compare across them: the
    policy's ``languages`` settings, else what every judge's capabilities declare (the
    languages all of them read; English when one declares none)."""
    capabilities = [spec_capabilities(spec) for spec in policy.scorer.judge_specs()]
    settings = policy.languages
    if settings.judge_languages is not None:
        languages = list(dict.fromkeys(settings.judge_languages))
    elif capabilities and all(c.languages for c in capabilities):
        first = capabilities[0].languages
        languages = [code for code in first if all(code in c.languages for c in capabilities)]
    else:
        languages = ["en"]
    if settings.cross_lingual is not None:
        cross = settings.cross_lingual
    else:
        said = [c.cross_lingual for c in capabilities]
        cross = all(
            (c if c is not None else not cap.offline)
            for c, cap in zip(said, capabilities, strict=True)
        )
    return languages, cross


def checked(policy: Policy, languages: TurnLanguages) -> TurnLanguages:
    """``languages`` with the judge's languages, ``verifiable`` and any ``problem`` filled."""
    reads, cross = judge_reads(policy)
    problem = _problem(languages, set(reads), cross)
    return languages.model_copy(
        update={"judge_languages": reads, "verifiable": problem is None, "problem": problem}
    )


def _problem(languages: TurnLanguages, reads: set[str], cross: bool) -> str | None:
    answer = languages.answer
    written = [c for c in languages.contexts if c != UNDETERMINED]
    listed = ", ".join(sorted(reads)) or "none"
    if answer != UNDETERMINED and answer not in reads:
        return f"the answer is in {answer!r}, which the judge does not verify (it reads {listed})"
    unread = [c for c in written if c not in reads]
    if unread:
        return (
            f"a passage is in {', '.join(repr(c) for c in unread)}, which the judge does not "
            f"verify (it reads {listed})"
        )
    if not cross and answer != UNDETERMINED and written and answer not in written:
        return (
            f"the answer is in {answer!r} and the passages in {', '.join(map(repr, written))}: "
            "the judge cannot compare across languages"
        )
    return None
