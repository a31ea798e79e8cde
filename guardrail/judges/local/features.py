"""Features of a (statement, context) pair for the trained verifier.

Polarity (negations, opposite words, "It is not true that" framing) is deliberately *not* a
feature: the model estimates whether the statement's content is supported, and polarity is
applied afterwards (:class:`Polarity`), so "X" and "not X" get the same probability and
opposite verdicts (the rules' verdict used as a feature is also taken with polarity set aside).

The rule verifier's single matching pass (:func:`~guardrail.judges.local.verify.assess`) is
reused and summarized as numbers a linear model can weigh: how much of the statement the best
context unit covers, which numbers, names and words the context never mentions, whether the
best unit reverses the statement's polarity, and how much of the statement's wording occurs in
the context verbatim (word n-grams). A second, sparse part hashes the stems of words the
context does not contain, so the model can learn which unsupported words tend to be
embellishments ("popular", "cozy") and which are harmless ("information").

Per-context work (word n-gram sets) is done once per context by :func:`context_profile`; the
judge caches it beside the rule verifier's index.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.values import extract as values_of
from guardrail.judges.local.verify import (
    Assessment,
    ContextIndex,
    Support,
    Thresholds,
    _decide,
    word_reading,
)
from guardrail.lang.context import current_language
from guardrail.text.ngrams import NgramIndex, bigrams, trigrams
from guardrail.text.tokens import words

#: Names of the dense features, in vector order (the model file stores them to catch drift).
DENSE_NAMES: tuple[str, ...] = (
    "rule_supported",
    "rule_contradicted",
    "coverage",
    "strict_coverage",
    "absent_weight_frac",
    "absent_count_frac",
    "absent_count_log",
    "terms_log",
    "numbers",
    "numbers_absent",
    "numbers_missing_in_unit",
    "entities",
    "entities_absent",
    "entities_missing_in_unit",
    "unigram_cov",
    "bigram_cov",
    "trigram_cov",
    "longest_run_frac",
    "unit_size_ratio",
    "hedged",
    "context_json",
    "context_sentences_log",
    "max_absent_weight",
    "elsewhere_frac",
    "no_match",
    "context_passages",
)
#: Features whose weight may differ by context kind (structured record / labelled passages).
_INTERACT = (
    "coverage",
    "strict_coverage",
    "absent_weight_frac",
    "absent_count_frac",
    "absent_count_log",
    "terms_log",
    "unigram_cov",
    "bigram_cov",
    "trigram_cov",
    "longest_run_frac",
    "elsewhere_frac",
    "rule_supported",
)
DENSE_NAMES = (
    *DENSE_NAMES,
    *(f"json*{n}" for n in _INTERACT),
    *(f"passages*{n}" for n in _INTERACT),
)
#: The encoder verifier's probabilities for the statement's source (supported, contradicted,
#: unsupported), appended to :data:`DENSE_NAMES` when the trained model is stacked on the
#: encoder (``--judge local:encoder``).
ENCODER_NAMES: tuple[str, ...] = (
    "encoder_supported",
    "encoder_contradicted",
    "encoder_unsupported",
)
STACK_NAMES: tuple[str, ...] = (*DENSE_NAMES, *ENCODER_NAMES)
_INTERACT_AT = tuple(DENSE_NAMES.index(n) for n in _INTERACT)
_TERMS_LOG = DENSE_NAMES.index("terms_log")
_CONTEXT_SENTENCES_LOG = DENSE_NAMES.index("context_sentences_log")
_CONTEXT_JSON = DENSE_NAMES.index("context_json")
_CONTEXT_PASSAGES = DENSE_NAMES.index("context_passages")
#: The kinds of context a trained model may hold separate cut-offs for: a structured record
#: (JSON), labelled passages ("Passage 1: ..."), and any other prose.
CONTEXT_KINDS: tuple[str, ...] = ("json", "passages", "prose")
#: Buckets for the hashed stems the context does not contain. (Hashing every stem of the
#: statement, or its bigrams absent from the context, as extra namespaces lowered grouped-CV
#: AUC — they overfit the summary task — so there is one namespace.)
HASH_BUCKETS = 1024
#: Coverage of the best unit above which its polarity is trusted (the rule verifier's default).
TRUSTED_COVERAGE = 0.6
_PASSAGE = re.compile(r"^\s*(?:passage|document|source)\s*\d+\s*[:.]", re.I | re.M)
_HEDGES = frozenset(
    "may might could possibly perhaps likely unlikely probably suggest suggests suggested "
    "appear appears seem seems generally typically often usually some".split()
)


@dataclass(frozen=True)
class ContextProfile:
    """One context's lower-cased word n-grams and what kind of text it is."""

    ngrams: NgramIndex[str]
    json_like: bool
    passages: bool = False


def context_profile(context: str, *, structured: bool = False) -> ContextProfile:
    """Word n-grams and kind of a context (computed once per context).

    ``structured``: the text was rewritten from a JSON record (see
    :mod:`~guardrail.judges.local.structured`), which the features flag.
    """
    head = context.lstrip()[:1]
    return ContextProfile(
        ngrams=NgramIndex.of(words(context)),
        json_like=structured or head in ("{", "[") or context.count('": ') >= 3,
        passages=_PASSAGE.search(context) is not None,
    )


@dataclass(frozen=True)
class Features:
    """A dense vector (see :data:`DENSE_NAMES`) and hashed bucket ids of unsupported stems."""

    dense: tuple[float, ...]
    hashed: tuple[int, ...]

    def stacked(self, encoder: Sequence[float]) -> Features:
        """These features with the encoder's three probabilities appended
        (:data:`STACK_NAMES` order)."""
        return Features((*self.dense[: len(DENSE_NAMES)], *encoder), self.hashed)


def bucket(stem_text: str) -> int:
    """A stable hash bucket for a stem (CRC-32, so it is the same in every process)."""
    return zlib.crc32(stem_text.encode("utf-8")) % HASH_BUCKETS


def _ngram_cov(grams: Sequence[Hashable], known: frozenset[Any]) -> float:
    return sum(g in known for g in grams) / len(grams) if grams else 1.0


def _longest_run(flags: Sequence[bool]) -> int:
    best = run = 0
    for f in flags:
        run = run + 1 if f else 0
        best = max(best, run)
    return best


def extract(
    assessment: Assessment, index: ContextIndex, context: ContextProfile, lex: Lexicon
) -> Features:
    """The feature vector of one statement already assessed against ``index``."""
    terms = assessment.terms
    weights = assessment.weights or [1.0] * len(terms)
    best = assessment.best
    total_w = sum(weights) or 1.0
    absent = [not e for e in assessment.elsewhere]
    absent_w = sum(w for w, a in zip(weights, absent, strict=True) if a)
    n_terms = len(terms)
    n_absent = sum(absent)

    missing_ids = {id(t) for t in best.missing} if best else {id(t) for t in terms}
    strict = sum(w for t, w in zip(terms, weights, strict=True) if id(t) not in missing_ids)
    elsewhere = sum(
        w for t, w, a in zip(terms, weights, absent, strict=True) if id(t) in missing_ids and not a
    )
    unit = best.unit if best else None
    numbers = [t for t in terms if t.number is not None]
    entities = [t for t in terms if t.entity]
    num_missing_unit = sum(t.number not in unit.numbers for t in numbers) if unit else len(numbers)
    ent_missing_unit = sum(t.stem not in unit.stems for t in entities) if unit else len(entities)

    w = [t.lower for t in assessment.tokens if t.is_word or t.is_number]
    uni = [x for x in w if x[:1].isdigit() or word_reading(x, lex).content]
    bi = list(bigrams(w))
    tri = list(trigrams(w))
    tri_flags = [g in context.ngrams.trigrams for g in tri]
    run = _longest_run(tri_flags)
    outcome = assessment.finding.outcome
    if best is not None and assessment.parity:
        # the rules' verdict on the statement's content alone, polarity set aside
        outcome = _decide(best, terms, weights, assessment.elsewhere, 0, Thresholds()).outcome
    coverage = best.coverage if best else 0.0
    dense: tuple[float, ...] = (
        float(outcome is Support.SUPPORTED),
        float(outcome is Support.CONTRADICTED),
        coverage,
        strict / total_w,
        absent_w / total_w,
        n_absent / n_terms if n_terms else 0.0,
        math.log1p(n_absent),
        math.log1p(n_terms),
        float(len(numbers)),
        float(sum(a for t, a in zip(terms, absent, strict=True) if t.number is not None)),
        float(num_missing_unit),
        float(len(entities)),
        float(sum(a for t, a in zip(terms, absent, strict=True) if t.entity)),
        float(ent_missing_unit),
        _ngram_cov(uni, context.ngrams.unigrams),
        _ngram_cov(bi, context.ngrams.bigrams),
        _ngram_cov(tri, context.ngrams.trigrams),
        (run + 2) / len(w) if tri and run else 0.0,
        (unit.size / n_terms) if unit and n_terms else 0.0,
        float(any(x in _HEDGES for x in w)),
        float(context.json_like),
        math.log1p(index.sentences),
        max((wt for wt, a in zip(weights, absent, strict=True) if a), default=0.0) / 10.0,
        elsewhere / total_w,
        float(best is None),
        float(context.passages),
    )
    dense = (
        *dense,
        *(dense[i] * context.json_like for i in _INTERACT_AT),
        *(dense[i] * context.passages for i in _INTERACT_AT),
    )
    # the buckets' weights were learnt on English words: another language's words in them
    # would only be noise
    hashed = (
        tuple(
            sorted(
                {
                    bucket(t.stem)
                    for t, a in zip(terms, absent, strict=True)
                    if a and t.number is None
                }
            )
        )
        if lex.root is None
        else ()
    )
    return Features(dense, hashed)


@dataclass(frozen=True)
class Polarity:
    """Whether a statement reverses its best-matching context unit, and how far to trust it.

    ``parity``: an odd count of negations and opposite words between statement and unit;
    ``framing``: the statement is wrapped in "It is not true that ..."; ``coverage``: how much
    of the statement that unit covers (a poorly matched unit says little about polarity);
    ``negated``: the statement's own negations (framing included) are odd; ``matched``: some
    context unit matched the statement at all; ``opposed``: the unit holds an opposite of one of
    the statement's words on a verdict scale ("safe" against "contraindicated"; relational
    opposites such as "before"/"after" and prefixed forms do not count).
    """

    parity: bool
    framing: bool
    coverage: float
    negated: bool = False
    matched: bool = True
    opposed: bool = False

    def doubtful(self, trust: float = TRUSTED_COVERAGE) -> bool:
        """The unit reverses the statement but covers too little of it to be believed
        (:meth:`flipped` is false)."""
        return self.matched and self.parity and not self.flipped(trust)

    def flipped(self, trust: float = TRUSTED_COVERAGE) -> bool:
        """Reversed: the unit's parity when it covers at least ``trust``, or at least
        :data:`TRUSTED_COVERAGE` when a verdict-scale opposite takes part ("safe" against
        "contraindicated" is explicit; "before" against "after" may be the same order told
        from the other end, and a stray negation in a long sentence is not explicit); with no
        matching unit at all, the statement's own negations (a context states what it states
        affirmatively: "It does not offer takeout" reverses a record that lists takeout);
        else the framing."""
        if not self.matched:
            return self.negated
        if self.coverage >= trust or (self.opposed and self.coverage >= TRUSTED_COVERAGE):
            return self.parity
        return self.framing


def reverses(variant: Assessment, factoid: Assessment) -> bool | None:
    """Whether a variant reverses the factoid it was made from (an odd count of negations and
    opposite words between them, or of limits turned around: "don't go over 1,200 mg" /
    "go over 1,200 mg", where the negation is read as part of the bound), read through the
    context unit both match; with no unit matching either, from their own negations.
    ``None`` when they match different units (the two cannot be compared through the
    context)."""
    if variant.best is None and factoid.best is None:
        flipped = (variant.negations - factoid.negations) % 2 == 1
    elif variant.best is None or factoid.best is None or variant.best.unit is not factoid.best.unit:
        return None
    else:
        flipped = variant.parity != factoid.parity
    return flipped != bounds_turned(variant.core, factoid.core)


def bounds_turned(variant: str, factoid: str) -> bool:
    """Whether ``variant`` bounds an odd number of the factoid's amounts the other way ("at
    most 20" / "more than 20")."""
    if not variant or not factoid:
        return False
    code = current_language()
    mine = dict(_bounded(factoid, code))
    if not mine:
        return False
    flips = sum(1 for amount, bound in _bounded(variant, code) if mine.get(amount) == -bound)
    return flips % 2 == 1


@lru_cache(maxsize=4096)
def _bounded(text: str, code: str) -> tuple[tuple[tuple[str, str, float | None], int], ...]:
    """((kind, key, amount), bound) of each bounded amount of ``text`` read in language
    ``code`` (remembered: a factoid is read once for all its variants)."""
    return tuple(((v.kind, v.key, v.amount), v.bound) for v in values_of(text) if v.bound)


def polarity(assessment: Assessment) -> Polarity:
    """The statement's polarity relative to its best-matching context unit."""
    best = assessment.best
    return Polarity(
        parity=assessment.parity == 1,
        framing=assessment.framing % 2 == 1,
        coverage=best.coverage if best is not None else 0.0,
        negated=assessment.negations % 2 == 1,
        matched=best is not None,
        opposed=best is not None and best.decisive,
    )


def checkable(features: Features) -> bool:
    """False when there is nothing to weigh: no content words, or an empty context.

    Such statements get the rule verifier's answer (NOT SURE), not a model guess.
    """
    return features.dense[_TERMS_LOG] > 0 and features.dense[_CONTEXT_SENTENCES_LOG] > 0


def context_kind(features: Features) -> str:
    """The kind of context (one of :data:`CONTEXT_KINDS`) the statement was read against."""
    if features.dense[_CONTEXT_JSON] > 0:
        return "json"
    if features.dense[_CONTEXT_PASSAGES] > 0:
        return "passages"
    return "prose"
