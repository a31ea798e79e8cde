"""The near end of a choice of amounts takes the far end's unit in every language ("120 *ou* 150
dias", "one *or* two weeks", "8 *oder* 10 Tage"): "between 120 and 150 days" and "one week or
two weeks" agree with it, a third amount does not."""

from __future__ import annotations

import pytest

from tests.verifying import assert_told_apart

#: (language, context, the same choice said otherwise, another amount)
CHOICES = [
    (
        "en",
        "Partners can take one or two weeks of paid paternity leave.",
        "Partners can take either one week or two weeks of paid paternity leave.",
        "Partners can take three weeks of paid paternity leave.",
    ),
    (
        "pt",
        "A licença parental inicial é de 120 ou 150 dias consecutivos.",
        "A licença parental inicial é de 120 dias ou de 150 dias consecutivos.",
        "A licença parental inicial é de 180 dias consecutivos.",
    ),
    (
        "de",
        "Die Eingewöhnung in der Kita dauert 8 oder 10 Tage.",
        "Die Eingewöhnung in der Kita dauert 8 Tage oder 10 Tage.",
        "Die Eingewöhnung in der Kita dauert 14 Tage.",
    ),
    (
        "es",
        "El permiso se puede disfrutar en 16 o 20 semanas.",
        "El permiso se puede disfrutar en 16 semanas o en 20 semanas.",
        "El permiso se puede disfrutar en 24 semanas.",
    ),
]


@pytest.mark.parametrize(("language", "context", "same", "other"), CHOICES)
def test_a_choice_of_amounts(language: str, context: str, same: str, other: str) -> None:
    assert_told_apart(language, context, same, other)
