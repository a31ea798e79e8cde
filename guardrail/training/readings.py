"""What training reads from the offline verifier: the same code path as scoring.

The trained verifier's features of a statement (and its polarity), and the context window the
encoder verifier checks a statement against, both computed by a
:class:`~guardrail.judges.local.verifiers.TrainedVerifier`'s preprocessing and matching pass,
so training inputs match scoring's exactly.
"""

from __future__ import annotations

from guardrail.judges.local.encoder import WINDOW_WORDS, window
from guardrail.judges.local.features import Features, Polarity, polarity
from guardrail.judges.local.verifiers import LexicalVerifier, TrainedVerifier


def reader(cache_size: int = 4) -> TrainedVerifier:
    """A verifier to read statements with (its model is never loaded by the functions here)."""
    return TrainedVerifier(cache_size=cache_size)


def statement_features(
    verifier: LexicalVerifier, statement: str, context: str
) -> tuple[Features, Polarity]:
    """The trained verifier's features of one statement against ``context``, and its polarity."""
    assessment, features = verifier.read(statement, context)
    return features, polarity(assessment)


def encoder_window(
    verifier: LexicalVerifier, statement: str, context: str, words: int = WINDOW_WORDS
) -> str:
    """The context window the encoder verifier checks ``statement`` against."""
    prepared = verifier.prepare(context)
    return window(verifier.assess(statement, prepared), prepared.sentences, words)
