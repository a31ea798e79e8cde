"""Map a factoid back to the character span(s) of the answer it came from.

Decomposers do not quote: they resolve pronouns ("He" -> "Einstein"), split conjunctions
("discovered polonium and radium" -> "... discovered radium."), and drop interjections. So
alignment works in two steps:

1. **Exact**: the factoid (without its final punctuation) occurs in the answer, ignoring case
   and runs of white space -> that one span, alignment 1.0.
2. **Word runs**: content words are compared by their alignment keys
   (:func:`~guardrail.text.stemming.light_stem`). The answer sentence holding the largest share
   of the factoid's content words is chosen; the spans are the runs of matching words in it,
   bridging gaps of at most three function words or punctuation. ``alignment`` is the share of the
   factoid's content words found there.

A factoid whose best alignment is below ``min_alignment`` is reported ``aligned=False`` with no
spans — never silently dropped.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from guardrail.models import Span
from guardrail.text.sentences import split_sentences
from guardrail.text.tokens import Token, tokenize

_MAX_BRIDGE = 3


@dataclass(frozen=True)
class Alignment:
    spans: list[Span] = field(default_factory=list)
    score: float = 0.0
    aligned: bool = False


#: Whitespace other than single spaces: where ``\s+`` and one space can match differently.
_ODD_SPACE = re.compile(r"[^\S ]| {2}")


def _exact(factoid: str, answer: str) -> Span | None:
    """The first place ``answer`` holds ``factoid`` (final punctuation dropped), ignoring case
    and with any run of whitespace between its words."""
    core = factoid.strip().rstrip(".!?;:").strip()
    if not core:
        return None
    parts = core.split()
    if answer.isascii() and core.isascii() and _ODD_SPACE.search(answer) is None:
        # the common case, without compiling a pattern per factoid: same first match
        start = answer.lower().find(" ".join(parts).lower())
        if start < 0:
            return None
        return (start, start + len(" ".join(parts)))
    pattern = r"\s+".join(re.escape(part) for part in parts)
    m = re.search(pattern, answer, flags=re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def _runs(tokens: list[Token], matched: list[bool]) -> list[Span]:
    spans: list[Span] = []
    i = 0
    n = len(tokens)
    while i < n:
        if not matched[i]:
            i += 1
            continue
        start, end = tokens[i].start, tokens[i].end
        j = i + 1
        while j < n:
            if matched[j]:
                end = tokens[j].end
                j += 1
                continue
            k = j
            while k < n and not matched[k] and not tokens[k].content and k - j < _MAX_BRIDGE:
                k += 1
            if k < n and matched[k]:
                j = k
                continue
            break
        spans.append((start, end))
        i = j
    return spans


def align(factoid: str, answer: str, *, min_alignment: float = 0.5) -> Alignment:
    """Locate ``factoid`` in ``answer``; see the module docstring for the rules."""
    exact = _exact(factoid, answer)
    if exact is not None:
        return Alignment([exact], 1.0, True)
    f_tokens = [t for t in tokenize(factoid, "align") if t.is_alnum]
    wanted = {t.key for t in f_tokens if t.content} or {t.key for t in f_tokens}
    if not wanted:
        return Alignment()
    best: tuple[float, list[Span]] = (0.0, [])
    # Tokens hold no white space and sentences are cut at white space or after . ! ?, so no
    # token crosses a sentence edge: a sentence's tokens are the answer's that start within it.
    a_tokens = tokenize(answer, "align")
    starts = [t.start for t in a_tokens]
    for s_start, s_end in split_sentences(answer, rules="plain"):
        tokens = a_tokens[bisect_left(starts, s_start) : bisect_left(starts, s_end)]
        matched = [t.is_alnum and t.key in wanted for t in tokens]
        found = {t.key for t, m in zip(tokens, matched, strict=True) if m}
        coverage = len(found & wanted) / len(wanted)
        if coverage > best[0]:
            best = (coverage, _runs(tokens, matched))
    coverage, spans = best
    if coverage < min_alignment or not spans:
        return Alignment([], round(coverage, 4), False)
    return Alignment(spans, round(coverage, 4), True)
