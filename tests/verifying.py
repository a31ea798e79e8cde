"""One helper for tests that read statements against a passage with the offline verifier in a
given language."""

from __future__ import annotations

from collections.abc import Sequence

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.verify import Support
from guardrail.lang.context import reading


def verified(
    language: str,
    statements: Sequence[str],
    context: str,
    sources: Sequence[str] | None = None,
) -> list[Support]:
    """The offline verifier's outcome for each statement (read in ``language``)."""
    verifier = LocalJudge().verifier
    with reading(language):
        found = verifier.check(list(statements), context, sources=sources)
    return [f.outcome for f in found]


def assert_told_apart(language: str, context: str, faithful: str, wrong: str) -> None:
    """The faithful statement is not contradicted and the wrong one is not supported."""
    kept, caught = verified(language, [faithful, wrong], context)
    assert kept is not Support.CONTRADICTED, faithful
    assert caught is not Support.SUPPORTED, wrong
