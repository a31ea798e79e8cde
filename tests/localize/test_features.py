"""Word features: each one reads the request the way its name says."""

from __future__ import annotations

import json

import numpy as np

from guardrail.localize.features import FEATURE_NAMES, ContextWords, word_features


def column(name: str) -> int:
    return FEATURE_NAMES.index(name)


def features_of(answer: str, question: str, contexts: list[str]) -> dict[str, np.ndarray]:
    words, x = word_features(answer, question, ContextWords.build(contexts))
    return {w.text: x[i] for i, w in enumerate(words)}


def test_support_numbers_and_names_against_the_context():
    """Context words are found; a new number and a new name are marked new."""
    f = features_of(
        "The clinic in Leeds opened in 1998.",
        "When did the clinic open?",
        ["The clinic opened in 2004 in York."],
    )
    assert f["clinic"][column("in_context")] == 1 and f["clinic"][column("in_question")] == 1
    assert f["1998"][column("number")] == 1 and f["1998"][column("number_new")] == 1
    assert f["Leeds"][column("capital_new")] == 1 and f["Leeds"][column("in_context")] == 0
    assert f["opened"][column("bigram_next")] == 1  # "opened in" occurs in the context
    assert f["opened"][column("bigram_prev")] == 0  # "Leeds opened" does not
    assert f["opened"][column("has_question")] == 1


def test_sentence_coverage_is_per_sentence_and_json_contexts_are_read_as_prose():
    """A fully supported sentence has coverage 1; a JSON record is flagged as structured."""
    record = json.dumps({"name": "Blue Cafe", "city": "Austin", "rating": 4.5})
    f = features_of("Blue Cafe is in Austin. It serves sushi daily.", "", [record])
    assert f["Austin"][column("sentence_coverage")] == 1.0
    assert f["sushi"][column("sentence_coverage")] == 0.0
    assert f["sushi"][column("structured")] == 1 and f["sushi"][column("has_question")] == 0


def test_empty_answer_gives_an_empty_matrix():
    words, x = word_features("", "q", ContextWords.build(["ctx"]))
    assert words == [] and x.shape == (0, len(FEATURE_NAMES))
