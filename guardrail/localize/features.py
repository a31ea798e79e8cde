"""Per-word features of an answer against its retrieved context, for sub-factoid localization.

A flagged factoid usually spans a whole clause, while RAGTruth's human annotators mark only the
words that are made up (a wrong date, an invented name, an added clause). These features
describe each *word* of the answer by how well the context supports it and its neighbourhood:

===========================  ====================================================================
``content``                  a content word (not a function word)
``in_context``               its normalized form occurs in the context
``in_question``              ... in the question
``number`` / ``number_new``  a digit or number word ("five", "twice") / one absent from the context
``capital`` / ``capital_new``  capitalized (not the answer's first word) / and absent
``bigram_prev``              (previous word, word) occurs as a bigram in the context
``bigram_next``              (word, next word) occurs as a bigram in the context
``trigram``                  some word trigram containing it occurs in the context
``window3`` / ``window6``    share of content words within 3 / 6 words found in the context
``sentence_coverage``        share of its sentence's content words found in the context
``sentence_length``          its sentence's content words (capped at 30) / 30
``position``                 relative position in the answer (0 = first word)
``has_question``             the request carries a question (QA) rather than none
``structured``               the context is a JSON record (read through ``json_to_prose``)
===========================  ====================================================================

Everything is derived from the request itself (question, answer, contexts): no judge, no
dataset label. Words are the alphanumeric tokens of :func:`guardrail.text.tokens.tokenize`
(``"align"`` mode), compared by their alignment keys.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from guardrail.judges.local.structured import json_to_prose
from guardrail.text.ngrams import NgramIndex, bigrams, trigrams
from guardrail.text.sentences import split_sentences
from guardrail.text.tokens import Token, tokenize

FEATURE_NAMES: tuple[str, ...] = (
    "content",
    "in_context",
    "in_question",
    "number",
    "number_new",
    "capital",
    "capital_new",
    "bigram_prev",
    "bigram_next",
    "trigram",
    "window3",
    "window6",
    "sentence_coverage",
    "sentence_length",
    "position",
    "has_question",
    "structured",
)
_DIGIT = re.compile(r"\d")
_NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred thousand million billion trillion once twice thrice dozen half first second "
    "third fourth fifth sixth seventh eighth ninth tenth".split()
)
_SENTENCE_CAP = 30


@dataclass(frozen=True)
class ContextWords:
    """The context's word n-grams (by alignment key) and whether it was a JSON record."""

    ngrams: NgramIndex[str]
    structured: bool

    @classmethod
    def build(cls, contexts: Sequence[str]) -> ContextWords:
        """The contexts' words (remembered for the last few sets of contexts: the answers to
        one question share them)."""
        return _context_words(tuple(contexts))

    @classmethod
    def _build(cls, contexts: Sequence[str]) -> ContextWords:
        prose = [json_to_prose(c) for c in contexts]
        structured = any(p != c for p, c in zip(prose, contexts, strict=True))
        keys = [t.key for t in tokenize("\n\n".join(prose), "align") if t.is_alnum]
        return cls(NgramIndex.of(keys), structured)


#: Sets of contexts whose words are remembered.
CONTEXTS_KEPT = 8


@lru_cache(maxsize=CONTEXTS_KEPT)
def _context_words(contexts: tuple[str, ...]) -> ContextWords:
    return ContextWords._build(contexts)


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else 1.0


def word_features(
    answer: str, question: str, context: ContextWords
) -> tuple[list[Token], np.ndarray]:
    """The answer's word tokens and their feature matrix (rows in ``FEATURE_NAMES`` order)."""
    words = [t for t in tokenize(answer, "align") if t.is_alnum]
    n = len(words)
    if not n:
        return [], np.zeros((0, len(FEATURE_NAMES)))
    question_keys = {t.key for t in tokenize(question, "align") if t.is_alnum}
    found = [t.key in context.ngrams.unigrams for t in words]
    sentence_of: list[tuple[float, float]] = [(1.0, 0.0)] * n
    starts = [t.start for t in words]
    for start, end in split_sentences(answer, rules="plain"):
        inside = range(bisect_left(starts, start), bisect_left(starts, end))
        content = [found[i] for i in inside if words[i].content]
        figures = (_share(content), min(len(content), _SENTENCE_CAP) / _SENTENCE_CAP)
        for i in inside:
            sentence_of[i] = figures
    has_question = float(bool(question.strip()))
    keys = [t.key for t in words]
    bigram = [pair in context.ngrams.bigrams for pair in bigrams(keys)]
    trigram = [triple in context.ngrams.trigrams for triple in trigrams(keys)]
    # running counts of content words, and of those found in the context (for _share of a
    # window of words: hits / content words, 1.0 when the window has none)
    seen, hits = [0], [0]
    for t, f in zip(words, found, strict=True):
        seen.append(seen[-1] + t.content)
        hits.append(hits[-1] + (t.content and f))

    def near(i: int, reach: int) -> float:
        lo, hi = max(0, i - reach), min(n, i + reach + 1)
        count = seen[hi] - seen[lo]
        return (hits[hi] - hits[lo]) / count if count else 1.0

    table: list[tuple[float | bool, ...]] = []
    for i, t in enumerate(words):
        key = keys[i]
        number = bool(_DIGIT.search(t.text)) or t.text.lower() in _NUMBER_WORDS
        capital = i > 0 and t.text[:1].isupper()
        coverage, length = sentence_of[i]
        table.append(
            (
                t.content,
                found[i],
                key in question_keys,
                number,
                number and not found[i],
                capital,
                capital and not found[i],
                i > 0 and bigram[i - 1],
                i < n - 1 and bigram[i],
                any(trigram[max(0, i - 2) : min(i + 1, n - 2)]),
                near(i, 3),
                near(i, 6),
                coverage,
                length,
                i / n,
                has_question,
                context.structured,
            )
        )
    rows = np.array(table, dtype=float)
    return words, rows
