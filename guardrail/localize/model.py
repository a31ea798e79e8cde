"""Narrow flagged factoids to the words that carry the hallucination.

Scorers flag *factoids*; a factoid covers a clause, while the made-up part is often a date, a
name or an added phrase inside it. A :class:`SpanLocalizer` takes the answer, the request and
the character spans of each flagged factoid and returns narrower spans. The built-in
:class:`TokenLocalizer` is a logistic model over :mod:`~guardrail.localize.features`, stored as
JSON (``token_model.json`` beside this module, written by ``scripts/train_localizer.py``):

* every word of a flagged factoid whose probability of being hallucinated is at least the
  model's threshold is kept; neighbouring kept words form one span;
* if no word of a flagged factoid reaches the threshold (every word is supported, so the fault
  is likely polarity), its negations and the word after each are kept, or else its single most
  suspicious word, so every flagged factoid still points somewhere;
* a flagged factoid whose spans hold no word is passed through unchanged.

It never adds or removes a flag: the scorer's decision and score are untouched. Each factoid
that scored above zero gets ``focus`` (its narrowed spans, so a threshold sweep can use them),
and ``flagged_spans`` becomes the focus of the flagged factoids. It uses no judge, so it
narrows the factoids of any judge (LLM or offline) the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from guardrail.exceptions import ConfigError
from guardrail.localize.features import FEATURE_NAMES, ContextWords, word_features
from guardrail.model_files import read_json_model
from guardrail.models import Span
from guardrail.text.tokens import Token

LOCALIZER_FORMAT = "guardrail-localizer/1"
LOCALIZER_FILE = "token_model.json"
_JOIN_GAP = 2  # kept words at most this many characters apart form one span
_NEGATIONS = frozenset({"not", "no", "never", "without", "nor", "cannot"})


@runtime_checkable
class SpanLocalizer(Protocol):
    name: str

    def narrow(
        self,
        answer: str,
        question: str,
        contexts: Sequence[str],
        regions: Sequence[Sequence[Span]],
    ) -> list[list[Span]]:
        """Narrower spans for each of ``regions`` (one list of spans per factoid)."""
        ...


def word_runs(words: Sequence[Token], keep: Sequence[int]) -> list[Span]:
    """Spans of the kept words, joining neighbours at most ``_JOIN_GAP`` characters apart."""
    spans: list[Span] = []
    kept = set(keep)
    for i in sorted(kept):
        start, end = words[i].start, words[i].end
        if spans and start - spans[-1][1] <= _JOIN_GAP and i - 1 in kept:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def _numbers(raw: Any, name: str, size: int) -> np.ndarray:
    if (
        not isinstance(raw, list)
        or len(raw) != size
        or not all(isinstance(v, (int, float)) and np.isfinite(v) for v in raw)
    ):
        raise ConfigError(f"localizer model: {name!r} must be {size} finite numbers")
    return np.asarray(raw, dtype=float)


class TokenLocalizer:
    """A loaded ``token_model.json``: word probabilities and the keep threshold."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        if data.get("format") != LOCALIZER_FORMAT:
            raise ConfigError(
                f"localizer model: expected format {LOCALIZER_FORMAT!r}, got {data.get('format')!r}"
            )
        if list(data.get("feature_names") or []) != list(FEATURE_NAMES):
            raise ConfigError("localizer model: its feature names differ from this version's")
        self.coef = _numbers(data.get("coef"), "coef", len(FEATURE_NAMES))
        self.intercept = float(_numbers([data.get("intercept")], "intercept", 1)[0])
        self.threshold = float(_numbers([data.get("threshold")], "threshold", 1)[0])
        if not 0.0 < self.threshold < 1.0:
            raise ConfigError(f"localizer model: threshold must be in (0, 1), got {self.threshold}")
        self.meta: dict[str, Any] = dict(data.get("meta") or {})
        self.name = f"token-logistic@{self.threshold:.3f}"

    @classmethod
    def load(cls, path: str | Path | None = None) -> TokenLocalizer:
        """Read a model file; ``None`` reads the packaged ``token_model.json``."""
        data = read_json_model(
            path, package=__package__ or "", file_name=LOCALIZER_FILE, what="localizer model"
        )
        return cls(data)

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """P(word is part of a hallucinated span) for each feature row."""
        z = features @ self.coef + self.intercept
        out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
        return out

    def word_probabilities(
        self, answer: str, question: str, contexts: Sequence[str]
    ) -> tuple[list[Token], np.ndarray]:
        words, features = word_features(answer, question, ContextWords.build(contexts))
        return words, self.probabilities(features)

    def narrow(
        self,
        answer: str,
        question: str,
        contexts: Sequence[str],
        regions: Sequence[Sequence[Span]],
    ) -> list[list[Span]]:
        if not any(regions):
            return [list(r) for r in regions]
        words, p = self.word_probabilities(answer, question, contexts)
        out: list[list[Span]] = []
        for region in regions:
            inside = [i for i, w in enumerate(words) if any(s <= w.start < e for s, e in region)]
            if not inside:
                out.append(list(region))
                continue
            keep = [i for i in inside if p[i] >= self.threshold]
            if not keep:
                keep = _fallback(words, inside, p)
            out.append(word_runs(words, keep))
        return out


def _negation(word: Token) -> bool:
    low = word.text.lower().replace("’", "'")
    return low in _NEGATIONS or low.endswith("n't")


def _fallback(words: Sequence[Token], inside: Sequence[int], p: np.ndarray) -> list[int]:
    """Where to point when no word of a flagged factoid stands out lexically.

    Then every word is supported by the context, so the likely fault is polarity ("Curie did
    *not discover* radium"): keep each negation and the word after it. Without a negation, keep
    the single most suspicious word.
    """
    inside_set = set(inside)
    negations = [i for i in inside if _negation(words[i])]
    if negations:
        return sorted({j for i in negations for j in (i, i + 1) if j in inside_set})
    return [max(inside, key=lambda i: p[i])]


@cache
def packaged_localizer() -> TokenLocalizer:
    """The packaged model, read once per process."""
    return TokenLocalizer.load()
