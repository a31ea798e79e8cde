"""The trained verifier: a small model over alignment features, stored as JSON.

The model (``verifier.json`` beside this module, written by ``scripts/train_verifier.py``) maps a
statement's :mod:`~guardrail.judges.local.features` to ``p``, the probability that the statement
is not supported by the context. Two model kinds are read, both as plain numbers (never pickle):

* ``logistic``: standardized dense features and hashed-stem weights, one dot product;
* ``trees``: gradient-boosted regression trees (node arrays), summed in log-odds.

``p`` becomes a three-way outcome through thresholds chosen by cross-validation (they live in the
same file), and through *polarity*: when the statement reverses the best-matching context unit
(an odd count of negations and opposite words, trusted only when that unit covers most of the
statement) or is wrapped in "It is not true that ...", a well-supported core means the
statement is contradicted, not supported. That is what makes MetaRAG's antonym variants of a
supported claim come back ``NO`` while its synonyms come back ``YES``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guardrail.exceptions import ConfigError
from guardrail.judges.local.features import (
    CONTEXT_KINDS,
    DENSE_NAMES,
    HASH_BUCKETS,
    STACK_NAMES,
    TRUSTED_COVERAGE,
    Features,
)
from guardrail.judges.local.verify import Support
from guardrail.model_files import read_json_model

VERIFIER_FORMAT = "guardrail-verifier/1"
VERIFIER_FILE = "verifier.json"


@dataclass(frozen=True)
class Cutoffs:
    """Thresholds on ``p``: supported below ``support``; contradicted at or above ``refute``.

    ``entailed`` is RT4CHART's own support threshold (its answer is flagged as soon as one claim
    is not ENTAILED, so it wants a different operating point than MetaRAG's mean penalty).
    ``trust`` is the coverage of the best context unit above which its polarity is believed
    (see :class:`~guardrail.judges.local.features.Polarity`). ``kinds`` holds separate
    ``(kind, support, entailed)`` cut-offs for statements read against one kind of context
    (:data:`~guardrail.judges.local.features.CONTEXT_KINDS`: a JSON record, labelled passages,
    other prose); a kind not listed uses ``support`` and ``entailed``.
    """

    support: float = 0.5
    refute: float = 1.01
    entailed: float = 0.5
    rule_clash: bool = False
    trust: float = TRUSTED_COVERAGE
    kinds: tuple[tuple[str, float, float], ...] = ()

    def cut(self, kind: str | None = None, *, rt4chart: bool = False) -> float:
        """The support threshold for a statement read against a context of ``kind``
        (MetaRAG's, or RT4CHART's with ``rt4chart``)."""
        for name, support, entailed in self.kinds:
            if name == kind:
                return entailed if rt4chart else support
        return self.entailed if rt4chart else self.support

    def as_dict(self) -> dict[str, Any]:
        """The thresholds as a model file stores them."""
        out: dict[str, Any] = {
            "support": self.support,
            "refute": self.refute,
            "entailed": self.entailed,
            "rule_clash": self.rule_clash,
            "trust": self.trust,
        }
        if self.kinds:
            out["kinds"] = {k: {"support": s, "entailed": e} for k, s, e in self.kinds}
        return out

    def outcome(
        self, p: float, flipped: bool, *, clash: bool = False, support: float | None = None
    ) -> Support:
        """The three-way outcome for probability ``p`` and the statement's polarity.

        ``clash``: the rule verifier found a number or name that differs from the best-matching
        context unit; with ``rule_clash`` on, that alone makes the statement contradicted.
        """
        cut = self.support if support is None else support
        if clash and self.rule_clash and not flipped:
            return Support.CONTRADICTED
        if p < cut:
            return Support.CONTRADICTED if flipped else Support.SUPPORTED
        if p >= self.refute and not flipped:
            return Support.CONTRADICTED
        return Support.UNKNOWN

    def screen_risk(self, p: float, flipped: bool, *, clash: bool = False) -> float:
        """The cascade's unsupported-risk: ``p``, or 1.0 when the polarity (or, with
        ``rule_clash``, a clashing number or name) says the statement is not supported
        whatever ``p`` is — such a statement is never settled as supported."""
        outcome = self.outcome(p, flipped, clash=clash, support=1.01)  # p < 1.01 always
        return p if outcome is Support.SUPPORTED else 1.0


@dataclass(frozen=True)
class _Tree:
    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[float, ...]

    def predict(self, x: Sequence[float]) -> float:
        node = 0
        while self.left[node] >= 0:
            node = (
                self.left[node]
                if x[self.feature[node]] <= self.threshold[node]
                else self.right[node]
            )
        return self.value[node]


def _floats(raw: Any, name: str, size: int | None = None) -> tuple[float, ...]:
    if not isinstance(raw, list) or not all(isinstance(v, (int, float)) for v in raw):
        raise ConfigError(f"verifier model: {name!r} must be a list of numbers")
    if size is not None and len(raw) != size:
        raise ConfigError(f"verifier model: {name!r} has {len(raw)} values, expected {size}")
    return tuple(float(v) for v in raw)


def _ints(raw: Any, name: str) -> tuple[int, ...]:
    if not isinstance(raw, list) or not all(isinstance(v, int) for v in raw):
        raise ConfigError(f"verifier model: {name!r} must be a list of integers")
    return tuple(raw)


def _kinds(raw: Any) -> tuple[tuple[str, float, float], ...]:
    """Per-context-kind cut-offs from a model file (``{"json": {"support": .., "entailed":
    ..}, ...}``; absent: none)."""
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise ConfigError("verifier model: 'thresholds.kinds' must be a mapping")
    out = []
    for kind, cuts in raw.items():
        if kind not in CONTEXT_KINDS:
            raise ConfigError(
                f"verifier model: unknown context kind {kind!r} "
                f"(expected one of {', '.join(CONTEXT_KINDS)})"
            )
        if not isinstance(cuts, dict):
            raise ConfigError(f"verifier model: the cut-offs of kind {kind!r} must be a mapping")
        support, entailed = _floats([cuts.get("support"), cuts.get("entailed")], f"kinds.{kind}")
        out.append((str(kind), support, entailed))
    return tuple(out)


class VerifierModel:
    """A loaded ``verifier.json``: ``probability(features)`` and the decision thresholds."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        if data.get("format") != VERIFIER_FORMAT:
            raise ConfigError(
                f"verifier model: expected format {VERIFIER_FORMAT!r}, got {data.get('format')!r}"
            )
        names = list(data.get("dense_names") or [])
        if names not in (list(DENSE_NAMES), list(STACK_NAMES)):
            raise ConfigError("verifier model: its feature names differ from this version's")
        #: Stacked on the encoder verifier: the features end with the encoder's probabilities.
        self.stacked = names == list(STACK_NAMES)
        if data.get("hash_buckets") != HASH_BUCKETS:
            raise ConfigError("verifier model: hash bucket count differs from this version's")
        self.kind = str(data.get("kind"))
        n = len(names)
        self.intercept = float(data.get("intercept", 0.0))
        self.mean = _floats(data.get("mean", [0.0] * n), "mean", n)
        self.scale = _floats(data.get("scale", [1.0] * n), "scale", n)
        if self.kind == "logistic":
            self.coef = _floats(data.get("coef"), "coef", n)
            self.hashed_coef = _floats(
                data.get("hashed_coef", [0.0] * HASH_BUCKETS), "hashed_coef", HASH_BUCKETS
            )
            self.trees: tuple[_Tree, ...] = ()
        elif self.kind == "trees":
            self.coef = ()
            self.hashed_coef = ()
            self.learning_rate = float(data.get("learning_rate", 1.0))
            trees = data.get("trees")
            if not isinstance(trees, list) or not trees:
                raise ConfigError("verifier model: 'trees' must be a non-empty list")
            self.trees = tuple(
                _Tree(
                    _ints(t.get("feature"), "feature"),
                    _floats(t.get("threshold"), "threshold"),
                    _ints(t.get("left"), "left"),
                    _ints(t.get("right"), "right"),
                    _floats(t.get("value"), "value"),
                )
                for t in trees
            )
        else:
            raise ConfigError(f"verifier model: unknown kind {self.kind!r}")
        th = data.get("thresholds") or {}
        default = Cutoffs()
        support = float(th.get("support", default.support))
        self.decision = Cutoffs(
            support=support,
            refute=float(th.get("refute", default.refute)),
            entailed=float(th.get("entailed", support)),  # RT4CHART's cut defaults to MetaRAG's
            rule_clash=bool(th.get("rule_clash", default.rule_clash)),
            trust=float(th.get("trust", default.trust)),
            kinds=_kinds(th.get("kinds")),
        )
        self.meta: dict[str, Any] = dict(data.get("meta") or {})

    @classmethod
    def load(cls, path: str | Path | None = None) -> VerifierModel:
        """Read a model file; ``None`` reads the packaged ``verifier.json``."""
        data = read_json_model(
            path, package=__package__ or "", file_name=VERIFIER_FILE, what="verifier model"
        )
        return cls(data)

    def log_odds(self, features: Features) -> float:
        x = features.dense
        if self.kind == "logistic":
            z = self.intercept
            for value, mu, sd, w in zip(x, self.mean, self.scale, self.coef, strict=True):
                z += w * (value - mu) / sd
            for b in features.hashed:
                z += self.hashed_coef[b]
            return z
        return self.intercept + self.learning_rate * sum(t.predict(x) for t in self.trees)

    def probability(self, features: Features) -> float:
        """P(statement not supported by the context)."""
        z = self.log_odds(features)
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)
