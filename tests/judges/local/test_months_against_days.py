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
