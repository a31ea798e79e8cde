"""Tag a turn with coarse topics (MetaRAG §3.6, hook 1: "a lightweight topic classifier or
rule-based tagger"), so the policy can apply a stricter threshold to sensitive domains.

Only the *topic* of the query or retrieved context is inferred — never an attribute of the
person asking.

Two complementary signals:

* **A linear model** trained at construction from the policy's topic ``examples`` and
  ``description``: TF-IDF word 1-2-grams plus character 2-5-grams (robust to typos and
  inflections), and one balanced logistic regression *per topic* (one-vs-rest). Per-topic
  models give each topic its own probability, so a question about asylum seekers' right to
  work can score high for both topics instead of splitting one softmax between them.
  Training takes milliseconds, so nothing is pickled: the model is rebuilt from the policy.
* **Keyword rules**: whole-word, case-insensitive phrases. A hit detects the topic with
  ``source="keyword"`` and confidence 1.0 — a rule either fires or it does not.

A topic is detected when a keyword hits or its probability is >= ``confidence_floor``. When
any specific topic is detected the default topic is dropped (it means "nothing specific");
when none is, the result is the default topic alone with ``source="default"`` and confidence
``1 - (highest probability of any other topic)``. Results are sorted by confidence and never
empty. Everything is deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from guardrail.exceptions import ConfigError
from guardrail.models import TopicLabel
from guardrail.policy.schema import Policy, TopicRule

if TYPE_CHECKING:
    import numpy as np
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import FeatureUnion

#: Regularisation of the per-topic logistic regressions. Few examples per topic call for a
#: fairly weak penalty so probabilities clear the floor on clear cases.
_C = 10.0
#: Character n-gram range (``char_wb``): sub-word pieces generalise from few examples.
_CHAR_NGRAMS = (2, 5)


#: Characters of each retrieved passage the classifier reads.
CONTEXT_CHARS_READ = 20_000


def keyword_pattern(keyword: str) -> re.Pattern[str]:
    """Whole-word, case-insensitive match; inner whitespace matches any run of whitespace.

    Look-arounds instead of ``\\b`` so phrases that start or end in punctuation
    (``LGBTQ+``) still need a word boundary on the outside.
    """
    words = [re.escape(w) for w in keyword.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


@dataclass(frozen=True)
class _Model:
    """The fitted vectorizer and per-topic regressions; ``classes`` in column order."""

    vectorizer: FeatureUnion
    classifier: OneVsRestClassifier
    classes: tuple[str, ...]
    #: Every topic's regression stacked (one row each): ``expit(X @ weights.T + bias)`` is
    #: exactly ``classifier.predict_proba(X)``, without scikit-learn's per-call checks.
    weights: np.ndarray
    bias: np.ndarray


@dataclass(frozen=True)
class _Topic:
    rule: TopicRule
    order: int
    patterns: tuple[re.Pattern[str], ...]


class TopicClassifier:
    """Topic tagger for one policy. Build it with :meth:`from_policy`."""

    def __init__(
        self,
        topics: Sequence[TopicRule],
        *,
        default_topic: str,
        confidence_floor: float = 0.5,
        max_topics: int = 3,
    ) -> None:
        names = [t.name for t in topics]
        if default_topic not in names:
            raise ConfigError(f"default topic {default_topic!r} is not among {names}")
        if not 0.0 <= confidence_floor <= 1.0:
            raise ConfigError("confidence_floor must be in [0, 1]")
        if max_topics < 1:
            raise ConfigError("max_topics must be >= 1")
        self.default_topic = default_topic
        self.confidence_floor = confidence_floor
        self.max_topics = max_topics
        self._topics = tuple(
            _Topic(rule, i, tuple(keyword_pattern(k) for k in rule.keywords))
            for i, rule in enumerate(topics)
        )
        self._reads_context = any(t.reads in ("context", "both") for t in topics)
        self._model = _train(topics)
        self._classes = self._model.classes if self._model is not None else ()

    @classmethod
    def from_policy(cls, policy: Policy) -> TopicClassifier:
        """Train on ``policy``'s topic examples and descriptions."""
        return cls(
            policy.topics,
            default_topic=policy.classifier.default_topic,
            confidence_floor=policy.classifier.confidence_floor,
            max_topics=policy.classifier.max_topics,
        )

    @property
    def trained_topics(self) -> tuple[str, ...]:
        """Topics the linear model knows (those with examples or a description)."""
        return self._classes

    def probabilities(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """Per-topic probabilities for each text (empty dicts when no model was trained)."""
        if self._model is None or not texts:
            return [{} for _ in texts]
        import numpy as np  # loaded with scikit-learn when the model was trained
        from scipy.sparse import hstack  # loaded with scikit-learn
        from scipy.special import expit

        model = self._model
        # FeatureUnion.transform, without its joblib and output-wrapping overhead (a third of
        # the time per query): each part's features side by side, exactly as it stacks them.
        parts = [part.transform(list(texts)) for _, part in model.vectorizer.transformer_list]
        proba = expit(hstack(parts).tocsr() @ model.weights.T + model.bias)
        return [
            {name: float(p) for name, p in zip(self._classes, row, strict=True)}
            for row in np.atleast_2d(proba)
        ]

    def classify(self, query: str, contexts: Sequence[str] = ()) -> list[TopicLabel]:
        """Topics of one turn, strongest first; each topic reads the text its rule names."""
        # Contexts are classified only when some rule reads them (they cost most of the time).
        # Only the head of each passage is read: it says what the passage is about, and a
        # megabyte of text would cost a single regular-expression call that holds the GIL.
        contexts = (
            [c[:CONTEXT_CHARS_READ] for c in contexts if c.strip()] if self._reads_context else []
        )
        scored = self.probabilities([query, *contexts])
        query_p, context_ps = scored[0], scored[1:]

        found: list[tuple[TopicLabel, float, int]] = []
        probs: dict[str, float] = {}
        for topic in self._topics:
            rule = topic.rule
            reads_query = rule.reads in ("query", "both")
            reads_context = rule.reads in ("context", "both")
            p = query_p.get(rule.name, 0.0) if reads_query else 0.0
            if reads_context:
                p = max([p, *(cp.get(rule.name, 0.0) for cp in context_ps)])
            probs[rule.name] = p
            texts = ([query] if reads_query else []) + (contexts if reads_context else [])
            if any(pat.search(text) for pat in topic.patterns for text in texts):
                label = TopicLabel(
                    label=rule.name, confidence=1.0, source="keyword", sensitivity=rule.sensitivity
                )
            elif p >= self.confidence_floor and rule.name in self._classes:
                label = TopicLabel(
                    label=rule.name,
                    confidence=_clip(p),
                    source="classifier",
                    sensitivity=rule.sensitivity,
                )
            else:
                continue
            found.append((label, p, topic.order))

        specific = [f for f in found if f[0].label != self.default_topic]
        chosen = specific or found
        if not chosen:
            others = [p for name, p in probs.items() if name != self.default_topic]
            rule = self._topics[self._index(self.default_topic)].rule
            return [
                TopicLabel(
                    label=rule.name,
                    confidence=_clip(1.0 - max(others, default=0.0)),
                    source="default",
                    sensitivity=rule.sensitivity,
                )
            ]
        chosen.sort(key=lambda f: (-f[0].confidence, -f[1], f[2]))
        return [label for label, _, _ in chosen[: self.max_topics]]

    def _index(self, name: str) -> int:
        return next(t.order for t in self._topics if t.rule.name == name)


def _clip(p: float) -> float:
    return round(min(1.0, max(0.0, p)), 6)


def _train(topics: Sequence[TopicRule]) -> _Model | None:
    """Fit the vectorizer and per-topic models; ``None`` when fewer than two topics have data.

    scikit-learn (about a second to import) loads here, when the first model is trained, so
    that ``import guardrail`` and the CLI stay fast.
    """
    docs: list[str] = []
    labels: list[str] = []
    for rule in topics:
        texts = [*rule.examples, *([rule.description] if rule.description.strip() else [])]
        docs.extend(texts)
        labels.extend([rule.name] * len(texts))
    classes = tuple(dict.fromkeys(labels))
    if len(classes) < 2:
        return None
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import FeatureUnion

    vectorizer = FeatureUnion(
        [
            (
                "word",
                TfidfVectorizer(
                    analyzer="word",
                    ngram_range=(1, 2),
                    sublinear_tf=True,
                    strip_accents="unicode",
                ),
            ),
            (
                "char",
                TfidfVectorizer(
                    analyzer="char_wb",
                    ngram_range=_CHAR_NGRAMS,
                    sublinear_tf=True,
                    strip_accents="unicode",
                ),
            ),
        ]
    )
    features = vectorizer.fit_transform(docs)
    # An indicator matrix (not a label vector) makes OneVsRestClassifier treat the task as
    # multi-label, so predict_proba keeps each topic's own probability instead of normalising
    # them to sum to one.
    indicator = np.array([[label == c for c in classes] for label in labels], dtype=int)
    # liblinear: single-threaded C code, about 3x less CPU than lbfgs here (lbfgs's BLAS
    # threads spin on a busy machine); random_state pins its data shuffling.
    model = OneVsRestClassifier(
        LogisticRegression(
            C=_C, class_weight="balanced", solver="liblinear", max_iter=2000, random_state=0
        )
    )
    model.fit(features, indicator)
    weights = np.vstack([e.coef_ for e in model.estimators_])
    bias = np.array([e.intercept_[0] for e in model.estimators_])
    return _Model(vectorizer, model, classes, weights, bias)
