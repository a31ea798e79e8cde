"""Question resolution: short answers read with their question before decomposition."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guardrail.scoring.resolve import LANGUAGES, resolve, rules_for


def statements(question: str, answer: str) -> list[str]:
    return [s.text for s in resolve(question, answer).statements]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("Can diabetics eat honey?", "Yes.", "Diabetics can eat honey."),
        ("Can diabetics eat honey?", "No.", "Diabetics cannot eat honey."),
        ("Can diabetics eat honey?", "No, they should not.", "Diabetics should not eat honey."),
        ("Does the ferry carry bicycles?", "Yes, it does.", "The ferry carries bicycles."),
        ("Does the ferry carry bicycles?", "No, it doesn't.", "The ferry does not carry bicycles."),
        ("Did the council approve the plan?", "Yes.", "The council approved the plan."),
        ("Is the pharmacy open on holidays?", "No.", "The pharmacy is not open on holidays."),
        (
            "Are tourists allowed in the archive?",
            "Yes, they are.",
            "Tourists are allowed in the archive.",
        ),
        ("Must tenants pay a deposit?", "Sure.", "Tenants must pay a deposit."),
        ("Can I renew my visa online?", "Yes, you can.", "You can renew your visa online."),
    ],
)
def test_yes_no_questions_become_statements(question: str, answer: str, expected: str) -> None:
    """A yes/no reply to an inverted question is the question's statement, affirmed or denied
    (do-support undone, the asker's "I" and "my" as "you" and "your")."""
    assert statements(question, answer) == [expected]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("Isn't the ferry free for children?", "Yes.", "The ferry is free for children."),
        (
            "Isn't the ferry free for children?",
            "No, it isn't.",
            "The ferry is not free for children.",
        ),
        ("Doesn't the pass include museums?", "No.", "The pass does not include museums."),
    ],
)
def test_negated_questions_ask_about_the_positive_statement(
    question: str, answer: str, expected: str
) -> None:
    """ "Isn't X free?" + "Yes" affirms "X is free"; "No" denies it."""
    assert statements(question, answer) == [expected]


def test_a_qualifier_after_no_is_kept() -> None:
    """ "No, not before noon." keeps its qualifier on the denied statement."""
    found = statements("Can visitors park in the yard?", "No, not after midnight.")
    assert found == ["Visitors cannot park in the yard after midnight."]


def test_an_echo_with_another_subject_makes_two_statements() -> None:
    """ "No, the landlord must." denies the question's statement and affirms the other one."""
    found = statements("Must the tenant repair the boiler?", "No, the landlord must.")
    assert found == [
        "The tenant must not repair the boiler.",
        "The landlord must repair the boiler.",
    ]


def test_an_echo_with_its_own_predicate_keeps_the_lead_answer() -> None:
    """ "No, it is closed." denies the question's statement and states the echo's own."""
    found = statements("Is the bridge open in winter?", "No, it is closed.")
    assert found == ["The bridge is not open in winter.", "The bridge is closed."]


def test_a_modal_echo_replaces_do_support() -> None:
    """ "Does X cause Y?" + "It can." keeps the reply's modality."""
    found = statements("Does the drug cause drowsiness?", "It can, for a few hours.")
    assert found == ["The drug can cause drowsiness for a few hours."]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("Who signs the contracts?", "Lena Berg.", "Lena Berg signs the contracts."),
        ("Which bank handles the payroll?", "Nordbank.", "Nordbank handles the payroll."),
        (
            "How many beds does the ward have?",
            "Forty.",
            "The ward has forty beds.",
        ),
        ("How much does the course cost?", "300 euros.", "The course costs 300 euros."),
        (
            "When can tenants move in?",
            "After the inspection.",
            "Tenants can move in after the inspection.",
        ),
        ("Where is the archive?", "In the basement.", "The archive is in the basement."),
        ("In which town is the depot?", "Lund.", "The depot is in Lund."),
        ("What time does the ferry leave?", "7 am.", "The ferry leaves at 7 am."),
        ("In which year did the mill close?", "1987.", "The mill closed in 1987."),
        ("When is the deadline?", "3 May.", "The deadline is on 3 May."),
        ("Who is the head of security?", "Omar Diaz.", "Omar Diaz is the head of security."),
        (
            "How many nurses are needed?",
            "Six.",
            "Six nurses are needed.",
        ),
    ],
)
def test_a_value_fills_the_wh_question_gap(question: str, answer: str, expected: str) -> None:
    """A bare value, name, place, date or time takes the wh-phrase's place in the question."""
    assert statements(question, answer) == [expected]


def test_spans_point_at_the_answer_words_and_the_rest_is_kept() -> None:
    """The statements stand for the first sentence's words; later sentences stay as written
    in the text the decomposer reads."""
    answer = "Yes. Bring your card as well."
    found = resolve("Can members borrow ebooks?", answer)
    assert [s.text for s in found.statements] == ["Members can borrow ebooks."]
    (statement,) = found.statements
    assert [answer[s:e] for s, e in statement.spans] == ["Yes"]
    assert found.text == "Members can borrow ebooks. Bring your card as well."
    assert found.align("Members can borrow ebooks.").spans == [(0, 3)]
    assert found.align("Bring your card as well.").spans == [(5, 28)]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "Can members borrow ebooks?",
            "Members can borrow up to ten ebooks at a time. The loan lasts three weeks.",
        ),
        ("What does the ward offer?", "The ward offers physiotherapy and speech therapy."),
        ("What is the difference between sauce and gravy?", "Gravy is made from meat juice."),
        ("", "Yes."),
    ],
)
def test_self_contained_answers_are_left_alone(question: str, answer: str) -> None:
    """An answer that opens with a full sentence (or has no question) is not rewritten."""
    found = resolve(question, answer)
    assert not found.resolved and found.text == answer


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know.",
        "I can't answer that from the sources.",
        "Sorry, I do not have information about that. Please ask your pharmacist.",
        "The provided passages do not mention the opening hours.",
        "Unable to answer based on the given passages.",
    ],
)
def test_refusals_are_abstentions(answer: str) -> None:
    """An answer that only declines (with courtesy around it) is an abstention."""
    assert resolve("When does the clinic open?", answer).abstention


@pytest.mark.parametrize(
    "answer",
    [
        "I don't know the exact hour, but the clinic opens at 8 am.",
        "I don't know. The clinic opens at 8 am.",
        "Yes.",
    ],
)
def test_an_answer_that_also_claims_is_no_abstention(answer: str) -> None:
    """A refusal next to a claim is not an abstention: the claim is checked."""
    assert not resolve("When does the clinic open?", answer).abstention


def test_a_reply_no_rule_places_is_not_resolved() -> None:
    """A fragment the rules cannot place gives no statement (the guard then finds nothing
    to verify and the policy's on_error decides)."""
    assert statements("Why is the sky blue?", "Because of scattering.") == []


def test_a_condition_alone_is_a_qualified_yes() -> None:
    """ "Only with food." to "Can I take the syrup with food?" is a yes; the words the
    question already has add nothing."""
    assert statements("Can I take the syrup with food?", "Only with food.") == [
        "You can take the syrup with food."
    ]


def test_a_yes_before_words_no_rule_places_is_still_read() -> None:
    """ "Yes, with milk is fine." is the question's statement plus the rest as written."""
    found = resolve("Can I take the syrup with milk?", "Yes, with milk is fine.").statements
    assert [(s.text, s.rule) for s in found] == [
        ("You can take the syrup with milk.", "yes_no"),
        ("With milk is fine.", "as_written"),
    ]


@pytest.mark.parametrize(
    ("answer", "first", "rest"),
    [
        (
            "Yes, ibuprofen is safe throughout pregnancy.",
            "Pregnant women can take ibuprofen.",
            "Ibuprofen is safe throughout pregnancy.",
        ),
        (
            "No, the office closes at noon.",
            "Pregnant women cannot take ibuprofen.",
            "The office closes at noon.",
        ),
    ],
)
def test_a_full_sentence_after_yes_keeps_the_yes(answer: str, first: str, rest: str) -> None:
    """A yes or no followed by a sentence with its own subject: the yes or no is read (never
    dropped), the sentence follows as written."""
    found = resolve("Can pregnant women take ibuprofen?", answer).statements
    assert [(s.text, s.rule) for s in found] == [(first, "yes_no"), (rest, "as_written")]


def test_languages_are_modules() -> None:
    """English is registered; an unknown language resolves nothing."""
    assert rules_for("en") is not None and "en" in LANGUAGES
    assert rules_for("xx") is None
    assert not resolve("Can I?", "Yes.", language="xx").resolved


@settings(max_examples=200, deadline=None)
@given(question=st.text(max_size=80), answer=st.text(max_size=120))
def test_resolution_never_fails_and_spans_stay_in_the_answer(question: str, answer: str) -> None:
    """Any text resolves without error; every span lies inside the answer."""
    found = resolve(question, answer)
    for statement in found.statements:
        assert statement.text
        for start, end in statement.spans:
            assert 0 <= start <= end <= len(answer)


@pytest.mark.parametrize(
    ("question", "answer"),
    [("Could you send me the form?", "Sure."), ("Can you tell me the hours?", "Yes.")],
)
def test_a_request_to_the_assistant_is_no_question_of_fact(question: str, answer: str) -> None:
    """ "Could you send me the form?" + "Sure." offers something; it states nothing."""
    assert statements(question, answer) == []


def test_a_generic_you_is_still_a_question_of_fact() -> None:
    """ "Can you get a refund after 30 days?" asks what one can do: the reply is a claim."""
    found = statements("Can you get a refund after 30 days?", "No.")
    assert found == ["You cannot get a refund after 30 days."]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("Will the train be late?", "No.", "The train will not be late."),
        ("Has the parcel arrived?", "Yes.", "The parcel has arrived."),
        ("Am I eligible for the grant?", "Yes, you are.", "You are eligible for the grant."),
        ("Is there a pharmacy nearby?", "Yes.", "There is a pharmacy nearby."),
    ],
)
def test_other_auxiliaries(question: str, answer: str, expected: str) -> None:
    """will, has, am (as "you are") and existential "there" invert like the others."""
    assert statements(question, answer) == [expected]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        (
            "Do I have to report a change of address?",
            "Yes. It must be done within two weeks.",
            [
                "You have to report a change of address.",
                "A change of address must be done within two weeks.",
            ],
        ),
        (
            "Is a biometric photo required for the passport application?",
            "Yes. It must not be older than six months.",
            [
                "A biometric photo is required for the passport application.",
                "A biometric photo must not be older than six months.",
            ],
        ),
        (
            "Where is the fire extinguisher?",
            "In the hallway. It is mounted on the wall.",
            [
                "The fire extinguisher is in the hallway.",
                "The fire extinguisher is mounted on the wall.",
            ],
        ),
        (
            "Are the staff lockers in the basement?",
            "Yes. They are next to the changing rooms.",
            [
                "The staff lockers are in the basement.",
                "The staff lockers are next to the changing rooms.",
            ],
        ),
    ],
)
def test_follow_up_sentences_that_lean_on_the_question(
    question: str, answer: str, expected: list[str]
) -> None:
    """After a bare reply, a sentence whose subject pronoun points into the question is
    resolved too, each statement spanning its own sentence."""
    found = resolve(question, answer)
    assert [s.text for s in found.statements] == expected
    _, (second, _) = found.replacements
    assert found.statements[1].spans == [(second[0], len(answer) - 1)]
    assert found.text == " ".join(expected)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # the pronoun points to the answer's own noun phrase
        ("Can I renew online?", "Yes. You need form B2. It must be signed."),
        # "it" stands for the claim, not for a thing the question named
        ("Is the pool heated?", "Yes. It is true."),
        # no bare reply first: the answer names its own subject
        ("Is the pool heated?", "Heating costs extra. It is billed monthly."),
        # a person is never "it"
        ("Can I park here?", "No. It is forbidden."),
    ],
)
def test_follow_up_sentences_left_as_written(question: str, answer: str) -> None:
    """A later sentence is resolved only while every sentence before it leaned on the
    question, and only when its pronoun agrees with a thing the question named."""
    found = resolve(question, answer)
    follow = [s for s in found.statements if s.rule == "follow-up pronoun"]
    assert follow == []


def test_a_language_without_follow_up_rules_reads_the_first_sentence_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``resolve_follow`` is optional for a language module: without it the sentences after
    the first are left as written."""
    import sys
    import types

    english = rules_for("en")
    assert english is not None
    bare = types.SimpleNamespace(
        LANGUAGE="xx", resolve_sentence=english.resolve_sentence, abstains=english.abstains
    )
    monkeypatch.setitem(LANGUAGES, "xx", "guardrail.scoring.resolve.fake_xx")
    monkeypatch.setitem(sys.modules, "guardrail.scoring.resolve.fake_xx", bare)
    found = resolve(
        "Is a biometric photo required?",
        "Yes. It must not be older than six months.",
        language="xx",
    )
    assert [s.text for s in found.statements] == ["A biometric photo is required."]
    assert found.text == "A biometric photo is required. It must not be older than six months."
