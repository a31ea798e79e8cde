"""A number the context gives for another case: the sentence that states the statement's frame
gives another number, and the statement's number belongs to a sentence about something else."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.rivals import rival_value
from guardrail.judges.local.verify import Support

WARDS = (
    "The children's ward is on the third floor. The maternity ward is on the fifth floor. "
    "The emergency department is on the ground floor."
)
DOSES = (
    "Adults take one tablet three times a day. Children take one tablet twice a day. "
    "Do not take more than the stated dose."
)
TERMS = "The spring term starts on 8 January. The summer term starts on 15 April."
BLOOD = (
    "Blood tests are taken between 7 am and 10 am. Please arrive at 7:30 am if you need to fast."
)


@pytest.fixture(scope="module")
def verifier():  # type: ignore[no-untyped-def]
    return LocalJudge().verifier


def _rival(verifier, statement: str, context: str) -> Support | None:  # type: ignore[no-untyped-def]
    prepared = verifier.prepare(context)
    found = rival_value(verifier.assess(statement, prepared), prepared.index, verifier.lexicon)
    return None if found is None else found.outcome


def _checked(verifier, statement: str, context: str) -> Support:  # type: ignore[no-untyped-def]
    (found,) = verifier.check([statement], context)
    return found.outcome


@pytest.mark.parametrize(
    ("statement", "context"),
    [
        ("The children's ward is on the fifth floor.", WARDS),
        ("Adults should take the tablets twice a day.", DOSES),
        ("The spring term starts on 15 April.", TERMS),
    ],
)
def test_a_number_given_for_another_case_is_contradicted(
    verifier, statement: str, context: str
) -> None:  # type: ignore[no-untyped-def]
    """The statement's number is in the passage, but in the sentence about another case."""
    assert _rival(verifier, statement, context) is Support.CONTRADICTED
    assert _checked(verifier, statement, context) is Support.CONTRADICTED


@pytest.mark.parametrize(
    ("statement", "context"),
    [
        ("The children's ward is on the third floor.", WARDS),
        ("Adults should take the tablets three times a day.", DOSES),
        ("The spring term starts on 8 January.", TERMS),
        # the frame is split over two sentences: which one states the number is unclear
        ("You should arrive at 7:30 am for your blood test.", BLOOD),
        # a number the passage never gives is the value checks' to judge
        ("The children's ward is on the seventh floor.", WARDS),
    ],
)
def test_the_check_stays_out_of_what_it_cannot_read(verifier, statement: str, context: str) -> None:  # type: ignore[no-untyped-def]
    assert _rival(verifier, statement, context) is None


def test_a_denied_rival_number_is_supported(verifier) -> None:  # type: ignore[no-untyped-def]
    """ "It is not true that the ward is on the fifth floor" agrees with the passage."""
    denied = "It is not true that the children's ward is on the fifth floor."
    assert _rival(verifier, denied, WARDS) is Support.SUPPORTED


def test_the_sources_numbering_is_no_value(verifier) -> None:  # type: ignore[no-untyped-def]
    """ "Step 3 ..." cites where the answer read it, it states no number of the case."""
    context = "Step 1 Cut the potato skin all around. Step 2 Boil the potato for 15 minutes."
    assert _rival(verifier, "Cut the potato skin all around in step 2.", context) is None


def test_the_frame_may_name_its_subject_through_a_pronoun(verifier) -> None:  # type: ignore[no-untyped-def]
    """ "On Saturdays it closes at 1 pm." states the shop's Saturday hour."""
    context = (
        "The shop is open from 9 am to 7 pm on weekdays. On Saturdays it closes at 2 pm. "
        "It is closed on Sundays."
    )
    assert _rival(verifier, "The shop closes on Saturdays at 7 pm.", context) is (
        Support.CONTRADICTED
    )
    assert _rival(verifier, "The shop closes on Saturdays at 2 pm.", context) is None
