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
import string
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from guardrail.models import Span
from guardrail.text.sentences import split_sentences
from guardrail.text.tokens import Token, tokenize

_MAX_BRIDGE = 3


@dataclass(frozen=True)
class Alignment:
    spans: list[Span] = field(default_factory=list)
    score: float = 0.0
    aligned: bool = False


#: Characters beyond ASCII that a case-insensitive pattern matches to an ASCII letter ("ſ" to
#: "s", the Kelvin sign to "k", dotted and dotless i); with none of them in the answer, lowering
#: its ASCII letters compares exactly as ``re.IGNORECASE`` does for an ASCII factoid.
_ASCII_CASE_TWINS = re.compile("[\u0130\u0131\u017f\u212a]")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_SPACE = re.compile(r"\s+")


def _exact(factoid: str, answer: str) -> Span | None:
    """The first place ``answer`` holds ``factoid`` (final punctuation dropped), ignoring case
    and with any run of whitespace between its words."""
    core = factoid.strip().rstrip(".!?;:").strip()
    if not core:
        return None
    parts = core.split()
    if core.isascii() and _ASCII_CASE_TWINS.search(answer) is None:
        # the common case, without compiling a pattern per factoid: same first match
        low = answer.lower() if answer.isascii() else answer.translate(_ASCII_LOWER)
        return _find_words([part.lower() for part in parts], low)
    pattern = r"\s+".join(re.escape(part) for part in parts)
    m = re.search(pattern, answer, flags=re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def _find_words(parts: list[str], text: str) -> Span | None:
    """The first place ``text`` holds ``parts`` in order, separated by runs of whitespace (what
    ``re.search(r"\\s+".join(parts), text)`` finds; no part holds white space)."""
    first = parts[0]
    start = text.find(first)
    while start >= 0:
        end = start + len(first)
        for part in parts[1:]:
            gap = _SPACE.match(text, end)
            if gap is None or not text.startswith(part, gap.end()):
                break
            end = gap.end() + len(part)
        else:
            return (start, end)
        start = text.find(first, start + 1)
    return None


def _runs(tokens: Sequence[Token], matched: list[bool]) -> list[Span]:
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


#: Answers whose tokens and sentences are remembered (an answer's factoids align one by one),
#: and the longest answer remembered, so the memory they hold stays small.
ANSWERS_KEPT = 8
_KEPT_CHARS = 20_000
_AnswerParts = tuple[tuple[Token, ...], tuple[int, ...], tuple[Span, ...]]


def _read_answer(answer: str) -> _AnswerParts:
    """The answer's tokens, their start offsets, and its sentences' bounds."""
    return _remembered(answer) if len(answer) <= _KEPT_CHARS else _parts(answer)


def _parts(answer: str) -> _AnswerParts:
    tokens = tuple(tokenize(answer, "align"))
    sentences = tuple(split_sentences(answer, rules="plain"))
    return tokens, tuple(t.start for t in tokens), sentences


_remembered = lru_cache(maxsize=ANSWERS_KEPT)(_parts)


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
    a_tokens, starts, sentences = _read_answer(answer)
    for s_start, s_end in sentences:
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
