"""The topic classifier: keyword rules, the confidence floor, several topics, `reads`,
determinism, the evaluation set's hygiene (no overlap with training examples), and the opt-in
sentence embeddings of the encoder network."""

from __future__ import annotations

import builtins
import json
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from guardrail.exceptions import ConfigError
from guardrail.policy import PolicyEngine, TopicRule, load_policy, parse_policy
from guardrail.policy.schema import ENCODER_CONFIDENCE_FLOOR
from guardrail.topics import TopicClassifier, keyword_pattern, load_encoder
from tests.needs import unavailable

if TYPE_CHECKING:
    from guardrail.judges.local.encoder import EncoderModel

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_POLICY = ROOT / "policies" / "default.yaml"
EVAL_SET = ROOT / "tests" / "data" / "topic_eval.jsonl"
#: Topic queries in the seven languages, written for development before the policy's
#: multilingual vocabulary (each row names its ``language``).
LANGUAGE_EVAL_SET = ROOT / "tests" / "data" / "topic_eval_languages.jsonl"

TOY = """\
name: toy
classifier: {confidence_floor: 0.5, default_topic: general, max_topics: 3}
topics:
  - name: general
    threshold: 0.5
    examples:
      - how do I reset my password
      - where is the printer
      - how do I book a meeting room
      - what time does the office open
  - name: cooking
    threshold: 0.5
    keywords: [recipe]
    examples:
      - how long do I bake a chocolate cake
      - what temperature to roast a chicken
      - how do I make pasta dough
      - can I freeze cooked rice
  - name: pets
    sensitivity: sensitive
    threshold: 0.3
    reads: both
    keywords: [vet, dog food]
    examples:
      - how often should I walk my dog
      - why does my cat scratch the sofa
      - what should I feed a puppy
      - how do I stop my dog barking
  - name: legal
    threshold: 0.4
    reads: context
    keywords: [statute]
"""


@pytest.fixture(scope="module")
def toy() -> TopicClassifier:
    return TopicClassifier.from_policy(parse_policy(TOY))


@pytest.fixture(scope="module")
def default() -> TopicClassifier:
    return TopicClassifier.from_policy(load_policy(DEFAULT_POLICY))


def _names(labels: list) -> list[str]:
    return [t.label for t in labels]


# -- keywords ----------------------------------------------------------------------------------


def test_keyword_hit_detects_topic_with_full_confidence(toy: TopicClassifier):
    """A keyword match yields the topic with source='keyword' and confidence 1.0."""
    labels = toy.classify("Any good RECIPE for a lazy Sunday?")
    assert labels[0].label == "cooking"
    assert (labels[0].source, labels[0].confidence) == ("keyword", 1.0)


@pytest.mark.parametrize(
    ("keyword", "text", "hit"),
    [
        ("visa", "Do I need a VISA?", True),
        ("visa", "I hold two visas", False),
        ("visa", "is this advisable", False),
        ("right to work", "my right  to\nwork check", True),
        ("right to work", "the right to workplace safety", False),
        ("LGBTQ+", "support for LGBTQ+ people", True),
        ("breast-feeding", "while Breast-Feeding my son", True),
        # a leading * stands for a word's start (two letters or more): drug-name stems
        ("*profen", "Can I take ibuprofen?", True),
        ("*profen", "Dexketoprofen twice a day", True),
        ("*profen", "profen alone is no drug", False),
        ("*pril", "I take ramipril", True),
        ("*pril", "the April invoice", False),
        ("*pril", "ramiprils", False),
        # a trailing * stands for any ending: inflected forms
        ("*cillin*", "amoxicilline 500 mg", True),
        ("*cillin*", "Amoxicillina per il bambino", True),
        ("Tablette*", "zwei Tabletten am Tag", True),
        ("Tablette*", "eine Tablette", True),
        ("Tablette*", "Tablet computer", False),
        ("sick pay*", "statutory sick payments", True),
        ("5 *", "rated 5 * by guests", True),
        # a * inside a word is an ordinary character
        ("a*b", "see a*b now", True),
        ("a*b", "see axxb now", False),
    ],
)
def test_keywords_match_whole_words_case_insensitively(keyword: str, text: str, hit: bool):
    """Keywords need word boundaries, ignore case, and let spaces match any whitespace; a ``*``
    at the start or end of a keyword's word stands for the rest of that word."""
    assert bool(keyword_pattern(keyword).search(text)) is hit


def test_keyword_that_is_a_regex_is_taken_literally():
    """Keywords are escaped: 'a.b' does not match 'axb'."""
    assert keyword_pattern("a.b").search("axb") is None
    assert keyword_pattern("a.b").search("see a.b now") is not None


# -- floor, default, several topics ------------------------------------------------------------


def test_classifier_learns_from_examples(toy: TopicClassifier):
    """An unseen query about baking is tagged cooking by the model (no keyword involved)."""
    labels = toy.classify("what oven temperature for baking bread")
    assert labels[0].label == "cooking"
    assert labels[0].source == "classifier"


def test_below_floor_falls_back_to_default_topic():
    """With a floor nothing can reach, every non-keyword query gets the default topic."""
    policy = parse_policy(TOY.replace("confidence_floor: 0.5", "confidence_floor: 1.0"))
    labels = TopicClassifier.from_policy(policy).classify("how long do I bake a chocolate cake")
    assert len(labels) == 1
    assert (labels[0].label, labels[0].source) == ("general", "default")
    assert 0.0 <= labels[0].confidence <= 1.0


def test_keywords_bypass_the_floor():
    """A keyword still detects its topic when the model's floor is unreachable."""
    policy = parse_policy(TOY.replace("confidence_floor: 0.5", "confidence_floor: 1.0"))
    labels = TopicClassifier.from_policy(policy).classify("ask the vet")
    assert _names(labels) == ["pets"]


def test_several_topics_sorted_by_confidence(toy: TopicClassifier):
    """Keyword hits for two topics give both, strongest first, ties broken by the model."""
    labels = toy.classify("is this recipe for homemade dog food safe, asks my vet")
    assert set(_names(labels)) == {"cooking", "pets"}
    confidences = [t.confidence for t in labels]
    assert confidences == sorted(confidences, reverse=True)


def test_max_topics_truncates():
    """No more than max_topics labels come back."""
    policy = parse_policy(TOY.replace("max_topics: 3", "max_topics: 1"))
    labels = TopicClassifier.from_policy(policy).classify("recipe for dog food from the vet")
    assert len(labels) == 1


def test_floor_zero_reports_every_specific_topic_and_drops_default():
    """At floor 0 every trained topic is detected; the default topic is dropped beside them."""
    policy = parse_policy(TOY.replace("confidence_floor: 0.5", "confidence_floor: 0.0"))
    labels = TopicClassifier.from_policy(policy).classify("hello")
    assert set(_names(labels)) == {"cooking", "pets"}  # legal has no examples, only keywords


def test_default_topic_detected_by_the_model_is_labelled_classifier(toy: TopicClassifier):
    """A clearly general query is the default topic, found by the model itself."""
    labels = toy.classify("where is the printer on this floor")
    assert _names(labels) == ["general"]
    assert labels[0].source == "classifier"


def test_sensitivity_is_copied_from_the_rule(toy: TopicClassifier):
    """Labels carry their rule's sensitivity so audit records show it."""
    assert toy.classify("call the vet")[0].sensitivity == "sensitive"


def test_never_empty(toy: TopicClassifier):
    """Empty, whitespace and odd input still yield exactly one label (the default)."""
    for text in ["", "   ", "%%%", "ß" * 500]:
        labels = toy.classify(text)
        assert len(labels) == 1 and labels[0].label == toy.default_topic, text


# -- reads ------------------------------------------------------------------------------------


def test_reads_context_only_sees_contexts(toy: TopicClassifier):
    """A reads=context topic fires from a passage, not from the query."""
    assert "legal" not in _names(toy.classify("what does the statute say"))
    labels = toy.classify("what does it say", ["Under the statute, tenants must..."])
    assert "legal" in _names(labels)


def test_reads_query_ignores_contexts(toy: TopicClassifier):
    """A reads=query topic is not triggered by words in the passages."""
    labels = toy.classify("what does it say", ["A classic recipe for bread."])
    assert "cooking" not in _names(labels)


def test_reads_both_sees_either(toy: TopicClassifier):
    """A reads=both topic fires from the query or from a passage."""
    assert "pets" in _names(toy.classify("take him to the vet"))
    assert "pets" in _names(toy.classify("is this normal?", ["Ask your vet about it."]))


def test_paper_pregnancy_vignette_is_detected_from_context(default: TopicClassifier):
    """Query without a pregnancy word + context about the third trimester -> pregnancy."""
    labels = default.classify(
        "Is ibuprofen fine for back pain?",
        ["Ibuprofen is contraindicated in the third trimester of pregnancy."],
    )
    assert "pregnancy" in _names(labels)


def test_default_policy_tags_the_paper_queries(default: TopicClassifier):
    """The two MetaRAG vignettes land on their sensitive topics."""
    assert default.classify("Can pregnant women take ibuprofen for back pain?")[0].label == (
        "pregnancy"
    )
    asylum = default.classify("Do LGBTQ+ refugees automatically receive protection in country X?")
    assert asylum[0].label == "asylum"


# -- construction and determinism --------------------------------------------------------------


def test_deterministic_across_instances():
    """Two classifiers built from the same policy give identical labels and probabilities."""
    policy = load_policy(DEFAULT_POLICY)
    a, b = TopicClassifier.from_policy(policy), TopicClassifier.from_policy(policy)
    queries = ["Can I work on a student visa?", "How do I reset my password?", "fever at night"]
    assert [a.classify(q) for q in queries] == [b.classify(q) for q in queries]
    assert a.probabilities(queries) == b.probabilities(queries)


def test_keyword_only_mode_without_enough_training_data():
    """With fewer than two topics that have examples, only keywords and the default work."""
    rules = [
        TopicRule(name="general", threshold=0.5),
        TopicRule(name="pets", threshold=0.3, keywords=["vet"]),
    ]
    clf = TopicClassifier(rules, default_topic="general")
    assert clf.trained_topics == ()
    assert _names(clf.classify("see the vet")) == ["pets"]
    assert clf.classify("anything")[0].source == "default"


@pytest.mark.parametrize(
    "text",
    [
        "IBUPROFEN TWICE A DAY",
        "Ibuprofeno",
        "AMOXICILLINA",
        "eine ÄRZTIN am Wochenende",
        "die ärztin",
        "effets\nsecondaires du vaccin",
    ],
)
def test_keywords_are_found_whatever_the_case_of_the_text(text: str):
    """The classifier's quick substring test before each keyword's pattern never loses a
    match: upper case, accents and wildcards in either the keyword or the text."""
    rules = [
        TopicRule(name="general", threshold=0.5),
        TopicRule(
            name="health",
            threshold=0.3,
            keywords=["*profen*", "*cillin*", "Ärztin", "effet* secondaire*"],
        ),
    ]
    clf = TopicClassifier(rules, default_topic="general")
    assert _names(clf.classify(text)) == ["health"]
    assert clf.classify("the April invoice")[0].source == "default"


def test_constructor_rejects_bad_arguments():
    """The default topic must exist; floor and max_topics must be in range."""
    rules = [TopicRule(name="general", threshold=0.5)]
    with pytest.raises(ConfigError, match="default topic"):
        TopicClassifier(rules, default_topic="other")
    with pytest.raises(ConfigError, match="confidence_floor"):
        TopicClassifier(rules, default_topic="general", confidence_floor=1.5)
    with pytest.raises(ConfigError, match="max_topics"):
        TopicClassifier(rules, default_topic="general", max_topics=0)


# -- the evaluation set ------------------------------------------------------------------------


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _eval_rows(path: Path = EVAL_SET) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_eval_set_is_large_and_covers_every_default_topic():
    """>= 200 queries, unique ids and queries, gold labels from the default policy."""
    rows = _eval_rows()
    policy = load_policy(DEFAULT_POLICY)
    names = {t.name for t in policy.topics}
    assert len(rows) >= 200
    assert len({r["id"] for r in rows}) == len(rows)
    assert len({_normalise(r["query"]) for r in rows}) == len(rows)
    counts = Counter(r["topic"] for r in rows)
    assert set(counts) == names
    assert counts["general"] >= 80 and min(counts.values()) >= 25
    assert sum(1 for r in rows if r.get("hard")) >= 30
    assert all(set(r.get("also", [])) <= names for r in rows)


@pytest.mark.parametrize("path", [EVAL_SET, LANGUAGE_EVAL_SET], ids=lambda p: p.name)
def test_eval_queries_are_not_training_examples(path: Path):
    """No eval query appears among the policy's examples (compared case- and punctuation-free)."""
    policy = load_policy(DEFAULT_POLICY)
    examples = {_normalise(e) for t in policy.topics for e in t.examples}
    overlap = [r["query"] for r in _eval_rows(path) if _normalise(r["query"]) in examples]
    assert overlap == []


@pytest.mark.parametrize("path", [EVAL_SET, LANGUAGE_EVAL_SET], ids=lambda p: p.name)
def test_eval_queries_are_not_near_duplicates_of_examples(path: Path):
    """No eval query shares 80% or more of its words with a training example (Jaccard)."""
    policy = load_policy(DEFAULT_POLICY)
    examples = [set(_normalise(e).split()) for t in policy.topics for e in t.examples]
    for row in _eval_rows(path):
        words = set(_normalise(row["query"]).split())
        worst = max(len(words & ex) / len(words | ex) for ex in examples)
        assert worst < 0.8, row["query"]


def test_default_classifier_accuracy_regression_guard(default: TopicClassifier):
    """A loose floor against regressions; the measured figure comes from the benchmark."""
    rows = _eval_rows()
    correct = sum(default.classify(r["query"])[0].label == r["topic"] for r in rows)
    assert correct / len(rows) >= 0.75


def test_language_eval_set_covers_every_language_and_topic():
    """The same kinds of question in each of the seven languages, every default topic."""
    rows = _eval_rows(LANGUAGE_EVAL_SET)
    names = {t.name for t in load_policy(DEFAULT_POLICY).topics}
    assert len({r["id"] for r in rows}) == len(rows)
    per_language = Counter(r["language"] for r in rows)
    assert set(per_language) == {"en", "de", "fr", "es", "it", "pt", "nl"}
    assert len(set(per_language.values())) == 1
    assert {r["topic"] for r in rows} == names


def test_every_language_gets_its_sensitive_topics(default: TopicClassifier):
    """A loose floor per language on the language eval set: the applied rule is the gold
    topic's for at least 75% of the queries, and at most two of a language's 14 sensitive
    questions fall to the general topic (medicines, emergencies, pay, dismissal, sick
    leave...; before the multilingual vocabulary, up to eleven did)."""
    engine = PolicyEngine(load_policy(DEFAULT_POLICY))
    by_language: dict[str, list[tuple[str, str]]] = {}
    for row in _eval_rows(LANGUAGE_EVAL_SET):
        applied = engine.rule_for(default.classify(row["query"])).name
        by_language.setdefault(row["language"], []).append((row["topic"], applied))
    for language, pairs in by_language.items():
        right = sum(gold == got for gold, got in pairs)
        to_general = sum(gold != "general" and got == "general" for gold, got in pairs)
        assert right / len(pairs) >= 0.75, (language, pairs)
        assert to_general <= 2, (language, pairs)


def test_probabilities_are_exactly_scikit_learns():
    """The fast path (stacked regressions, parts transformed directly) gives bit-for-bit the
    probabilities of FeatureUnion.transform + OneVsRestClassifier.predict_proba."""
    classifier = TopicClassifier.from_policy(
        load_policy(Path(__file__).resolve().parents[1] / "policies" / "default.yaml")
    )
    texts = [
        "Can pregnant women take ibuprofen for back pain?",
        "How many hours a week can I work on a student visa?",
        "Ibuprofen is contraindicated in the third trimester of pregnancy.",
        "",
    ]
    model = classifier._model
    assert model is not None
    expected = model.classifier.predict_proba(model.vectorizer.transform(texts))
    got = classifier.probabilities(texts)
    assert [[row[c] for c in classifier._classes] for row in got] == expected.tolist()


# -- sentence embeddings (opt-in: classifier.embeddings: encoder) -------------------------------

#: The encoder directory these tests read: ``None`` is the packaged network (what the product
#: loads), which must have the ``embedding`` output.
ENCODER_DIR: Path | None = None

#: Paraphrases of the default policy's examples, sharing few words with them (TF-IDF alone
#: puts the first on the default topic).
PARAPHRASES = [
    ("pregnancy", "Which jabs do mothers-to-be get offered?"),
    ("healthcare", "What should I do about a high temperature that won't go down?"),
    ("healthcare", "Is it dangerous to mix two kinds of pain relievers?"),
    ("asylum", "Can a person who fled the war bring their children over to join them?"),
    ("general", "How do I get onto the company network from a hotel?"),
]


def _with_encoder(text: str) -> str:
    """Policy ``text`` (starting with ``name:`` and a one-line classifier block or none) with
    ``embeddings: encoder`` (and :data:`ENCODER_DIR`) in its classifier block."""
    policy = parse_policy(text).model_dump()
    block = {**policy["classifier"], "embeddings": "encoder"}
    del block["confidence_floor"]  # the encoder path's own default
    if ENCODER_DIR is not None:
        block["encoder_model"] = str(ENCODER_DIR)
    return json.dumps({**policy, "classifier": block})  # JSON is YAML


@pytest.fixture(scope="module")
def encoder() -> EncoderModel:
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError:
        unavailable("encoder", "onnxruntime/tokenizers not installed (the 'encoder' extra)")
    return load_encoder(ENCODER_DIR)


class _Session:
    """Wraps an onnxruntime session: counts ``run`` calls, can hide the embedding output."""

    def __init__(self, real: Any, *, hide_embedding: bool = False) -> None:
        self.real = real
        self.hide_embedding = hide_embedding
        self.runs = 0

    def get_outputs(self) -> list[Any]:
        outputs = self.real.get_outputs()
        return [o for o in outputs if not (self.hide_embedding and o.name == "embedding")]

    def run(self, *args: Any, **kwargs: Any) -> Any:
        self.runs += 1
        return self.real.run(*args, **kwargs)


def test_embeddings_are_off_by_default(default: TopicClassifier):
    """Without the key nothing changes: no encoder is loaded."""
    assert default.embeddings == "none" and default.encoder is None


def test_constructor_rejects_bad_embedding_arguments():
    rules = [TopicRule(name="general", threshold=0.5)]
    with pytest.raises(ConfigError, match="embeddings must be"):
        TopicClassifier(rules, default_topic="general", embeddings="bert")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="embedding_weight"):
        TopicClassifier(rules, default_topic="general", embedding_weight=0.0)


def test_missing_extra_is_a_one_line_config_error(monkeypatch):
    """embeddings: encoder without onnxruntime names the extra to install."""
    real_import = builtins.__import__

    def no_onnxruntime(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "onnxruntime":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    policy = parse_policy(_with_encoder(TOY))
    monkeypatch.setattr(builtins, "__import__", no_onnxruntime)
    with pytest.raises(ConfigError, match=r"pip install 'guardrail-rag\[encoder\]'") as info:
        TopicClassifier.from_policy(policy)
    assert "\n" not in str(info.value)


def test_embeddings_are_unit_rows_independent_of_batch(encoder: EncoderModel):
    """Each text is embedded alone (the int8 network's activation scale is per run), so a row
    does not depend on the other texts asked for; rows have unit length."""
    texts = ["Can I fly at 32 weeks?", "Where is the printer on the third floor of the office?"]
    together = encoder.embeddings(texts, remember=False)
    alone = [encoder.embeddings([t], remember=False)[0] for t in texts]
    assert together.shape == (2, alone[0].shape[0])
    assert together.tolist() == [row.tolist() for row in alone]
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0)
    assert encoder.embeddings([], remember=False).shape == (0, together.shape[1])


def test_long_passages_are_embedded_up_to_the_token_limit(encoder: EncoderModel):
    """Only the first max_tokens word pieces of a passage are read: a 20,000-character
    passage has the vector of its first few hundred characters."""
    passage = "Ibuprofen is contraindicated in the third trimester of pregnancy. " * 300
    head, whole = encoder.embeddings([passage[:1000], passage[:20_000]], remember=False)
    assert head.tolist() == whole.tolist()


def test_encoder_embeddings_place_paraphrases(encoder: EncoderModel):
    """With embeddings: encoder, paraphrases that share few words with the examples land on
    their topic through the model (no keyword involved)."""
    clf = TopicClassifier.from_policy(parse_policy(_with_encoder(DEFAULT_POLICY.read_text())))
    assert clf.encoder is encoder and clf.confidence_floor == ENCODER_CONFIDENCE_FLOOR
    for topic, query in PARAPHRASES:
        labels = clf.classify(query)
        assert (labels[0].label, labels[0].source) == (topic, "classifier"), (query, labels)


def test_example_embeddings_are_memoised_across_classifiers(encoder: EncoderModel, monkeypatch):
    """A second classifier from the same policy reuses the examples' vectors: the network does
    not run while it is built; queries are embedded each time and not remembered."""
    policy = parse_policy(_with_encoder(TOY))
    first = TopicClassifier.from_policy(policy)
    expected = first.probabilities(["what oven temperature for baking bread"])
    counting = _Session(encoder.session)
    monkeypatch.setattr(encoder, "session", counting)
    embedded = encoder.texts_embedded
    second = TopicClassifier.from_policy(policy)
    assert second.encoder is encoder
    assert (counting.runs, encoder.texts_embedded) == (0, embedded)
    assert second.probabilities(["what oven temperature for baking bread"]) == expected
    assert counting.runs == 1
    second.probabilities(["what oven temperature for baking bread"])
    assert counting.runs == 2  # a query is not remembered


def test_embedding_probabilities_are_scikit_learns(encoder: EncoderModel):
    """The fast path gives scikit-learn's predict_proba on TF-IDF + weighted embedding."""
    from scipy.sparse import csr_matrix, hstack

    clf = TopicClassifier.from_policy(parse_policy(_with_encoder(TOY)))
    model = clf._model
    assert model is not None and model.embed is not None
    texts = ["what oven temperature for baking bread", "my dog keeps barking", ""]
    weight = parse_policy(_with_encoder(TOY)).classifier.embedding_weight
    features = hstack(
        [model.vectorizer.transform(texts), csr_matrix(weight * encoder.embeddings(texts))]
    )
    expected = model.classifier.predict_proba(features.tocsr())
    got = clf.probabilities(texts)
    assert np.allclose([[row[c] for c in clf.trained_topics] for row in got], expected)


def test_model_without_embedding_output_is_a_config_error(encoder: EncoderModel, monkeypatch):
    """A network exported before the embedding output existed fails clearly at construction."""
    monkeypatch.setattr(encoder, "session", _Session(encoder.session, hide_embedding=True))
    with pytest.raises(ConfigError, match="no 'embedding' output"):
        TopicClassifier.from_policy(parse_policy(_with_encoder(TOY)))


def test_missing_encoder_directory_is_a_config_error(encoder: EncoderModel, tmp_path: Path):
    """encoder_model naming a directory without a network fails at construction, clearly."""
    policy = parse_policy(_with_encoder(TOY)).model_dump()
    policy["classifier"]["encoder_model"] = str(tmp_path / "nowhere")
    with pytest.raises(ConfigError, match=r"classifier\.embeddings: encoder: .*not found"):
        TopicClassifier.from_policy(parse_policy(json.dumps(policy)))
