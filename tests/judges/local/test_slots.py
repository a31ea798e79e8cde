"""Permission against prohibition, and a slot filled with another place, state or name: the
contradictions a word-overlap match reads as support."""

from __future__ import annotations

from pathlib import Path

import pytest

from guardrail import Guard
from guardrail.judges.local import LocalJudge
from guardrail.judges.local.slots import mode_of, slot_verdict
from guardrail.judges.local.verify import Support
from guardrail.policy import load_policy

POLICY = Path(__file__).resolve().parents[3] / "policies" / "default.yaml"
IBUPROFEN = "Ibuprofen is contraindicated in the third trimester of pregnancy."


@pytest.fixture(scope="module")
def verifier():  # type: ignore[no-untyped-def]
    return LocalJudge().verifier


def _slot(verifier, statement: str, context: str) -> Support | None:  # type: ignore[no-untyped-def]
    prepared = verifier.prepare(context)
    found = slot_verdict(verifier.assess(statement, prepared), prepared.index, verifier.lexicon)
    return None if found is None else found.outcome


def _checked(verifier, statement: str, context: str) -> Support:  # type: ignore[no-untyped-def]
    (found,) = verifier.check([statement], context)
    return found.outcome


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("Pregnant women can take ibuprofen.", 1),
        ("Ibuprofen is contraindicated in the third trimester.", -1),
        ("The antibiotic should not be taken with milk.", -1),
        ("Soft cheese is not safe to eat when pregnant.", -1),
        ("Soft cheese is fine to eat.", 1),
        ("No amount of alcohol is safe during pregnancy.", -1),
        ("X-rays should be avoided.", -1),
        ("The drug is not unsafe.", 1),
        ("Aspirin is not recommended for headaches.", -1),
        ("Patients cannot drive for four hours.", -1),
        ("The tablets may cause drowsiness.", None),  # a possibility, not a permission
        ("The report was published in May.", None),  # the month
        ("A language test is required for the work permit.", None),  # "permit" the noun
        ("The pool is heated.", None),
        # a purpose says why, it neither allows nor forbids; "have to avoid" still forbids
        ("You should take it with meals to avoid heartburn.", 1),
        ("Take the capsules with water to avoid a sore throat.", None),
        ("You have to avoid alcohol.", -1),
        ("It is best to avoid alcohol.", -1),
    ],
)
def test_the_mode_of_a_text(verifier, text: str, mode: int | None) -> None:  # type: ignore[no-untyped-def]
    assert mode_of(text, verifier.lexicon) == mode


@pytest.mark.parametrize(
    ("statement", "context", "expected"),
    [
        ("Pregnant women can take ibuprofen.", IBUPROFEN, Support.CONTRADICTED),
        ("Pregnant women are allowed to take ibuprofen.", IBUPROFEN, Support.CONTRADICTED),
        (
            "Pregnant women cannot take ibuprofen in the third trimester.",
            IBUPROFEN,
            Support.SUPPORTED,
        ),
        # the unit is narrower than an unrestricted prohibition: not decided here
        ("Pregnant women cannot take ibuprofen.", IBUPROFEN, None),
        (
            "You can take the antibiotic with milk.",
            "The antibiotic should not be taken with milk because calcium blocks its absorption.",
            Support.CONTRADICTED,
        ),
        (
            "Soft cheese is fine to eat when pregnant.",
            "Soft cheese is not safe to eat when pregnant because it may contain listeria.",
            Support.CONTRADICTED,
        ),
        (
            "Students cannot retake the exam.",
            "Students can retake the exam once.",
            Support.CONTRADICTED,
        ),
        # another unit of the context forbids it, though the best match is about something else
        (
            "Pregnant women can take ibuprofen.",
            "Ibuprofen must not be taken during pregnancy. Paracetamol is the preferred pain "
            "reliever for pregnant women.",
            Support.CONTRADICTED,
        ),
        # a word the context does not have: not the same action
        ("Guests can use the sauna.", "Guests cannot use the gym after 10 pm.", None),
    ],
)
def test_permission_against_prohibition(  # type: ignore[no-untyped-def]
    verifier, statement: str, context: str, expected: Support | None
) -> None:
    assert _slot(verifier, statement, context) is expected


@pytest.mark.parametrize(
    ("statement", "context"),
    [
        (
            "The first aid kit is in the reception area.",
            "The first aid kit is in the kitchen next to the sink.",
        ),
        (
            "You collect your residence card at the post office.",
            "You collect your residence card at the foreigners office.",
        ),
        (
            "The local police decides on asylum applications.",
            "The Federal Office for Migration decides on asylum applications.",
        ),
        (
            "The lost property office is in the basement.",
            "The lost property office is on the second floor of the main building.",
        ),
    ],
)
def test_a_slot_filled_otherwise_is_contradicted(verifier, statement: str, context: str) -> None:  # type: ignore[no-untyped-def]
    assert _slot(verifier, statement, context) is Support.CONTRADICTED
    assert _checked(verifier, statement, context) is Support.CONTRADICTED


@pytest.mark.parametrize(
    ("statement", "context"),
    [
        (
            "The first aid kit is in the kitchen.",
            "The first aid kit is in the kitchen next to the sink.",
        ),
        ("The market take places on Saturday.", "The market takes place on Saturday."),
        ("The free trial lasts two weeks.", "The free trial lasts 14 days."),
        ("The marathon is 42 km long.", "The marathon route is 42 kilometres long."),
        ("The bus is less expensive than the ferry.", "The bus is cheaper than the ferry."),
        (
            "Rubbish collection happens on Wednesday mornings.",
            "Rubbish is collected every Wednesday morning.",
        ),
        # the slot word is stated with the same frame in another sentence
        (
            "The first aid kit is in the kitchen.",
            "The first aid kit is in the hallway. A second first aid kit is in the kitchen.",
        ),
    ],
)
def test_no_slot_conflict_for_restatements(verifier, statement: str, context: str) -> None:  # type: ignore[no-untyped-def]
    assert _slot(verifier, statement, context) is None


def test_yes_to_the_ibuprofen_question_is_contradicted_and_the_faithful_reply_passes() -> None:
    """Under the shipped default policy: "Yes." is resolved and contradicted (score 1.0, not
    passed); "No, not in the third trimester." is resolved, supported and passed."""
    question = "Can pregnant women take ibuprofen?"
    guard = Guard.from_yaml(load_policy(POLICY), audit_log=None, review_db=":memory:")
    try:
        wrong = guard.check(question, "Yes.", [IBUPROFEN])
        right = guard.check(question, "No, not in the third trimester.", [IBUPROFEN])
    finally:
        guard.close()
    assert wrong.report is not None and right.report is not None
    assert [s.text for s in wrong.report.resolved] == ["Pregnant women can take ibuprofen."]
    labels = [v.label.value for f in wrong.report.factoids for v in f.variants]
    assert "NO" in labels and wrong.report.score == 1.0
    assert wrong.decision.action != "pass"
    assert right.decision.action == "pass" and right.report.score < 0.3
