"""Forced citation: an inline ``[n]`` after each answer sentence, naming its best source.

For every sentence of the answer, the passage covering the largest share of the sentence's
content words is its source (``[n]`` is 1-based: the n-th retrieved passage). A sentence is
marked ``[unsupported]`` instead when its best coverage is below ``min_support`` or when it
holds a span the scorer flagged — a contradicted sentence may share many words with the
passage that refutes it, and must not look cited. Sentences without content words (e.g.
"Yes.") get no marker. ``Citation.sentence`` offsets refer to the original answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from guardrail.models import Citation, ScoreReport, Span
from guardrail.text.sentences import split_sentences
from guardrail.text.tokens import content_keys

UNSUPPORTED = "[unsupported]"


def _overlaps(span: Span, others: Sequence[Span]) -> bool:
    return any(s < span[1] and span[0] < e for s, e in others)


def add_citations(
    answer: str,
    contexts: Sequence[str],
    report: ScoreReport | None = None,
    *,
    min_support: float = 0.5,
) -> tuple[str, list[Citation]]:
    """Return the answer with inline citation markers, and one :class:`Citation` a sentence."""
    passages = [content_keys(c) for c in contexts]
    flagged = report.flagged_spans if report else []
    citations: list[Citation] = []
    for start, end in split_sentences(answer, rules="plain"):
        words = content_keys(answer[start:end])
        if not words:
            continue
        support, best = 0.0, None
        for i, keys in enumerate(passages):
            share = len(words & keys) / len(words)
            if share > support:
                support, best = share, i
        if best is None or support < min_support or _overlaps((start, end), flagged):
            citations.append(
                Citation(sentence=(start, end), passage=None, marker=UNSUPPORTED, support=support)
            )
        else:
            citations.append(
                Citation(
                    sentence=(start, end), passage=best, marker=f"[{best + 1}]", support=support
                )
            )
    text = answer
    for c in reversed(citations):
        s, e = c.sentence
        cut = e
        while cut > s and text[cut - 1] in ".!?;:":
            cut -= 1
        text = f"{text[:cut]} {c.marker}{text[cut:]}"
    return text, citations
