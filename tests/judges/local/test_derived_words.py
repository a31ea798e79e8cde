"""An English adjective and the noun derived from it are one word to the verifier
("pregnant" / "pregnancy", "resident" / "residence", "eligible" / "eligibility"): a faithful
restatement that says one where the passage says the other is supported, and the pair never
hides a changed value or a reversal."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import verified


@pytest.mark.parametrize(
    ("context", "faithful", "wrong"),
    [
        (
            "Prescriptions are free during pregnancy if you hold a valid maternity exemption "
            "certificate.",
            "You do not have to pay for prescriptions while you're pregnant.",
            "You have to pay for prescriptions while you're pregnant.",
        ),
        (
            "Applicants must show five years of lawful residence before applying for citizenship.",
            "You must have been lawfully resident for five years before you apply for citizenship.",
            "You must have been lawfully resident for three years before you apply for "
            "citizenship.",
        ),
        (
            "Eligibility for the grant depends on household income below 30,000 euros.",
            "Whether you are eligible for the grant depends on household income below 30,000 "
            "euros.",
            "Whether you are eligible for the grant depends on household income below 40,000 "
            "euros.",
        ),
    ],
)
def test_an_adjective_and_its_noun_are_one_word(context: str, faithful: str, wrong: str) -> None:
    kept, caught = verified("en", [faithful, wrong], context)
    assert kept is Support.SUPPORTED, faithful
    assert caught is not Support.SUPPORTED, wrong


def test_words_that_only_look_derived_stay_apart() -> None:
    """ "current" (account) is not "currency"."""
    (found,) = verified(
        "en",
        ["The current account has a monthly fee."],
        "Payments in a foreign currency have a fee.",
    )
    assert found is not Support.SUPPORTED


@pytest.mark.parametrize("word", ["you're", "they're", "i'm", "we've", "you'll", "she'd"])
def test_a_pronoun_contraction_is_no_content_word(word: str) -> None:
    """ "while you're pregnant" asks the passage for "pregnant", not for "you're"."""
    from guardrail.judges.local import LocalJudge

    assert not LocalJudge().verifier.lexicon.is_content(word)
