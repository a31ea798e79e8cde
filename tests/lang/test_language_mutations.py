"""Antonym mutations remove a negation in the answer's own language (never with an English
word), and limits phrased with a verb of exceeding are upper bounds once negated."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.mutate import Mutator
from guardrail.judges.local.values import extract
from guardrail.lang.context import reading
from guardrail.scoring import MetaRAG


@pytest.mark.parametrize(
    ("code", "negated", "affirmed"),
    [
        ("es", "Sin receta, no tome más de 1200 mg.", "Sin receta, tome más de 1200 mg."),
        ("fr", "Ne prenez pas plus de quatre grammes.", "Prenez plus de quatre grammes."),
        ("fr", "Il n'est pas possible de travailler.", "Il est possible de travailler."),
        ("de", "Sie bekommen keine Arbeitserlaubnis.", "Sie bekommen eine Arbeitserlaubnis."),
        ("it", "Non prendete più di sei compresse.", "Prendete più di sei compresse."),
        ("nl", "Asielzoekers mogen niet werken.", "Asielzoekers mogen werken."),
    ],
)  # fmt: skip
def test_a_negation_is_removed_in_its_own_language(code: str, negated: str, affirmed: str) -> None:
    with reading(code):
        first = Mutator(Lexicon.for_language(code)).antonyms(negated, 1)[0]
    assert first == affirmed


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("es", "Los adultos no deben superar los 1200 miligramos al día."),
        ("fr", "Un adulte ne doit pas dépasser quatre grammes par jour."),
        ("it", "Gli adulti non devono superare le sei compresse al giorno."),
        ("pt", "Os adultos não devem ultrapassar quatro gramas por dia."),
    ],
)
def test_not_exceeding_an_amount_is_an_upper_bound(code: str, text: str) -> None:
    with reading(code):
        (value,) = [v for v in extract(text) if v.kind == "quantity"]
    assert value.bound == 1


def test_a_count_per_day_counts_its_things_not_days() -> None:
    (value,) = [v for v in extract("Take 6 tablets a day.") if v.kind == "quantity"]
    assert value.key == "tablet"
    with reading("de"):
        (value,) = [
            v for v in extract("Nehmen Sie sechs Tabletten am Tag.") if v.kind == "quantity"
        ]
    assert value.key == "tabletten"


def test_synonyms_spell_no_english_number_words_in_another_language() -> None:
    with reading("it"):
        found = Mutator(Lexicon.for_language("it")).synonyms("Si può lavorare 20 ore.", 4)
    assert not any("twenty" in s for s in found)


@pytest.mark.parametrize(
    ("code", "question", "context", "faithful"),
    [
        (
            "nl",
            "Wie krijgt de griepprik gratis?",
            "De griepprik is gratis voor iedereen van 60 jaar en ouder.",
            "Mensen van 60 jaar of ouder krijgen de griepprik gratis.",
        ),
        (
            "it",
            "Quante ore può lavorare uno studente?",
            "Uno studente straniero può lavorare al massimo 20 ore settimanali.",
            "Uno studente straniero non può lavorare più di 20 ore a settimana.",
        ),
    ],
)
def test_a_restatement_with_a_verb_of_getting_or_a_bound_in_other_words_passes(
    code: str, question: str, context: str, faithful: str
) -> None:
    assert MetaRAG(LocalJudge()).score_sync(question, faithful, [context]).score < 0.5


@pytest.mark.parametrize(
    ("code", "negated", "affirmed"),
    [
        ("fr", "Le dépistage ne vous coûtera rien.", "Le dépistage vous coûtera quelque chose."),
        ("fr", "Vous n'aurez jamais à payer.", "Vous aurez toujours à payer."),
        (
            "fr",
            "Les intérêts ne sont soumis ni à l'impôt ni aux cotisations.",
            "Les intérêts sont soumis à l'impôt aux cotisations.",
        ),
    ],
)  # fmt: skip
def test_a_negation_in_two_words_is_removed_whole(code: str, negated: str, affirmed: str) -> None:
    """French negation in two words ("ne ... rien", "ne ... jamais", "ne ... ni ... ni"): the
    antonym rewrites the negation's second word too, so it no longer denies."""
    with reading(code):
        first = Mutator(Lexicon.for_language(code)).antonyms(negated, 1)[0]
    assert first == affirmed
