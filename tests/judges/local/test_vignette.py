"""The MetaRAG paper's pregnancy vignette through the judge, with the paper's penalty table.

The real scorer (guardrail.scoring.metarag) is exercised end to end in test_metarag_e2e.py;
here the judge's own replies are scored with a tiny local computation of the same rule
(penalty table, mean over 2k variants, max over factoids), so the judge is pinned on its own.
"""

from __future__ import annotations

import json

from guardrail.judges.local import LocalJudge
from guardrail.scoring.parsing import parse_statements, parse_verdict

from .conftest import CURIE_CONTEXT, VIGNETTE_CONTEXT, VIGNETTE_QUESTION

PENALTY = {
    ("synonym", "YES"): 0.0,
    ("synonym", "NOT SURE"): 0.5,
    ("synonym", "NO"): 1.0,
    ("antonym", "YES"): 1.0,
    ("antonym", "NOT SURE"): 0.5,
    ("antonym", "NO"): 0.0,
}


def local_score(
    judge: LocalJudge, question: str, answer: str, context: str, k: int = 2
) -> dict[str, float]:
    """Factoid -> score, computed from the judge's text replies as the scorer would."""
    factoids, _ = parse_statements(
        judge.answer("decompose", {"text": answer, "question": question})
    )
    scores: dict[str, float] = {}
    for factoid in factoids:
        penalties: list[float] = []
        for relation in ("synonym", "antonym"):
            reply = judge.answer(relation, {"factoid": factoid, "count": k, "question": question})
            variants, _ = parse_statements(reply)
            assert len(variants) == k
            for variant in variants:
                label, _, _ = parse_verdict(
                    judge.answer("verify", {"statement": variant, "context": context})
                )
                penalties.append(PENALTY[(relation, label.value)])
        scores[factoid] = sum(penalties) / len(penalties)
    return scores


def test_vignette_answer_scores_high(judge):
    """ "Yes, ibuprofen is safe throughout pregnancy." scores >= 0.5 (here: 1.0)."""
    scores = local_score(
        judge, VIGNETTE_QUESTION, "Yes, ibuprofen is safe throughout pregnancy.", VIGNETTE_CONTEXT
    )
    assert list(scores) == ["Ibuprofen is safe throughout pregnancy."]
    assert max(scores.values()) >= 0.5
    assert max(scores.values()) == 1.0


def test_restatement_scores_low(judge):
    """An answer restating the context scores < 0.3 (here: 0.0)."""
    answer = "Ibuprofen is contraindicated in the third trimester of pregnancy."
    scores = local_score(judge, VIGNETTE_QUESTION, answer, VIGNETTE_CONTEXT)
    assert max(scores.values()) < 0.3
    assert max(scores.values()) == 0.0


def test_multi_sentence_answer_flags_only_the_bad_factoid(judge):
    """A faithful sentence scores 0 while a changed number scores high, in the same answer."""
    answer = (
        "Marie Curie was born in Warsaw. She discovered polonium and radium. "
        "The Eiffel Tower was completed in 1899."
    )
    scores = local_score(judge, "Tell me about Curie.", answer, CURIE_CONTEXT)
    assert scores["Marie Curie was born in Warsaw."] == 0.0
    assert scores["She discovered radium."] == 0.0
    assert scores["The Eiffel Tower was completed in 1899."] >= 0.5


def test_unsupported_addition_sits_at_not_sure(judge):
    """A claim the context never mentions scores 0.5: every variant is NOT SURE."""
    scores = local_score(judge, "q", "Ibuprofen is cheap.", VIGNETTE_CONTEXT)
    assert scores == {"Ibuprofen is cheap.": 0.5}


def test_supported_paraphrase_scores_low(judge):
    """A lexicon paraphrase of a supported claim ("should be avoided") scores < 0.3."""
    answer = "Ibuprofen should be avoided in the third trimester of pregnancy."
    scores = local_score(judge, VIGNETTE_QUESTION, answer, VIGNETTE_CONTEXT)
    assert max(scores.values()) < 0.3


def test_replies_are_valid_json_for_the_scorer(judge):
    """The decompose reply is a JSON array, exactly as the prompt asks."""
    reply = judge.answer("decompose", {"text": "Yes, ibuprofen is safe throughout pregnancy."})
    assert json.loads(reply) == ["Ibuprofen is safe throughout pregnancy."]
