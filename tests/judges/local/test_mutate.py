"""Synonym and antonym mutations: exactly ``count`` lines, meaning kept or contradicted."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.mutate import Mutator
from guardrail.scoring.parsing import parse_statements

_SHARED = LocalJudge(verifier="rules")  # one lexicon load for all hypothesis examples


def mutate(judge: LocalJudge, task: str, factoid: str, count: int = 2) -> list[str]:
    reply = judge.answer(task, {"factoid": factoid, "count": count, "question": "q"})
    lines = reply.split("\n") if reply else []
    items, failure = parse_statements(reply)
    assert failure is None and items == lines, "the scorer's parser must read the same lines"
    return lines


@pytest.mark.parametrize(
    ("factoid", "expected"),
    [
        ("Ibuprofen is safe throughout pregnancy.", "Ibuprofen is not safe throughout pregnancy."),
        ("Marie Curie discovered polonium.", "Marie Curie did not discover polonium."),
        ("The drug increases blood pressure.", "The drug does not increase blood pressure."),
        ("Birds have nine air sacs.", "Birds do not have nine air sacs."),
        ("Birds do not have a diaphragm.", "Birds have a diaphragm."),
        ("The drug doesn't cause drowsiness.", "The drug causes drowsiness."),
        ("Ibuprofen isn't safe during pregnancy.", "Ibuprofen is safe during pregnancy."),
        ("Patients can stop the medication.", "Patients cannot stop the medication."),
        ("Patients cannot stop the medication.", "Patients can stop the medication."),
        ("He never visited Japan.", "He visited Japan."),
        ("There is no cure for arthritis.", "There is some cure for arthritis."),
        ("Paris has been the capital since 987.", "Paris has not been the capital since 987."),
    ],
)
def test_first_antonym_toggles_negation(judge, factoid, expected):
    """The best antonym inserts or removes the negation at the main verb."""
    assert mutate(judge, "antonym", factoid)[0] == expected


@pytest.mark.parametrize(
    ("factoid", "swapped"),
    [
        ("Ibuprofen is safe throughout pregnancy.", "Ibuprofen is unsafe throughout pregnancy."),
        ("The drug increases blood pressure.", "The drug reduces blood pressure."),
        ("Smoking is always harmful.", "Smoking is never harmful."),
        ("Dogs are allowed in the park.", "Dogs are prohibited in the park."),
    ],
)
def test_antonym_lexicon_substitution(judge, factoid, swapped):
    """Lexicon antonyms are offered among the first variants."""
    assert swapped in mutate(judge, "antonym", factoid, count=3)


def test_antonyms_never_double_negate(judge):
    """A negated factoid is contradicted by removing its negation, never by adding one."""
    for factoid in ("Ibuprofen is not safe.", "Birds do not have a diaphragm.", "It isn't legal."):
        for line in mutate(judge, "antonym", factoid, count=4):
            low = line.lower()
            assert "not not" not in low and "not unsafe" not in low
            assert not low.startswith("it is true that") or "not" not in low


def test_no_swap_to_a_word_the_sentence_already_has(judge):
    """ "The south tower is taller than the north tower" never becomes a comparison of the
    north tower with itself."""
    factoid = "The south tower is taller than the north tower."
    variants = mutate(judge, "antonym", factoid, count=4)
    assert variants and all(v.lower().count("north") < 2 for v in variants), variants


def test_measurements_are_not_swapped_for_antonyms(judge):
    """ "300 metres tall" does not become "300 metres short"."""
    assert all(
        "short" not in v for v in mutate(judge, "antonym", "The tower is 300 metres tall.", 4)
    )


@pytest.mark.parametrize(
    ("factoid", "expected"),
    [
        ("Ibuprofen is safe throughout pregnancy.", "Ibuprofen is harmless throughout pregnancy."),
        (
            "Ibuprofen is contraindicated in the third trimester of pregnancy.",
            "In the third trimester of pregnancy, Ibuprofen is contraindicated.",
        ),
        ("Birds have nine air sacs.", "Birds have 9 air sacs."),
        ("Birds do not have a diaphragm.", "Birds don't have a diaphragm."),
        ("Marie Curie discovered polonium.", "It is true that Marie Curie discovered polonium."),
    ],
)
def test_synonyms_keep_the_meaning(judge, factoid, expected):
    """Synonyms use lexicon swaps, phrase fronting, contractions, numerals or a neutral wrap."""
    assert expected in mutate(judge, "synonym", factoid, count=2)


def test_synonyms_keep_negation_parity(judge):
    """A synonym of a negated factoid is still negated; of a positive one, still positive."""
    neg_words = ("not", "n't", "never", "cannot")
    for factoid in ("Ibuprofen is not safe.", "Ibuprofen is safe during pregnancy."):
        negated = any(w in factoid for w in neg_words)
        for line in mutate(judge, "synonym", factoid, count=5):
            assert any(w in line for w in neg_words) == negated, line


@pytest.mark.parametrize("count", [0, 1, 2, 3, 7, 50])
@pytest.mark.parametrize("task", ["synonym", "antonym"])
def test_exactly_count_lines(judge, task, count):
    """Whatever the factoid, the reply has exactly ``count`` non-empty lines."""
    for factoid in ("Ibuprofen is safe.", "Water.", "", "東京は日本の首都です。"):
        reply = judge.answer(task, {"factoid": factoid, "count": count})
        lines = reply.split("\n") if reply else []
        assert len(lines) == count and all(line.strip() for line in lines)


def test_count_is_capped_and_validated(judge):
    """A huge count is capped at 50; a non-integer count is a request error."""
    from guardrail.exceptions import JudgeRequestError

    assert len(judge.answer("synonym", {"factoid": "X is Y.", "count": 10_000}).split("\n")) == 50
    with pytest.raises(JudgeRequestError):
        judge.answer("synonym", {"factoid": "X is Y.", "count": "many"})


def test_variants_differ_from_the_factoid_and_each_other(judge):
    """The first variants are distinct rewrites, not copies of the input."""
    factoid = "Ibuprofen is safe throughout pregnancy."
    for task in ("synonym", "antonym"):
        lines = mutate(judge, task, factoid, count=4)
        assert len(set(lines)) == 4 and factoid not in lines


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200), st.integers(min_value=0, max_value=6))
def test_mutation_never_raises(text, count):
    """Arbitrary factoids give exactly ``count`` lines for both relations."""
    judge = _SHARED
    for task in ("synonym", "antonym"):
        reply = judge.answer(task, {"factoid": text, "count": count})
        assert len(reply.split("\n") if reply else []) == count


def test_an_affirmed_factoid_is_also_denied_outright() -> None:
    """Of two antonyms, the second is the factoid's plain denial (read against the factoid's
    own finding) rather than a second opposite word, which a factoid the context already
    contradicts elsewhere would make false twice over."""
    factoid = "It was one of the largest civil movements in Britain."
    first, second = Mutator(Lexicon.load()).antonyms(factoid, 2)
    assert first == "It was not one of the largest civil movements in Britain."
    assert second == "It is not true that it was one of the largest civil movements in Britain."
