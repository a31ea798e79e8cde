"""Question resolution of replies that say more than yes or no, and of duration and frequency
questions: every statement is grammatical and self-contained, and a yes or no is never lost."""

from __future__ import annotations

import pytest

from guardrail.scoring.resolve import resolve


def statements(question: str, answer: str) -> list[str]:
    return [s.text for s in resolve(question, answer).statements]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Can children take the syrup?",
            "No. They should see a doctor.",
            ["Children cannot take the syrup.", "Children should see a doctor."],
        ),
        (
            "Can children take the syrup?",
            "No, they should see a doctor.",
            ["Children cannot take the syrup.", "Children should see a doctor."],
        ),
        (
            "Is the office open on Sunday?",
            "No. It opens on Monday at 9 am.",
            ["The office is not open on Sunday.", "The office opens on Monday at 9 am."],
        ),
        (
            "Can children take the syrup?",
            "No - a doctor must decide.",
            ["Children cannot take the syrup.", "A doctor must decide."],
        ),
    ],
)
def test_a_yes_or_no_before_a_sentence_of_its_own_is_kept(
    question: str, answer: str, expected: list[str]
) -> None:
    """ "No. They ..." is two sentences: the question denied, then the next sentence with its
    pronoun named; a full sentence after the no does not swallow it."""
    assert statements(question, answer) == expected


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Shouldn't the cream be used at night?",
            "No, apply it in the morning.",
            ["The cream should not be used at night.", "Apply the cream in the morning."],
        ),
    ],
)
def test_an_instruction_after_a_no_is_its_own_statement(
    question: str, answer: str, expected: list[str]
) -> None:
    assert statements(question, answer) == expected


def test_a_sentence_that_does_not_lean_on_the_question_follows_as_written() -> None:
    found = resolve("Can I eat before the scan?", "No. Wait until after the scan.")
    assert [s.text for s in found.statements] == ["You cannot eat before the scan."]
    assert found.text == "You cannot eat before the scan. Wait until after the scan."


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "How long should I rest after the injection?",
            "Two days.",
            "You should rest for two days after the injection.",
        ),
        (
            "How long before the flight should passengers check in?",
            "Three hours.",
            "Passengers should check in three hours before the flight.",
        ),
        (
            "How long do I have to wait for the results of the test?",
            "About a week.",
            "You have to wait about a week for the results of the test.",
        ),
        (
            "How long does the warranty last?",
            "Two years.",
            "The warranty lasts for two years.",
        ),
    ],
)
def test_a_duration_reply_reads_as_a_duration(question: str, answer: str, expected: str) -> None:
    """ "How long ...?" + "Two days." puts "for two days" after the verb (or "three hours"
    before the question's own "before the flight"), never at the sentence's end."""
    assert statements(question, answer) == [expected]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "How many times a day should patients use the inhaler?",
            "Twice a day.",
            "Patients should use the inhaler twice a day.",
        ),
        (
            "How many times a week does the bus run?",
            "Three times.",
            "The bus runs three times a week.",
        ),
        (
            "How often should the filter be cleaned?",
            "Once a month.",
            "The filter should be cleaned once a month.",
        ),
    ],
)
def test_a_frequency_reply_reads_as_a_frequency(question: str, answer: str, expected: str) -> None:
    assert statements(question, answer) == [expected]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Do students have to wear a uniform?",
            "Yes, they must.",
            "Students must wear a uniform.",
        ),
        (
            "Do visitors need to book in advance?",
            "Yes, they should.",
            "Visitors should book in advance.",
        ),
    ],
)
def test_a_modal_echo_replaces_have_to(question: str, answer: str, expected: str) -> None:
    """ "They must." to "Do X have to Y?" is "X must Y", not "X must have to Y"."""
    assert statements(question, answer) == [expected]


def test_a_value_that_replaces_the_questions_own() -> None:
    """ "Does the pool open before 8 am?" + "Yes, at 7 am." states the hour given, which
    answers the question's own."""
    assert statements("Does the pool open before 8 am?", "Yes, at 7 am.") == [
        "The pool opens at 7 am."
    ]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "When are the results of the scan available?",
            "After ten days.",
            "The results of the scan are available after ten days.",
        ),
        (
            "What is the decision of the court based on?",
            "A written statement.",
            "The decision of the court is based on a written statement.",
        ),
        (
            "Which floor is the dental clinic on?",
            "The fourth floor.",
            "The dental clinic is on the fourth floor.",
        ),
        (
            "Who do I call if I lose my badge?",
            "The security desk.",
            "You call the security desk if you lose your badge.",
        ),
        (
            "Who should I ask about the refund?",
            "The finance office.",
            "You should ask the finance office about the refund.",
        ),
    ],
)
def test_a_noun_phrase_with_of_and_a_stranded_preposition_stay_whole(
    question: str, answer: str, expected: str
) -> None:
    """ "the results of the scan" is one subject; "on" stays with its verb; an object "who"
    takes the reply right after the verb."""
    assert statements(question, answer) == [expected]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("Can my landlord enter the flat?", "No, never.", "Your landlord cannot enter the flat."),
        (
            "Are interns allowed to vote?",
            "Only after six months.",
            "Interns are allowed to vote after six months.",
        ),
    ],
)
def test_a_polar_reply_without_yes_or_no(question: str, answer: str, expected: str) -> None:
    """ "No, never." is a plain no; "Only after six months." is a yes with its condition."""
    # ("only" is not kept: the condition, checked against the passage, is the claim)
    assert statements(question, answer) == [expected]


def test_a_qualifier_does_not_repeat_the_questions_word() -> None:
    assert statements("Is the office open late?", "Yes, open until 8 pm.") == [
        "The office is open late until 8 pm."
    ]


def test_an_adjective_after_yes_is_no_instruction() -> None:
    """ "free of charge" is no instruction ("free" has no object): the yes, finished by the
    words that go on from its last word — no bare "Free of charge." statement."""
    found = resolve("Is the check-up free?", "Yes, free of charge.").statements
    assert [(s.text, s.rule) for s in found] == [("The check-up is free of charge.", "yes_no")]


#: Question forms beyond plain inversion and wh-words: (question, reply, statements).
OTHER_FORMS = [
    ("Is the pool heated?", "Yes, heated all year.", ["The pool is heated all year."]),
    ("Is the course free?", "Yes, free.", ["The course is free."]),
    ("Is the meeting on Monday or Tuesday?", "Tuesday.", ["The meeting is on Tuesday."]),
    ("Is the meeting on Monday or Tuesday?", "On Monday.", ["The meeting is on Monday."]),
    ("Do I pay in cash or by card?", "By card.", ["You pay by card."]),
    (
        "Should I take it before or after meals?",
        "After meals.",
        ["You should take it after meals."],
    ),
    ("How soon can I reapply?", "After a year.", ["You can reapply after a year."]),
    ("How old must you be to rent a car?", "21.", ["You must be 21 to rent a car."]),
    ("What's the entry fee?", "Five euros.", ["Five euros is the entry fee."]),
    ("My son is 4, does he need a booster seat?", "Yes.", ["He needs a booster seat."]),
    (
        "If I cancel today, do I get a refund?",
        "No.",
        ["You do not get a refund if you cancel today."],
    ),
]


@pytest.mark.parametrize(("question", "answer", "expected"), OTHER_FORMS)
def test_other_question_forms_are_read(question: str, answer: str, expected: list[str]) -> None:
    """Verbless words after a yes finish its statement; an alternative keeps the option the
    reply names; "how soon" / "how old", "What's"; a premise is left out, a condition kept."""
    assert [s.text for s in resolve(question, answer).statements] == expected


def test_the_askers_own_word_in_a_reply_is_the_statements_your() -> None:
    (found,) = resolve("What do I need to show?", "My ticket.").statements
    assert "your ticket" in found.text and "my" not in found.text.lower().split()


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Isn't sick pay paid from the first day?",
            "No, it kicks in on day four.",
            ["Sick pay is not paid from the first day.", "Sick pay kicks in on day four."],
        ),
        (
            "Is the clinic open at weekends?",
            "Yes, they open Saturday mornings.",
            ["The clinic is open at weekends.", "They open Saturday mornings."],
        ),
        (
            "Do I need a referral for physio?",
            "No, you self-refer online.",
            ["You do not need a referral for physio.", "You self-refer online."],
        ),
    ],
)
def test_a_subject_pronoun_after_a_yes_or_no_opens_a_sentence_of_its_own(
    question: str, answer: str, expected: list[str]
) -> None:
    """ "No, it kicks in on day four." is a no and then a clause: a subject pronoun opens a
    sentence whatever verb follows it, so the clause is never glued onto the question's
    statement."""
    assert statements(question, answer) == expected


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "How long after the last dose should I avoid alcohol?",
            "Avoid alcohol for two days after the last dose.",
        ),
        ("Where do I hand in the form?", "Hand it in at reception."),
        ("When should I send the renewal?", "Send it at least eight weeks before expiry."),
        ("What should I do if I miss a pill?", "Take it as soon as you remember."),
    ],
)
def test_an_instruction_that_names_no_value_is_read_as_written(question: str, answer: str) -> None:
    """An instruction answering a wh-question is a sentence of its own; unless it points to a
    name or a number ("Take it to Desk 4."), it is never pasted into the question's gap."""
    found = resolve(question, answer)
    assert found.statements == ()
    assert found.text == answer


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Who's actually holding my deposit?",
            "The Deposit Protection Service, not the agency.",
            ["The Deposit Protection Service is actually holding your deposit."],
        ),
        (
            "Where do I collect my permit?",
            "At the town hall, not the post office.",
            ["You collect your permit at the town hall."],
        ),
    ],
)
def test_a_value_with_a_contrast_places_the_value_alone(
    question: str, answer: str, expected: list[str]
) -> None:
    """ "X, not Y." answers with X: the contrast is not part of the value placed in the
    question's gap."""
    assert statements(question, answer) == expected


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "I'm expecting twins. Can I still fly at 34 weeks?",
            "No, not after 32 weeks with twins.",
            [
                "You still cannot fly at 34 weeks.",
                "You still cannot fly after 32 weeks with twins.",
            ],
        ),
        (
            "Can my employer read my private emails?",
            "No, not without a court order.",
            ["Your employer cannot read your private emails without a court order."],
        ),
    ],
)
def test_a_denied_qualifier_stays_denied(question: str, answer: str, expected: list[str]) -> None:
    """ "No, not after 32 weeks." denies the reply's own value too: it is never turned into
    "You can fly after 32 weeks"; "not without X" is the denial on that condition."""
    assert statements(question, answer) == expected


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Shouldn't I take it with food?",
            "Yes, always with food.",
            ["You should take it with food."],
        ),
        (
            "Do I need to bring my passport?",
            "Yes, always your passport.",
            ["You need to bring your passport."],
        ),
    ],
)
def test_a_qualifier_that_only_repeats_the_question_adds_nothing(
    question: str, answer: str, expected: list[str]
) -> None:
    """ "Yes, always with food." repeats the question's "with food": it is not pasted after it
    a second time ("... with food always with food")."""
    assert statements(question, answer) == expected


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Can I eat soft cheese while pregnant?",
            "Only if it is cooked until piping hot.",
            ["You can eat soft cheese while pregnant only if it is cooked until piping hot."],
        ),
        (
            "Can I claim the grant?",
            "Yes, but only when you have a tenancy agreement.",
            ["You can claim the grant only when you have a tenancy agreement."],
        ),
        (
            "Can I claim the grant?",
            "Not unless you have lived here for a year.",
            ["You can claim the grant only if you have lived here for a year."],
        ),
    ],
)
def test_a_condition_reply_is_the_statement_on_that_condition(
    question: str, answer: str, expected: list[str]
) -> None:
    """ "Only if ..." and "Not unless ..." affirm the question's statement on a condition
    (the condition is then checked with it); a "no" before "only if" is not read this way."""
    assert statements(question, answer) == expected
    assert statements(question, "No, only if it is cooked.") != [
        "You can eat soft cheese while pregnant only if it is cooked."
    ]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "isn't the benefit paid from the first week?",
            "No, from week three.",
            ["The benefit is paid from week three."],
        ),
        (
            "Does the pharmacy close on Friday?",
            "No, on Saturday.",
            ["The pharmacy closes on Saturday."],
        ),
    ],
)
def test_a_correction_in_words_replaces_the_questions_value(
    question: str, answer: str, expected: list[str]
) -> None:
    """A "no" with another value of the question's kind — a number or an ordinal in words, a
    weekday — states the reply's value in the question's place."""
    assert statements(question, answer) == expected


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "where does the night bus leave from?",
            "Bay 4.",
            ["The night bus leaves from Bay 4."],
        ),
        (
            "Where does the night bus leave from?",
            "From Bay 4.",
            ["The night bus leaves from Bay 4."],
        ),
        (
            "Where do I post the renewal form to?",
            "The Passport Office.",
            ["You post the renewal form to the Passport Office."],
        ),
        (
            "Who's in charge of lost luggage?",
            "Eastway Rail's conductor.",
            ["Eastway Rail's conductor is in charge of lost luggage."],
        ),
        (
            "who handles complaints?",
            "Dr Osei's team.",
            ["Dr Osei's team handles complaints."],
        ),
    ],
)
def test_a_place_or_a_name_fills_the_questions_gap(
    question: str, answer: str, expected: list[str]
) -> None:
    """A where-question's own preposition ("leave *from*") takes the reply's place, once; a
    label with a number ("Bay 4") is a place, not an instruction; a name's possessive
    ("Dr Osei's team") is a noun phrase, not "Dr Osei is"."""
    assert statements(question, answer) == expected


def test_a_personal_pronoun_is_the_whole_subject() -> None:
    """ "I start work": "start" is the verb, not part of the subject."""
    assert statements("When can I start work?", "After six months.") == [
        "You can start work after six months."
    ]
