"""What training reads from the offline verifier: the same code path as scoring.

The trained verifier's features of a statement (and its polarity), and the context window the
encoder verifier checks a statement against, both computed by a
:class:`~guardrail.judges.local.verifiers.TrainedVerifier`'s preprocessing and matching pass,
so training inputs match scoring's exactly.
"""

from __future__ import annotations

from typing import Literal, overload

from guardrail.judges.local.encoder import WINDOW_WORDS, window
from guardrail.judges.local.features import Features, Polarity, polarity, reverses
from guardrail.judges.local.verifiers import LexicalVerifier, TrainedVerifier
from guardrail.judges.local.verify import Support


def reader(cache_size: int = 4) -> TrainedVerifier:
    """A verifier to read statements with (its model is never loaded by the functions here)."""
    return TrainedVerifier(cache_size=cache_size)


@overload
def statement_features(
    verifier: LexicalVerifier, statement: str, context: str
) -> tuple[Features, Polarity]: ...


@overload
def statement_features(
    verifier: LexicalVerifier, statement: str, context: str, *, conflicts: Literal[True]
) -> tuple[Features, Polarity, Support | None]: ...


def statement_features(
    verifier: LexicalVerifier, statement: str, context: str, *, conflicts: bool = False
) -> tuple[Features, Polarity] | tuple[Features, Polarity, Support | None]:
    """The trained verifier's features of one statement against ``context``, and its polarity;
    with ``conflicts``, also the conflict check's verdict (``None`` when it does not decide),
    which scoring applies before the model."""
    prepared = verifier.prepare(context)
    assessment = verifier.assess(statement, prepared)
    features = verifier.features(assessment, prepared)
    if not conflicts:
        return features, polarity(assessment)
    found = verifier.value_verdict(statement, assessment, prepared)
    return features, polarity(assessment), found.outcome if found else None


def anchored(verifier: LexicalVerifier, statement: str, context: str) -> bool:
    """Whether the passage sentence ``statement`` matches best gives every value it states
    (:mod:`~guardrail.judges.local.anchors`): scoring then supports a factoid the model leaves
    undecided."""
    prepared = verifier.prepare(context)
    assert prepared.conflicts is not None
    return prepared.conflicts.anchored(statement, verifier.assess(statement, prepared)) is not None


def variant_reverses(
    verifier: LexicalVerifier, variant: str, factoid: str, context: str
) -> bool | None:
    """Whether a MetaRAG variant reverses its factoid, read through ``context`` as the trained
    verifier reads it (``None``: not comparable)."""
    if variant == factoid:
        return None
    prepared = verifier.prepare(context)
    return reverses(verifier.assess(variant, prepared), verifier.assess(factoid, prepared))


def encoder_window(
    verifier: LexicalVerifier, statement: str, context: str, words: int = WINDOW_WORDS
) -> str:
    """The context window the encoder verifier checks ``statement`` against."""
    prepared = verifier.prepare(context)
    return window(verifier.assess(statement, prepared), prepared.sentences, words)
