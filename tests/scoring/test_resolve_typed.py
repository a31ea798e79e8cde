"""Questions as people type them: contractions without their apostrophe ("whats", "isnt",
"dont"), two questions in one ("how often do I take it and can I drink with it") answered
sentence by sentence, a bounded count ("Up to ten.") that keeps the question's noun, and a
condition typed without its comma ("if i collect it myself how long does it take") kept with
the resolved statement."""

from __future__ import annotations

import pytest

from guardrail.scoring.resolve import resolve


def statements(question: str, answer: str) -> list[str]:
    return [s.text for s in resolve(question, answer).statements]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("whats the deposit for the flat", "£400.", ["£400 is the deposit for the flat."]),
        ("wheres the nearest walk in centre", "Hale Street.", None),
        ("whos my case worker", "Jonas Berg.", ["Jonas Berg is your case worker."]),
        ("isnt the museum free on mondays", "Yes, it is.", ["The museum is free on mondays."]),
        ("dont i need a referral for physio", "No.", ["You do not need a referral for physio."]),
        ("cant my wife sign the form for me", "No.", ["Your wife cannot sign the form for you."]),
        ("doesnt the bank charge for transfers", "Yes.", ["The bank charges for transfers."]),
        ("im 17, can i open an account", "No.", ["You cannot open an account."]),
    ],
)
def test_a_contraction_typed_without_its_apostrophe_is_read(
    question: str, answer: str, expected: list[str] | None
) -> None:
    found = statements(question, answer)
    if expected is None:  # the statement's wording is the wh rule's: it must exist
        assert found and "Hale Street" in found[0]
    else:
        assert found == expected


def test_an_apostrophe_typed_is_read_as_before() -> None:
    assert statements("what's the deposit for the flat", "£400.") == statements(
        "whats the deposit for the flat", "£400."
    )


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "how often do i take the syrup and can i give it with milk",
            "Twice a day. Yes, you can.",
            ["You take the syrup twice a day.", "You can give it with milk."],
        ),
        (
            "What is the fee for the permit, and how long does it take?",
            "€80. About six weeks.",
            ["€80 is the fee for the permit.", "It takes about six weeks."],
        ),
        (
            "when does the office open and is it open on saturdays",
            "At 8am. No.",
            ["The office opens at 8am.", "It is not open on saturdays."],
        ),
    ],
)
def test_two_questions_in_one_are_answered_in_turn(
    question: str, answer: str, expected: list[str]
) -> None:
    assert statements(question, answer) == expected


def test_a_second_question_left_elliptical_does_not_join_the_first() -> None:
    """ "..., and for how long?" has no clause of its own: the first question is read
    without it, never with its words inside the statement."""
    found = statements("How many books can I borrow at once, and for how long?", "Ten.")
    assert found == ["You can borrow ten books at once."]


@pytest.mark.parametrize(
    "question",
    [
        "What happens if I am late and do not call?",
        "Can I bring my son and my daughter?",
    ],
)
def test_one_question_with_an_and_stays_one(question: str) -> None:
    from guardrail.scoring.resolve.english import question_parts

    assert question_parts(question) == [question]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "How many sessions will I get?",
            "Up to ten.",
            ["You will get up to ten sessions."],
        ),
        (
            "how many days of leave do i get",
            "At least 20.",
            ["You get at least 20 days of leave."],
        ),
        (
            "How many tablets can I take?",
            "No more than eight.",
            ["You can take no more than eight tablets."],
        ),
    ],
)
def test_a_bounded_count_keeps_the_questions_noun(
    question: str, answer: str, expected: list[str]
) -> None:
    assert statements(question, answer) == expected


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Can I give the syrup to my son?",
            "Yes, you can.",
            ["You can give the syrup to your son."],
        ),
        ("Could you send me the form?", "Sure.", []),
    ],
)
def test_only_the_askers_own_you_makes_a_request(
    question: str, answer: str, expected: list[str]
) -> None:
    """ "Can I give ...?" asks what the asker may do; "Could you send me ...?" asks the
    assistant to act and claims nothing."""
    assert statements(question, answer) == expected


def test_a_wh_question_after_a_premise_may_open_with_a_preposition() -> None:
    found = statements(
        "my daughter is staying with me this week, until what time can she visit", "8pm."
    )
    assert found == ["She can visit until 8pm."]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "how many tablets can i take in a day, im 45",
            "Eight.",
            ["You can take eight tablets in a day."],
        ),
        (
            "is a scan of my payslip ok for the application, the paper one is at my office",
            "No.",
            ["A scan of your payslip is not ok for the application."],
        ),
        (
            "is there a fee, if I pay in dollars?",
            "Yes.",
            None,
        ),
    ],
)
def test_the_askers_own_clause_after_the_question_is_left_out(
    question: str, answer: str, expected: list[str] | None
) -> None:
    found = statements(question, answer)
    if expected is None:  # a condition after the question stays with it
        assert found and "dollars" in found[0]
    else:
        assert found == expected


@pytest.mark.parametrize(
    ("question", "answer", "kept"),
    [
        (
            "if i collect it from the surgery myself how long does a repeat prescription take",
            "Five working days.",
            "if you collect it from the surgery yourself",
        ),
        ("when im on nights how many breaks do i get", "Two.", "when you're on nights"),
    ],
)
def test_a_condition_without_its_comma_is_kept(question: str, answer: str, kept: str) -> None:
    (found,) = statements(question, answer)
    assert kept in found
    with_comma = question.replace(" how ", ", how ", 1)
    assert statements(with_comma, answer) == [found]


def test_a_wh_question_that_opens_with_when_is_no_condition() -> None:
    assert statements("when do i get paid", "On Friday.") == ["You get paid on Friday."]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "if i win my small claims case does the court itself refund the fee",
            "No.",
            "The court itself does not refund the fee if you win your small claims case.",
        ),
        (
            "if i am pregnant can i take dolorex",
            "No.",
            "You cannot take dolorex if you are pregnant.",
        ),
        ("if i pay in dollars is there a fee", "Yes.", "There is a fee if you pay in dollars."),
    ],
)
def test_a_condition_without_its_comma_before_a_yes_no_question_is_kept(
    question: str, answer: str, expected: str
) -> None:
    assert statements(question, answer) == [expected]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("are there any free sessions", "Yes, three.", "There are three free sessions."),
        ("do i need any documents", "Yes, your passport.", "You need your passport."),
        ("is there a fee", "Yes, £20.", "There is a fee of £20."),
        ("do i need any documents", "Yes.", "You need any documents."),
    ],
)
def test_a_yes_with_a_value_fills_what_any_asked_for(
    question: str, answer: str, expected: str
) -> None:
    assert statements(question, answer) == [expected]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Can I donate blood if I have a cold?",
            "No.",
            "You cannot donate blood if you have a cold.",
        ),
        (
            "Can my husband sponsor me if he earns less?",
            "No.",
            "Your husband cannot sponsor you if he earns less.",
        ),
    ],
)
def test_the_subject_ends_before_a_condition(question: str, answer: str, expected: str) -> None:
    """A verb the lexicon does not know ("donate") is no reason to look for the verb inside
    the condition ("if I *have* a cold")."""
    assert statements(question, answer) == [expected]


@pytest.mark.parametrize(
    ("question", "answer", "opening"),
    [
        (
            "whens the deadline to send my form to the council",
            "5pm on 3 June.",
            "The deadline to send your form to the council is ",
        ),
        ("what time is the cut off to book my slot", "Noon.", "The cut off to book your slot is "),
        (
            "when is the last day to return my books",
            "Friday.",
            "The last day to return your books is ",
        ),
    ],
)
def test_the_object_of_an_infinitive_stays_in_the_subject(
    question: str, answer: str, opening: str
) -> None:
    """ "the deadline to send *my* form": a determiner after an infinitive's verb goes on
    with the subject; it does not end it ("The deadline to send is your form ...")."""
    made = statements(question, answer)
    assert len(made) == 1 and made[0].startswith(opening), made


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "how long do i take the penicillin for",
            "Seven days.",
            ["You take the penicillin for seven days."],
        ),
        (
            "how long do i keep the cast on for?",
            "Six weeks.",
            ["You keep the cast on for six weeks."],
        ),
    ],
)
def test_how_long_with_a_stranded_for(question: str, answer: str, expected: list[str]) -> None:
    """ "How long do I take X for?": the length goes where the stranded "for" was, after the
    object ("You take for seven days the penicillin for." before)."""
    assert statements(question, answer) == expected
