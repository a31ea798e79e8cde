"""Restatements in other words pass in every language: answer words ("Nein, ...") and forms of
address are function words, a compound matches its parts, general synonyms match, elided
articles and joined pronouns are read off, and none of it lets a contradiction through."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.mutate import Mutator
from guardrail.judges.local.values import extract
from guardrail.lang.context import reading
from guardrail.lang.registry import language
from guardrail.scoring import MetaRAG

FLAGGED = 0.5


def _score(question: str, answer: str, context: str) -> float:
    return MetaRAG(LocalJudge()).score_sync(question, answer, [context]).score


@pytest.mark.parametrize(
    ("code", "word", "base"),
    [
        ("fr", "c'est", "est"),
        ("fr", "l'invitation", "invitation"),
        ("fr", "donnez-lui", "donnez"),
        ("fr", "appelez-le", "appelez"),
        ("fr", "va-t-il", "va"),
        ("it", "dell'anno", "anno"),
        ("pt", "mostre-o", "mostre"),
        ("fr", "aujourd'hui", "aujourd'hui"),
        ("fr", "arc-en-ciel", "arc-en-ciel"),
    ],
)
def test_a_word_is_read_without_its_elided_article_or_joined_pronoun(
    code: str, word: str, base: str
) -> None:
    lang = language(code)
    assert lang is not None
    assert lang.base_word(word) == base


def test_a_compound_holds_its_parts_but_a_privative_one_not_its_first() -> None:
    lang = language("de")
    assert lang is not None
    assert {"kasse", "kranken"} <= lang.compound_parts("krankenkasse")
    assert "kosten" not in lang.compound_parts("kostenlos")
    assert language("fr") is not None
    assert language("fr").compound_parts("assurance") == frozenset()  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("de", "Nein, bis 27 ist das Konto für Sie gebührenfrei."),
        ("fr", "La préfecture enregistre la demande."),
        ("es", "El centro de salud abre a las ocho."),
    ],
)
def test_a_capitalized_function_word_starts_no_name(code: str, text: str) -> None:
    with reading(code):
        names = {v.text for v in extract(text) if v.kind == "name"}
    assert not names & {"sie", "la", "el"}


@pytest.mark.parametrize(
    ("code", "statement"),
    [
        ("pt", "Não, até aos 18 anos é grátis."),
        ("de", "Nein, bis 18 ist der Ausweis gratis."),
    ],
)
def test_an_antonym_keeps_the_answer_word_and_negates_the_rest(code: str, statement: str) -> None:
    with reading(code):
        antonyms = Mutator(Lexicon.for_language(code)).antonyms(statement, 2)
    answer_word = statement.split(",")[0]
    assert antonyms
    assert all(answer_word.lower() in a.lower() for a in antonyms)  # not "Até aos 18 anos ..."


#: (question, passage, restatement in other words, contradiction): one per kind fixed.
CASES = [
    # answer word and formal address
    (
        "Muss ich für den Schwimmkurs etwas zahlen?",
        "Der Schwimmkurs im Hallenbad ist für Kinder unter zwölf Jahren kostenfrei.",
        "Nein, unter zwölf Jahren ist der Kurs für Sie gratis.",
        "Ja, auch unter zwölf Jahren kostet der Kurs 40 Euro.",
    ),
    # a compound named by its part
    (
        "Wer bezahlt die Zahnreinigung?",
        "Die Zahnreinigung bezahlt die Krankenkasse für Kinder ab sechs Jahren.",
        "Die Kasse zahlt die Reinigung der Zähne für Kinder ab sechs Jahren.",
        "Die Kasse zahlt die Reinigung der Zähne für Kinder ab zwei Jahren.",
    ),
    # a general synonym (Lohn / Gehalt), an inflected verb, an ordinal past ten
    (
        "Wann kommt mein Gehalt?",
        "Der Lohn wird am fünfzehnten Tag des Monats überwiesen.",
        "Ihr Gehalt überweisen wir am fünfzehnten Tag des Monats.",
        "Ihr Gehalt überweisen wir am dreißigsten Tag des Monats.",
    ),
    # Dutch: answer word, informal address, a compound named by its part
    (
        "Moet ik betalen voor de zwemles?",
        "Kinderen tot twaalf jaar krijgen de zwemles in het sportfondsenbad zonder kosten.",
        "Nee hoor, tot twaalf jaar is de les voor je kind gratis.",
        "Ja, ook tot twaalf jaar kost de les 40 euro.",
    ),
    # French: elided article, joined pronoun, informal address; "ne" of "ne ... pas" is no word
    # of its own
    (
        "Je dois montrer ma carte d'assurance ?",
        "Présentez votre carte d'assurance à l'accueil avant la consultation.",
        "Oui, présente-la à l'accueil avant la consultation.",
        "Non, ne la présente pas à l'accueil avant la consultation.",
    ),
    # Portuguese: the answer word "Não" is no negation of the rest
    (
        "O cartão do ginásio municipal é pago?",
        "O cartão do ginásio municipal é gratuito para menores de 16 anos.",
        "Não, até aos 16 anos é grátis.",
        "Sim, até aos 16 anos custa 20 euros.",
    ),
]


@pytest.mark.parametrize(("question", "context", "faithful", "contradicted"), CASES)
def test_a_restatement_in_other_words_passes_and_its_contradiction_is_flagged(
    question: str, context: str, faithful: str, contradicted: str
) -> None:
    assert _score(question, faithful, context) < FLAGGED
    assert _score(question, contradicted, context) >= FLAGGED


def test_an_acronym_of_a_body_named_over_short_words_is_that_body() -> None:
    judge = LocalJudge()
    with reading("pt"):
        found = judge.answer(
            "verify",
            {
                "statement": "Quem trata do processo é a Ana Lopes, do SJR.",
                "context": "O processo é acompanhado pela técnica Ana Lopes, do Serviço Jesuíta "
                "aos Refugiados.",
            },
        )
    assert not found.startswith("NO")


@pytest.mark.parametrize(
    ("code", "text", "amount"),
    [
        ("de", "am letzten Werktag", -1.0),
        ("fr", "le dernier jour", -1.0),
        ("es", "el primer día", 1.0),
    ],
)
def test_last_is_an_ordinal_counted_from_the_end(code: str, text: str, amount: float) -> None:
    with reading(code):
        (value,) = [v for v in extract(text) if v.kind == "ordinal"]
    assert value.amount == amount
