"""Language identification of texts and turns (guardrail.lang.detect)."""

from __future__ import annotations

import pytest

from guardrail.lang import UNDETERMINED, detect, detect_turn, detect_with_prior
from guardrail.lang.detect import CHARS_READ, SURE

SENTENCES = {
    "en": "Asylum seekers may apply for a work permit after six months.",
    "de": "Asylbewerber dürfen nach sechs Monaten eine Arbeitserlaubnis beantragen.",
    "fr": "Un demandeur d'asile peut demander une autorisation de travail après six mois.",
    "es": "Los solicitantes de asilo pueden pedir un permiso de trabajo tras seis meses.",
    "it": "Il richiedente asilo può chiedere un permesso di lavoro dopo sei mesi.",
    "pt": "O requerente de asilo pode pedir uma autorização de trabalho após seis meses.",
    "nl": "Een asielzoeker mag na zes maanden een werkvergunning aanvragen.",
}


@pytest.mark.parametrize(("code", "text"), sorted(SENTENCES.items()))
def test_each_supported_language_is_identified(code: str, text: str) -> None:
    """A plain sentence in each of the seven languages gets its ISO 639-1 code."""
    found = detect(text)
    assert found.language == code
    assert 0.5 < found.confidence <= 1.0


@pytest.mark.parametrize("text", ["", "   ", "42", "4 000 000 €", "12:30 – 14:00"])
def test_text_without_letters_is_undetermined(text: str) -> None:
    """A text with no letters is in no language: 'und', never a guessed language."""
    assert detect(text).language == UNDETERMINED
    assert detect(text).confidence == 0.0


def test_other_scripts_are_named_not_mistaken_for_a_supported_language() -> None:
    """Arabic and Russian are identified as themselves (so a rule can see them unverified)."""
    assert detect("هل يمكنني العمل أثناء طلب اللجوء؟").language == "ar"
    assert (
        detect("Могу ли я работать, пока рассматривается моё прошение об убежище?").language == "ru"
    )


def test_only_the_start_of_a_long_text_is_read() -> None:
    """A passage's language is read from its first CHARS_READ characters (about a
    sentence): what follows them does not change it, however long it is."""
    german = SENTENCES["de"] + " " + SENTENCES["de"] * 4
    english = " " + SENTENCES["en"] * 200
    assert len(german) >= CHARS_READ
    assert detect(german + english).language == "de"
    assert detect(SENTENCES["en"] * 10 + german * 50).language == "en"


def test_prior_decides_a_short_reply_among_the_models_candidates() -> None:
    """A reply of a few words takes the question's language when the model ranks it among
    its candidates ("Ok, gratis." is Esperanto to the model alone), or when the model is
    unsure of it; a language the model is sure of is kept."""
    alone = detect("Ok, gratis.")
    assert alone.language != "es"
    assert "es" in [code for code, _ in alone.candidates]
    assert detect_with_prior("Ok, gratis.", "es").language == "es"
    nein = detect("Nein.")
    assert nein.language != "de" and nein.confidence < SURE
    assert "de" not in [code for code, _ in nein.candidates]
    assert detect_with_prior("Nein.", "de").language == "de"
    sure = detect("Não.")
    assert sure.language == "pt" and sure.confidence >= SURE
    assert detect_with_prior("Não.", "de").language == "pt"


def test_a_short_answer_quoting_its_passage_is_in_the_passages_language() -> None:
    """A bare name or value copied from an English passage is English, whatever the model
    makes of the name; a short answer with a word of its own is read as written."""
    quoted = detect_turn("Who is the head of HR?", "Clara Jensen.", ["HR is led by Clara Jensen."])
    assert detect("Clara Jensen.").language != "en" and quoted.answer == "en"
    own = detect_turn("How much is it?", "Zehn Euro, glaube ich.", ["It costs 10 euros."])
    assert own.answer == "de"


def test_prior_never_overrules_a_confident_full_sentence() -> None:
    """A full sentence the model is sure of keeps its own language whatever the prior."""
    assert detect_with_prior(SENTENCES["de"], "fr").language == "de"
    assert detect_with_prior(SENTENCES["nl"], "de").language == "nl"


def test_turn_records_question_answer_and_each_passage_language_once() -> None:
    """detect_turn names the question's, the answer's and the passages' languages (once each,
    in order), skipping blank passages."""
    turn = detect_turn(
        SENTENCES["de"],
        SENTENCES["fr"],
        [SENTENCES["de"], "  ", SENTENCES["en"], SENTENCES["de"]],
    )
    assert (turn.question, turn.answer, turn.contexts) == ("de", "fr", ["de", "en"])
    assert turn.verifiable is None and turn.judge_languages == []


@pytest.mark.parametrize("text", ["abc\ud800 def", "a\x00b c", "\ufffe\uffff hello", "x" * 100_000])
def test_hostile_text_is_read_without_failing(text: str) -> None:
    """Lone surrogates, NUL, non-characters and huge texts get a language, never an error."""
    assert detect(text).language
    assert detect_turn(text, text, [text]).answer


def test_the_passages_language_breaks_a_tie_on_a_short_question_and_answer() -> None:
    """A short English question the model alone leans French on, with an English passage, is
    English; so is its two-word answer (an unread language would fail closed)."""
    found = detect_turn("How do I reset my password?", "Click 'forgot password'.", ["Ask IT."])
    assert (found.question, found.answer) == ("en", "en")
    assert detect_with_prior("Ok, gratis.", ["zz", "es"]).language == "es"


def test_a_short_reply_taken_for_a_constructed_language_keeps_its_question_s() -> None:
    """fastText puts "No, not cold smoked salmon." in Esperanto (0.62, English 0.27): after
    an English question and passage it is English; a whole Esperanto sentence stays so."""
    question = "Can I eat smoked salmon while pregnant?"
    passages = ["Pregnant women should avoid cold smoked salmon."]
    assert detect_turn(question, "No, not cold smoked salmon.", passages).answer == "en"
    esperanto = "Mi ne scias, sed la salmo estas bona por vi."
    assert detect_turn(question, esperanto, passages).answer == "eo"


@pytest.mark.parametrize("answer", ["9am.", "10pm."])
def test_a_bare_time_takes_its_question_s_language(answer: str) -> None:
    """fastText puts "9am." in Esperanto at 0.999: a reply of a clock time alone carries no
    language of its own, so it is read in its question's (not abstained as unread)."""
    found = detect_turn(
        "When does the pharmacy open on Sundays?",
        answer,
        ["The pharmacy opens at 10:00 on Sundays."],
    )
    assert found.answer == "en"
