"""The offline judge through the real MetaRAG scorer: scores, flags and flagged spans."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.models import Label, Relation
from guardrail.scoring.metarag import MetaRAG

from .conftest import CURIE_CONTEXT, VIGNETTE_CONTEXT, VIGNETTE_QUESTION


@pytest.fixture
def scorer() -> MetaRAG:
    return MetaRAG(LocalJudge(verifier="rules"))


async def test_vignette_is_flagged_with_span_on_the_claim(scorer):
    """The vignette scores >= 0.5; its flagged span covers "safe throughout pregnancy"."""
    answer = "Yes, ibuprofen is safe throughout pregnancy."
    report = await scorer.score(VIGNETTE_QUESTION, answer, [VIGNETTE_CONTEXT])
    assert report.status == "ok" and report.flagged and report.score >= 0.5
    # the "Yes" is read with the question, the sentence after it as written
    assert [f.text for f in report.factoids] == [
        "Pregnant women can take ibuprofen for back pain.",
        "Ibuprofen is safe throughout pregnancy.",
    ]
    factoid = report.factoids[1]
    assert factoid.flagged and factoid.aligned and factoid.spans
    covered = "".join(answer[s:e] for s, e in report.flagged_spans)
    assert "safe throughout pregnancy" in covered
    assert not report.unaligned_flagged
    assert all(c.judge == "local-rules" and c.model == "local-rules-v1" for c in report.calls)
    labels = {(v.relation, v.label) for v in factoid.variants}
    assert labels == {(Relation.SYNONYM, Label.NO), (Relation.ANTONYM, Label.YES)}


async def test_restatement_is_not_flagged(scorer):
    """An answer restating the context scores < 0.3."""
    answer = "Ibuprofen is contraindicated in the third trimester of pregnancy."
    report = await scorer.score(VIGNETTE_QUESTION, answer, [VIGNETTE_CONTEXT])
    assert report.score < 0.3 and not report.flagged and not report.flagged_spans


def test_score_sync_matches(scorer):
    """The blocking entry point gives the same vignette score."""
    report = scorer.score_sync(
        VIGNETTE_QUESTION, "Yes, ibuprofen is safe throughout pregnancy.", [VIGNETTE_CONTEXT]
    )
    assert report.score >= 0.5 and report.flagged


@pytest.mark.parametrize(
    ("answer", "flagged_text"),
    [
        ("Marie Curie was born in Warsaw in 1868.", "1868"),  # number changed
        ("Marie Curie was born in Paris.", "Paris"),  # entity swapped
        ("Curie did not discover radium.", "not discover"),  # negation flipped
        ("In 1903 she shared the Nobel Prize in Chemistry.", "Chemistry"),  # entity swapped
    ],
)
async def test_contradictions_are_flagged_on_their_span(scorer, answer, flagged_text):
    """Changed numbers, swapped entities and flipped negations score high and are highlighted."""
    report = await scorer.score("Tell me about Marie Curie.", answer, [CURIE_CONTEXT])
    assert report.flagged and report.score >= 0.5, report.factoids
    assert flagged_text in " ".join(report.flagged_text(answer))


async def test_multi_sentence_answer_flags_only_the_wrong_sentence(scorer):
    """Faithful sentences stay unflagged while the wrong one is flagged, with spans apart."""
    answer = (
        "Marie Curie was born in Warsaw. She discovered polonium and radium. "
        "The Eiffel Tower was completed in 1899."
    )
    report = await scorer.score("Tell me about Curie.", answer, [CURIE_CONTEXT])
    by_text = {f.text: f for f in report.factoids}
    assert by_text["Marie Curie was born in Warsaw."].score == 0.0
    assert by_text["She discovered polonium."].score == 0.0
    wrong = by_text["The Eiffel Tower was completed in 1899."]
    assert wrong.flagged
    assert [answer[s:e] for s, e in wrong.spans] == ["The Eiffel Tower was completed in 1899"]
    start = answer.index("The Eiffel")
    assert report.flagged_spans and all(s >= start for s, _ in report.flagged_spans)


async def test_unsupported_addition_sits_on_the_threshold(scorer):
    """A claim absent from the context scores 0.5 (all NOT SURE): flagged at the default 0.5."""
    answer = "Ibuprofen is contraindicated in the third trimester. It also cures migraines."
    report = await scorer.score(VIGNETTE_QUESTION, answer, [VIGNETTE_CONTEXT])
    scores = {f.text: f.score for f in report.factoids}
    assert scores["Ibuprofen is contraindicated in the third trimester."] < 0.3
    assert scores["It also cures migraines."] == 0.5
    assert report.flagged_text(answer) == ["It also cures migraines"]


async def test_paraphrase_of_supported_claim_is_not_flagged(scorer):
    """A lexicon paraphrase ("should be avoided" for "contraindicated") scores < 0.3."""
    answer = "Pregnant women should avoid ibuprofen in the third trimester of pregnancy."
    report = await scorer.score(VIGNETTE_QUESTION, answer, [VIGNETTE_CONTEXT])
    assert report.score < 0.3, report.factoids


@pytest.mark.parametrize(
    ("answer", "contexts", "status"),
    [
        ("", [VIGNETTE_CONTEXT], "empty_answer"),
        ("Hello! I hope this helps.", [VIGNETTE_CONTEXT], "unverifiable"),
        ("Ibuprofen is safe.", [], "empty_context"),
    ],
)
async def test_edge_cases_through_the_scorer(scorer, answer, contexts, status):
    """Empty answers, pleasantries and missing contexts give the scorer's edge statuses."""
    report = await scorer.score(VIGNETTE_QUESTION, answer, contexts)
    assert report.status == status
    assert all(c.ok and c.parse_failure is None for c in report.calls)


async def test_every_reply_parses_cleanly_on_a_long_unicode_answer(scorer):
    """No parse failure on any call for a long, unicode-laden answer."""
    answer = " ".join(
        f"Zürich's café n°{i} opened in {1900 + i} and serves crème brûlée." for i in range(15)
    )
    context = " ".join(f"Zürich's café n°{i} opened in {1900 + i}." for i in range(15))
    report = await scorer.score("Cafés in Zürich?", answer, [context])
    assert report.factoids and all(c.parse_failure is None for c in report.calls)
    assert all(len(f.variants) == 4 for f in report.factoids)
