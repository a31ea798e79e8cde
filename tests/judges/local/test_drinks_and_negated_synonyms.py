"""A drink is read as what it contains ("beer", "wine", "pint" as alcohol; "coffee", "cola" as
caffeine), and a negation that governs a word governs the word's synonyms too: "Do not drink
alcohol while taking it" contradicts "You can have a beer while taking it" and supports "You
should not have a beer while taking it". Before, "beer" matched nothing of the passage, and,
once matched, the negation of "alcohol" did not reach it, so the two read the other way
round. ("You can have a glass of wine while taking it" is still read as supported: its
"glass" leaves the passage's sentence short of the coverage at which its negation is
trusted.)"""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

#: (language, context denying a kind of drink, statement agreeing, statement disagreeing)
DRINKS = [
    (
        "en",
        "Do not drink alcohol while taking Corvazol or for two days after the last dose.",
        "You should not drink wine while taking Corvazol.",
        "You can drink wine while taking Corvazol.",
    ),
    (
        "en",
        "Patients on Ferrolin must not drink alcohol during treatment.",
        "Patients on Ferrolin must not drink beer during treatment.",
        "Patients on Ferrolin can drink beer during treatment.",
    ),
    (
        "en",
        "Do not have caffeine within two hours of taking Tiravex.",
        "Do not have coffee within two hours of taking Tiravex.",
        "You can have coffee within two hours of taking Tiravex.",
    ),
]


@pytest.mark.parametrize(("language", "context", "agrees", "disagrees"), DRINKS)
def test_a_drink_is_what_it_contains(
    language: str, context: str, agrees: str, disagrees: str
) -> None:
    kept, caught = verified(language, [agrees, disagrees], context)
    assert kept is not Support.CONTRADICTED, agrees
    assert caught is Support.CONTRADICTED, disagrees


def test_german_wine_against_no_alcohol() -> None:
    context = "Während der Einnahme von Korvalin keinen Alkohol trinken."
    statement = "Ein Glas Wein ist während der Einnahme von Korvalin erlaubt."
    assert verified("de", [statement], context)[0] is Support.CONTRADICTED
