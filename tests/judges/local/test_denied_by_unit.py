"""A statement with no negation of its own that affirms what its best context unit denies
("do not use a home monitor" / "Use your home monitor first") is never supported, however
many of its words the unit holds. A negation inside a relative clause, a bound on an amount
("must not exceed 8 hours") and a statement that denies on its own terms ("rather than
waiting") are not such a denial."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.verify import Support
from guardrail.scoring.resolve import resolve
from tests.verifying import verified

#: (language, context that denies, statement that affirms the denied words)
DENIED = [
    (
        "en",
        "If your baby moves less than usual, do not use a home heartbeat monitor to check on the"
        " baby. Call the maternity unit straight away.",
        "Use your home heartbeat monitor to check on the baby first.",
    ),
    (
        "it",
        "Il bancomat non permette prelievi dal conto deposito; usi l'app o vada in filiale.",
        "Può prelevare dal conto deposito al bancomat.",
    ),
    (
        "nl",
        "Gebruik geen thuisdoppler om de hartslag van de baby te controleren; bel direct de"
        " verloskundige.",
        "Gebruik eerst je thuisdoppler om de hartslag van de baby te controleren.",
    ),
]

#: (context, statement) in English: no denial of the statement
NOT_DENIED = [
    (
        "Complaints that we cannot resolve may be referred to the Financial Ombudsman Service.",
        "You can go to the Financial Ombudsman Service next.",
    ),
    (
        "Normal working time must not exceed 8 hours a day.",
        "Normal working time is 8 hours a day at most.",
    ),
    (
        "If you notice your baby moving less than usual, contact the maternity unit straight away"
        " and do not wait for your next appointment.",
        "Contact the maternity unit right away rather than waiting for your next appointment.",
    ),
]


@pytest.mark.parametrize(("lang", "context", "statement"), DENIED)
def test_affirming_what_the_unit_denies_is_not_supported(
    lang: str, context: str, statement: str
) -> None:
    assert verified(lang, [statement], context) != [Support.SUPPORTED]


@pytest.mark.parametrize(("context", "statement"), NOT_DENIED)
def test_no_denial_of_the_statement_leaves_it_supported(context: str, statement: str) -> None:
    assert verified("en", [statement], context) == [Support.SUPPORTED]


@pytest.mark.parametrize(
    "question",
    [
        "if i win my small claims case does the court itself refund the fee",
        "if i win my case does the court itself refund the fee",
    ],
)
def test_a_replys_condition_does_not_hide_the_sentence_that_denies_it(question: str) -> None:
    """ "The court itself refunds the fee if you win your case." matches the sentence about
    winning best; its main clause is denied by the next sentence, so a "Yes." is not
    supported, as without the condition."""
    context = (
        "Ashworth County Court, small claims: If you win your small claims case, the judge will"
        " usually order the other side to repay your court fee. The court itself does not refund"
        " fees."
    )
    (statement,) = [s.text for s in resolve(question, "Yes.").statements]
    assert " if you win your " in statement
    verifier = LocalJudge().verifier
    (found,) = verifier.check([statement], context, sources=[statement])
    assert found.outcome is not Support.SUPPORTED
    assert verifier.risk(statement, context) == 1.0  # the cascade's screen never settles it
