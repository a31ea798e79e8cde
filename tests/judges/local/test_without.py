""" "Without X" denies X, and only X ("sin indemnización" is no compensation); "unless" denies
its condition, so "without a doctor's advice" and "unless a doctor advises" say the same; and
"without any problem" is an idiom for "fine", not a denial."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import assert_told_apart, verified


@pytest.mark.parametrize(
    ("language", "context", "faithful", "wrong"),
    [
        (
            "en",
            "During probation the employer can end the contract without notice and without"
            " compensation.",
            "There is no compensation during probation.",
            "There is compensation during probation.",
        ),
        (
            "es",
            "Durante el periodo de prueba, la empresa puede extinguir el contrato sin preaviso y"
            " sin indemnización.",
            "En el periodo de prueba no hay indemnización.",
            "En el periodo de prueba hay indemnización.",
        ),
        (
            "fr",
            "Pendant la période d'essai, le contrat peut être rompu sans préavis et sans"
            " indemnité.",
            "Pendant la période d'essai, il n'y a pas d'indemnité.",
            "Pendant la période d'essai, il y a une indemnité.",
        ),
    ],
)
def test_without_denies_the_noun_after_it(
    language: str, context: str, faithful: str, wrong: str
) -> None:
    assert_told_apart(language, context, faithful, wrong)


def test_unless_and_without_state_one_condition() -> None:
    context = (
        "Adults should take no more than 1,200 mg of ibuprofen in 24 hours unless a doctor"
        " advises a higher dose."
    )
    wrong = "You can take up to 2,400 mg of ibuprofen in 24 hours without a doctor's advice."
    (found,) = verified("en", [wrong], context)
    assert found is not Support.SUPPORTED


def test_without_any_problem_is_no_denial() -> None:
    context = "Durante el embarazo se desaconseja la sauna por el riesgo de bajada de tensión."
    wrong = "Sí, la sauna está permitida sin problema en el embarazo."
    (found,) = verified("es", [wrong], context)
    assert found is not Support.SUPPORTED


@pytest.mark.parametrize(
    ("context", "statement"),
    [
        (
            "You can apply for permission to work if you have waited more than 12 months for a "
            "decision through no fault of your own.",
            "You can apply for permission to work once you have waited over a year for a decision.",
        ),
        (
            "Students with no exam results yet can enrol on the foundation course.",
            "Students can enrol on the foundation course.",
        ),
    ],
)
def test_a_no_before_a_noun_denies_that_noun_only(context: str, statement: str) -> None:
    """ "through *no* fault of your own" denies the fault, not the decision before it."""
    (found,) = verified("en", [statement], context)
    assert found is not Support.CONTRADICTED


@pytest.mark.parametrize(
    ("language", "context", "statement"),
    [
        (
            "it",
            "In una gravidanza fisiologica il consultorio prevede tre visite ostetriche.",
            "In una gravidanza senza problemi il consultorio prevede cinque visite ostetriche.",
        ),
        (
            "en",
            "For an uncomplicated pregnancy the clinic offers three midwife visits.",
            "For a pregnancy without complications the clinic offers five midwife visits.",
        ),
        (
            "fr",
            "Pour une entorse simple, le kinésithérapeute prévoit 6 séances.",
            "Pour une entorse sans gravité, le kinésithérapeute prévoit 12 séances.",
        ),
        (
            "de",
            "Bei einer einfachen Erkältung dauert die Krankschreibung höchstens 3 Tage.",
            "Bei einer Erkältung ohne Fieber dauert die Krankschreibung höchstens 10 Tage.",
        ),
    ],
)
def test_without_does_not_deny_another_value(language: str, context: str, statement: str) -> None:
    """A "without" that denies its own noun ("senza problemi") says nothing of the value the
    statement gives: a different value is no denial of the context's one."""
    (found,) = verified(language, [statement], context)
    assert found is not Support.SUPPORTED


@pytest.mark.parametrize(
    ("language", "context", "statement"),
    [
        (
            "en",
            "The appeal period lasts 14 days.",
            "The appeal period does not last 30 days.",
        ),
        (
            "it",
            "In una gravidanza fisiologica il consultorio prevede tre visite ostetriche.",
            "In una gravidanza senza problemi il consultorio prevede tre visite ostetriche.",
        ),
    ],
)
def test_a_denied_or_equal_value_is_not_contradicted(
    language: str, context: str, statement: str
) -> None:
    (found,) = verified(language, [statement], context)
    assert found is not Support.CONTRADICTED
