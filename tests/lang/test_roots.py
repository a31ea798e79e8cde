"""Roots: inflected forms of one word match in the languages that declare their endings, and
a fact moved to another name the passage holds is caught in any word order."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.lang.registry import language
from guardrail.scoring import MetaRAG

FLAGGED = 0.5


@pytest.mark.parametrize(
    ("code", "one", "other"),
    [
        ("it", "rilasciato", "rilascia"),
        ("pt", "decididos", "decide"),
        ("es", "tramitadas", "tramita"),
        ("fr", "gratuites", "gratuit"),
        ("de", "Tabletten", "Tablette"),
        ("nl", "maanden", "maand"),
    ],
)
def test_inflected_forms_share_a_root(code: str, one: str, other: str) -> None:
    lang = language(code)
    assert lang is not None
    assert lang.root(one.lower()) == lang.root(other.lower())


def test_a_short_word_keeps_its_letters() -> None:
    lang = language("it")
    assert lang is not None
    assert lang.root("sei") == "sei"


def _score(question: str, answer: str, context: str) -> float:
    return MetaRAG(LocalJudge()).score_sync(question, answer, [context]).score


@pytest.mark.parametrize(
    ("question", "context", "faithful", "moved"),
    [
        (
            "Quale ufficio rilascia il permesso di soggiorno?",
            "La Questura rilascia il permesso di soggiorno. La Prefettura gestisce l'accoglienza.",
            "Il permesso di soggiorno viene rilasciato dalla Questura.",
            "Il permesso di soggiorno viene rilasciato dalla Prefettura.",
        ),
        (
            "Qui verse l'allocation ?",
            "L'OFII verse l'allocation pour demandeur d'asile. La CAF verse les allocations "
            "familiales.",
            "C'est l'OFII qui verse l'allocation pour demandeur d'asile.",
            "C'est la CAF qui verse l'allocation pour demandeur d'asile.",
        ),
        (
            "Wer ist für die Arbeitserlaubnis zuständig?",
            "Die Ausländerbehörde ist für die Arbeitserlaubnis zuständig. Das Jobcenter ist für "
            "das Bürgergeld zuständig.",
            "Für die Arbeitserlaubnis ist die Ausländerbehörde zuständig.",
            "Für die Arbeitserlaubnis ist das Jobcenter zuständig.",
        ),
    ],
)
def test_a_fact_moved_to_another_name_in_another_word_order_is_flagged(
    question: str, context: str, faithful: str, moved: str
) -> None:
    assert _score(question, moved, context) >= FLAGGED
    assert _score(question, faithful, context) < FLAGGED
