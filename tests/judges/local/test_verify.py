"""The lexical verifier: YES / NO / NOT SURE with a reason naming evidence or what is missing."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.verify import index_context
from guardrail.models import Label
from guardrail.scoring.parsing import parse_verdict

from .conftest import CURIE_CONTEXT, VIGNETTE_CONTEXT

_SHARED = LocalJudge(verifier="rules")  # one lexicon load for all hypothesis examples


def verdict(judge: LocalJudge, statement: str, context: str) -> tuple[Label, str]:
    reply = judge.answer("verify", {"statement": statement, "context": context})
    label, reason, failure = parse_verdict(reply)
    assert failure is None, reply
    assert "\n" not in reply and reason
    return label, reason


@pytest.mark.parametrize(
    ("statement", "label", "in_reason"),
    [
        ("Marie Curie was born in Warsaw.", Label.YES, "born in Warsaw in 1867"),
        ("Curie discovered radium.", Label.YES, "discovered polonium and radium"),
        ("It is true that Curie discovered polonium.", Label.YES, "polonium"),
        ("The Eiffel Tower was completed in 1889.", Label.YES, "1889"),
        ("Birds do not have a diaphragm.", Label.YES, "diaphragm"),
        ("Birds lack a diaphragm.", Label.YES, "diaphragm"),
        ("Birds don't have a diaphragm.", Label.YES, "diaphragm"),
        ("Marie Curie was born in 1868.", Label.NO, "1867"),
        ("The Eiffel Tower is 300 metres tall.", Label.NO, "330"),
        ("Marie Curie was born in Paris.", Label.NO, "Warsaw"),
        ("In 1903 she shared the Nobel Prize in Chemistry.", Label.NO, "Physics"),
        ("Curie did not discover radium.", Label.NO, "discovered polonium"),
        ("It is not true that Curie discovered polonium.", Label.NO, "polonium"),
        ("Birds have a diaphragm.", Label.NO, "diaphragm"),
        ("The moon is made of cheese.", Label.NOT_SURE, "moon"),
        ("Marie Curie liked cheese.", Label.NOT_SURE, "cheese"),
    ],
)
def test_curie_context(judge, statement, label, in_reason):
    """Supported, contradicted (number, entity, negation) and unsupported statements."""
    got, reason = verdict(judge, statement, CURIE_CONTEXT)
    assert got == label, reason
    assert in_reason in reason


@pytest.mark.parametrize(
    ("statement", "label"),
    [
        ("Ibuprofen is safe throughout pregnancy.", Label.NO),
        ("Ibuprofen is harmless throughout pregnancy.", Label.NO),
        ("Ibuprofen is recommended in the third trimester.", Label.NO),
        ("Ibuprofen is not safe throughout pregnancy.", Label.YES),
        ("Ibuprofen is unsafe throughout pregnancy.", Label.YES),
        ("Ibuprofen should be avoided in the third trimester of pregnancy.", Label.YES),
        ("Ibuprofen is not recommended in the third trimester of pregnancy.", Label.YES),
        ("Ibuprofen is contraindicated in the third trimester of pregnancy.", Label.YES),
        ("In the third trimester of pregnancy, Ibuprofen is contraindicated.", Label.YES),
        ("Ibuprofen is not contraindicated in the third trimester of pregnancy.", Label.NO),
        ("Ibuprofen is the first choice for pain relief during pregnancy.", Label.NO),
        ("Paracetamol is the first choice for pain relief during pregnancy.", Label.YES),
        ("Ibuprofen is cheap.", Label.NOT_SURE),
        ("Ibuprofen causes kidney damage in newborns.", Label.NOT_SURE),
    ],
)
def test_pregnancy_context_polarity(judge, statement, label):
    """Polarity words (safe vs contraindicated), negation and entity swaps decide the label."""
    got, reason = verdict(judge, statement, VIGNETTE_CONTEXT)
    assert got == label, reason


def test_clause_negation_does_not_leak_into_other_clauses(judge):
    """A "not" in one clause of the evidence does not flip a claim about another clause."""
    context = "Birds do not have a diaphragm; instead, air moves through pressure changes."
    assert verdict(judge, "Air moves through pressure changes.", context)[0] == Label.YES


@pytest.mark.parametrize(
    ("statement", "label"),
    [
        ("Entry costs 12 euros for adults.", Label.YES),
        ("Entry does not cost 12 euros for adults.", Label.NO),
        ("The museum is open on Mondays.", Label.NO),
        ("The museum is not open on Mondays.", Label.YES),
    ],
)
def test_negation_counts_only_for_what_it_governs(judge, statement, label):
    """A "not" inside the same evidence sentence flips only the claims about what it negates."""
    context = "The museum is not open on Mondays, and entry costs 12 euros for adults."
    assert verdict(judge, statement, context)[0] == label


@pytest.mark.parametrize(
    ("statement", "context"),
    [("", "Some context."), ("Ibuprofen is safe.", ""), ("...", "   "), ("Yes.", "No.")],
)
def test_degenerate_inputs_are_not_sure(judge, statement, context):
    """Empty statements or contexts answer NOT SURE, never an error."""
    assert verdict(judge, statement, context)[0] == Label.NOT_SURE


def test_passages_list_is_used_when_context_is_missing(judge):
    """``passages`` (a list) stands in for ``context`` when the latter is empty."""
    reply = judge.answer(
        "verify", {"statement": "Curie discovered radium.", "passages": [CURIE_CONTEXT]}
    )
    assert reply.startswith("YES.")


def test_reason_quotes_are_bounded(judge):
    """A very long evidence sentence is quoted truncated, on one line."""
    context = "Ibuprofen is contraindicated " + "and very " * 200 + "late in pregnancy."
    label, reason = verdict(judge, "Ibuprofen is safe late in pregnancy.", context)
    assert label == Label.NO and len(reason) < 300 and "..." in reason


def test_long_context_and_unicode(judge):
    """Statements are found in a long context with unicode text around them."""
    filler = " ".join(f"Le café numéro {i} est à Paris." for i in range(300))
    context = f"{filler} Zürich has 420,000 inhabitants. {filler}"
    assert verdict(judge, "Zürich has 420,000 inhabitants.", context)[0] == Label.YES
    assert verdict(judge, "Zürich has 500,000 inhabitants.", context)[0] == Label.NO


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200), st.text(max_size=400))
def test_verify_always_answers_a_label(statement, context):
    """Any statement and context give a parseable verdict with a reason."""
    reply = _SHARED.answer("verify", {"statement": statement, "context": context})
    _, reason, failure = parse_verdict(reply)
    assert failure is None and reason and "\n" not in reply


def test_sentence_initial_verb_is_not_a_named_entity(judge):
    """An imperative's capital ("Transfer ...") is not a name, so no entity-swap NO."""
    context = "Move the boiled potatoes to ice water, says Julia Child."
    label, reason = verdict(judge, "Transfer the boiled potatoes to ice water.", context)
    assert label != Label.NO, reason


def test_citation_numbers_do_not_clash(judge):
    """ "(Passage 3)" in a statement is not a number that conflicts with the evidence."""
    context = "There are more than 100 types of arthritis."
    label, reason = verdict(
        judge, "There are more than 100 types of arthritis (Passage 3).", context
    )
    assert label == Label.YES, reason


_PIECES = ["Curie", "won", "2", "prizes", "not", "but", "while", ";", ",", ".", "safe", "in", "3"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map(" ".join) | st.text(max_size=300))
@example(CURIE_CONTEXT)
@example("Ibuprofen is safe, but not in 1903; aspirin, while cheap, is unsafe. Curie won 2.")
def test_clause_keys_are_counted_in_df(context):
    """A clause's keys are its sentence's, so ``df`` alone says whether the context uses a key."""
    index = index_context(context, _SHARED.lexicon)
    assert set(index.postings) == set(index.df)


def test_verdict_scales_are_marked_in_the_lexicon():
    """Verdict scales (safe/contraindicated, true/false) get their own key prefix; relational
    ones (before/after, increase/decrease) do not."""
    from guardrail.judges.local.lexicon import VERDICT, Lexicon
    from guardrail.text.stemming import stem

    lex = Lexicon.load()

    def keys(word: str) -> set[str]:
        return {key for key, _ in lex.polar_keys[stem(word)]}

    assert any(k.startswith(VERDICT) for k in keys("contraindicated"))
    assert any(k.startswith(VERDICT) for k in keys("false"))
    assert not any(k.startswith(VERDICT) for k in keys("before"))
    assert not any(k.startswith(VERDICT) for k in keys("decrease"))
