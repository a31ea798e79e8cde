"""Numbers as each language writes them: "15.000 €" is fifteen thousand euros and "2,25" two
and a quarter where the language puts a comma before the decimals; a number in several words
("vinte e dois", "quince mil") is one number; and a value said in another spelling than the
passage's is not a conflict."""

from __future__ import annotations

import pytest

from guardrail.judges.local.values import extract
from guardrail.lang.context import reading
from guardrail.text.tokens import parse_number
from tests.verifying import assert_told_apart


@pytest.mark.parametrize(
    ("token", "comma", "value"),
    [
        ("15.000", True, 15000.0),
        ("2,25", True, 2.25),
        ("1.234,5", True, 1234.5),
        ("1,200", False, 1200.0),
        ("1.5", False, 1.5),
    ],
)
def test_a_digit_token_is_read_in_its_languages_convention(
    token: str, comma: bool, value: float
) -> None:
    assert parse_number(token, decimal_comma=comma) == value


@pytest.mark.parametrize(
    ("language", "text", "kind", "amount"),
    [
        ("es", "un límite de 15.000 € por operación", "money", 15000.0),
        ("de", "Eine Überweisung kostet 2,50 €.", "money", 2.5),
        ("nl", "Buiten Europa betaalt u € 2,25 per opname.", "money", 2.25),
        ("en", "a limit of 15,000 euros", "money", 15000.0),
    ],
)
def test_an_amount_is_read_with_its_currency_and_separators(
    language: str, text: str, kind: str, amount: float
) -> None:
    with reading(language):
        found = [v for v in extract(text) if v.kind == kind]
    assert [v.amount for v in found] == [amount]


@pytest.mark.parametrize(
    ("language", "context", "said", "other"),
    [
        (
            "pt",
            "O período anual de férias tem a duração mínima de 22 dias úteis.",
            "O período anual de férias tem a duração mínima de vinte e dois dias úteis.",
            "O período anual de férias tem a duração mínima de vinte e cinco dias úteis.",
        ),
        (
            "es",
            "Las transferencias inmediatas tienen un límite de 15.000 € por operación.",
            "Las transferencias inmediatas tienen un límite de quince mil euros por operación.",
            "Las transferencias inmediatas tienen un límite de cincuenta mil euros por operación.",
        ),
    ],
)
def test_a_number_in_words_is_the_passage_number(
    language: str, context: str, said: str, other: str
) -> None:
    assert_told_apart(language, context, said, other)
