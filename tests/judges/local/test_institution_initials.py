"""An institution's initials against its name written in running text, where only the first
word is capitalized ("SSN" for "Servizio sanitario nazionale", "CAF" for "Caisse
d'allocations familiales"): the initials are no other name that conflicts with it."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

#: (language, context naming the institution, statement with its initials)
INITIALS = [
    (
        "it",
        "Il Servizio sanitario nazionale copre tre ecografie in gravidanza.",
        "Il SSN copre tre ecografie in gravidanza.",
    ),
    (
        "fr",
        "La Caisse d'allocations familiales verse la prime de naissance.",
        "La CAF verse la prime de naissance.",
    ),
]


@pytest.mark.parametrize(("language", "context", "statement"), INITIALS)
def test_initials_are_not_another_name(language: str, context: str, statement: str) -> None:
    (found,) = verified(language, [statement], context)
    assert found is not Support.CONTRADICTED
