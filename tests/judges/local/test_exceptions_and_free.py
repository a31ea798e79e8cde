"""Two English readings the other languages already had.

"Except" denies what follows it, as "außer", "sauf" and "salvo" do: "open daily except
Mondays" says *not on Mondays*, so "closed on Mondays" is supported and "open on Mondays" is
contradicted.

"No fee", "no charge", "costs nothing" and "nothing to pay" say *free*: their negation denies
the price, not what the sentence names, so "The appeal is free" is supported by "There is no fee
for an appeal", while "There is a fee for an appeal" stays contradicted."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

#: (context with "except", statement that agrees, statement that disagrees)
EXCEPT = [
    (
        "The walk-in vaccination clinic is open every weekday except Wednesday.",
        "The walk-in vaccination clinic is not open on Wednesday.",
        "The walk-in vaccination clinic is open on Wednesday.",
    ),
    (
        "The night bus runs every day except Christmas Day.",
        "The night bus does not run on Christmas Day.",
        "The night bus runs on Christmas Day.",
    ),
    (
        "The legal advice desk answers calls every day except Fridays.",
        "The legal advice desk does not answer calls on Fridays.",
        "The legal advice desk answers calls on Fridays.",
    ),
]


@pytest.mark.parametrize(("context", "agrees", "disagrees"), EXCEPT)
def test_except_denies_what_follows(context: str, agrees: str, disagrees: str) -> None:
    kept, caught = verified("en", [agrees, disagrees], context)
    assert kept is Support.SUPPORTED, agrees
    assert caught is Support.CONTRADICTED, disagrees


#: (context that says "free" without the word, statement with "free")
FREE = [
    ("There is no fee for renewing a library card.", "Renewing a library card is free."),
    (
        "There is no charge for the first interpreter session.",
        "The first interpreter session is free.",
    ),
    ("Registering with the job centre costs nothing.", "Registering with the job centre is free."),
    (
        "The hearing aid check at the pharmacy costs nothing.",
        "The hearing aid check at the pharmacy is free.",
    ),
]


@pytest.mark.parametrize(("context", "statement"), FREE)
def test_a_denied_price_is_free(context: str, statement: str) -> None:
    assert verified("en", [statement], context)[0] is Support.SUPPORTED


#: (context that says "free" without the word, statement that puts a price on it)
PRICED = [
    ("There is no fee for renewing a library card.", "There is a fee for renewing a library card."),
    (
        "There is no charge for the first interpreter session.",
        "The first interpreter session costs £30.",
    ),
    (
        "Registering with the job centre costs nothing.",
        "Registering with the job centre costs £15.",
    ),
]


@pytest.mark.parametrize(("context", "statement"), PRICED)
def test_a_price_against_a_denied_price_is_contradicted(context: str, statement: str) -> None:
    assert verified("en", [statement], context)[0] is Support.CONTRADICTED


def test_no_pay_is_no_wage_not_free() -> None:
    """ "No pay" denies a wage: it does not say the trial shift is free, so "You get paid for
    the trial shift" is not supported by it."""
    context = "There is no pay for the trial shift."
    assert (
        verified("en", ["You get paid for the trial shift."], context)[0] is not Support.SUPPORTED
    )
