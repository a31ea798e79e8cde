"""A length of time in months against one in days or weeks: the same length agrees ("8 weeks"
and "2 months"), another one conflicts ("6 months" against "2 months or 60 days"), and a bound
admits what lies inside it ("120 days" for "more than 3 months") but not what lies outside."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

APPEAL = "You can appeal within 2 months of the decision, or within 60 days if you live abroad."
VISA = "The visa is valid for more than 3 months."


@pytest.mark.parametrize(
    ("context", "statement", "contradicted"),
    [
        (APPEAL, "You can appeal within 6 months of the decision.", True),
        (APPEAL, "You can appeal within sixty days of the decision if you live abroad.", False),
        (APPEAL, "You have 8 weeks to appeal the decision.", False),
        (VISA, "The visa is valid for 30 days.", True),
        (VISA, "The visa is valid for 120 days.", False),
    ],
)
def test_months_are_compared_with_days(context: str, statement: str, contradicted: bool) -> None:
    (found,) = verified("en", [statement], context)
    assert (found is Support.CONTRADICTED) is contradicted


@pytest.mark.parametrize(
    ("language", "context", "statement"),
    [
        (
            "es",
            "El trabajador debe preavisar con 60 días de antelación si lleva más de dos años en"
            " la empresa.",
            "Si llevas más de dos años, tienes que avisar con al menos dos meses de antelación.",
        ),
        (
            "pt",
            "O trabalhador com mais de dois anos de antiguidade deve avisar o empregador com 60"
            " dias de antecedência.",
            "Com mais de dois anos de casa, tem de avisar com pelo menos dois meses de"
            " antecedência.",
        ),
    ],
)
def test_a_bound_on_one_side_only_agrees_in_days(
    language: str, context: str, statement: str
) -> None:
    """ "at least two months" against a notice of "60 days": the same length, the bound said
    on one side only, as amounts of one unit agree."""
    (found,) = verified(language, [statement], context)
    assert found is not Support.CONTRADICTED
