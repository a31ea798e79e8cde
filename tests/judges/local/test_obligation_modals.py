"""An obligation said with a modal ("have to", "has to", "must", "is obliged to") is read
against a context that says there is none ("voluntary", "optional", "unnecessary"): "do not
have to" agrees with "voluntary", "have to" and "must" do not. Before, the modal was no word
of the statement at all, so "You do not have to attend" read as the opposite of "Attending is
voluntary" (its negation unmatched) and "You must attend" as supported."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified

#: (context saying there is no obligation, statement agreeing, statement disagreeing)
NO_OBLIGATION = [
    (
        "Joining the tenants' association is voluntary for new residents.",
        "New residents do not have to join the tenants' association.",
        "New residents have to join the tenants' association.",
    ),
    (
        "Joining the tenants' association is voluntary for new residents.",
        "New residents don't have to join the tenants' association.",
        "New residents must join the tenants' association.",
    ),
    (
        "For day patients, bringing an overnight bag is optional.",
        "Day patients do not have to bring an overnight bag.",
        "Day patients have to bring an overnight bag.",
    ),
    (
        "Taking the workplace pension is optional for part-time staff.",
        "Part-time staff do not have to take the workplace pension.",
        "Part-time staff are obliged to take the workplace pension.",
    ),
]


@pytest.mark.parametrize(("context", "agrees", "disagrees"), NO_OBLIGATION)
def test_a_modal_obligation_against_no_obligation(
    context: str, agrees: str, disagrees: str
) -> None:
    kept, caught = verified("en", [agrees, disagrees], context)
    assert kept is Support.SUPPORTED, agrees
    assert caught is Support.CONTRADICTED, disagrees


#: (context with an obligation, statement with the same obligation, statement denying it):
#: the modal changes nothing where the context has no word for "no obligation"
OBLIGATION = [
    (
        "Joining the tenants' association is compulsory for new residents.",
        "New residents have to join the tenants' association.",
        "New residents do not have to join the tenants' association.",
    ),
    (
        "Day patients must bring an overnight bag.",
        "Day patients have to bring an overnight bag.",
        "Day patients do not have to bring an overnight bag.",
    ),
]


@pytest.mark.parametrize(("context", "agrees", "disagrees"), OBLIGATION)
def test_a_modal_obligation_against_an_obligation(
    context: str, agrees: str, disagrees: str
) -> None:
    kept, caught = verified("en", [agrees, disagrees], context)
    assert kept is not Support.CONTRADICTED, agrees
    assert caught is Support.CONTRADICTED, disagrees


def test_must_not_is_a_prohibition_not_an_obligation() -> None:
    context = "Wearing a wristband on the ward is optional for visitors."
    statement = "Visitors must not wear a wristband on the ward."
    assert verified("en", [statement], context)[0] is not Support.SUPPORTED
