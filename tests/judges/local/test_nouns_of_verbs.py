"""A noun made of a verb with "-ment" matches its verb ("payment" / "pay", "treatment" /
"treat"), so a negation in the noun's sentence is read against a statement with the verb.
Before, "You can pay by cheque" and "You cannot pay by cheque" both read as supported by
"Payment by cheque is not accepted": the verb matched nothing of the sentence. Nouns whose
verb means something else ("department", "statement", "basement") keep apart."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support, derived_keys
from tests.verifying import verified

#: (context with a "-ment" noun, statement with its verb that agrees, one that disagrees)
NOUNS_OF_VERBS = [
    (
        "Payment by cheque is not accepted at the front desk.",
        "You cannot pay by cheque at the front desk.",
        "You can pay by cheque at the front desk.",
    ),
    (
        "Treatment with the nasal spray is not recommended for children.",
        "Children should not be treated with the nasal spray.",
        "Children can be treated with the nasal spray.",
    ),
]


@pytest.mark.parametrize(("context", "agrees", "disagrees"), NOUNS_OF_VERBS)
def test_a_noun_of_a_verb_matches_the_verb(context: str, agrees: str, disagrees: str) -> None:
    kept, caught = verified("en", [agrees, disagrees], context)
    assert kept is not Support.CONTRADICTED, agrees
    assert caught is Support.CONTRADICTED, disagrees


@pytest.mark.parametrize("noun", ["department", "statement", "basement", "comment"])
def test_nouns_of_another_meaning_keep_apart(noun: str) -> None:
    assert derived_keys(noun) == frozenset()


def test_a_noun_and_its_plural_share_the_verb() -> None:
    assert derived_keys("payment") == derived_keys("payments") != frozenset()
