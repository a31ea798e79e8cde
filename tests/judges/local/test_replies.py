"""A resolved statement's reply values must be in the passage sentence that holds the
question's frame: another value of the same type there contradicts it, a value the passage
gives for another role (or not at all) is not supported, and the right value is left to the
verifier. A hedge ("sharp", "roughly") is not a word to find, a bound ("at most eight") bounds
the number, a bare hour answering a question about the time is a clock time."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge
from guardrail.judges.local.replies import remember, reply_values
from guardrail.judges.local.verify import Support
from guardrail.scoring import MetaRAG
from guardrail.scoring.resolve import resolve


def judged(question: str, answer: str, context: str) -> Support:
    found = resolve(question, answer)
    assert found.statements, "the answer should be read with its question"
    text = found.statements[0].text
    (finding,) = LocalJudge(verifier="rules").verifier.check([text], context, sources=[text])
    return finding.outcome


CLINIC = (
    "At the harbour clinic, evening appointments are run by nurse Maria Lopez. "
    "Dr Aaron Feld sees patients only after a referral."
)


def test_a_name_the_passage_gives_for_another_role_is_contradicted() -> None:
    question = "Who runs the evening appointments at the harbour clinic?"
    assert judged(question, "Dr Feld.", CLINIC) is Support.CONTRADICTED
    assert judged(question, "Maria Lopez.", CLINIC) is not Support.CONTRADICTED


def test_a_value_the_passage_never_gives_is_not_supported() -> None:
    question = "Who runs the evening appointments at the harbour clinic?"
    assert judged(question, "Dr Okoye.", CLINIC) is not Support.SUPPORTED


def test_an_identifier_letter_counts_as_the_value() -> None:
    context = "Patients should use Gate C on Mill Lane. Gate D is for deliveries."
    question = "Which gate should patients use?"
    assert judged(question, "Gate D.", context) is not Support.SUPPORTED
    assert judged(question, "Gate C.", context) is not Support.CONTRADICTED


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [("At 11pm.", False), ("At eleven at night.", False), ("At 7am.", True)],
)
def test_a_listing_sentence_gives_each_part_its_own_time(answer: str, wrong: bool) -> None:
    context = "The morning ferry sails at 7am, the noon ferry at 12pm and the night ferry at 11pm."
    outcome = judged("What time does the night ferry sail?", answer, context)
    assert (outcome is Support.CONTRADICTED) == wrong


def test_a_date_is_read_whole() -> None:
    context = "The lease runs from 1 March 2025 until 28 February 2026."
    question = "When does the lease end?"
    assert judged(question, "On 1 March 2026.", context) is not Support.SUPPORTED


def test_a_part_with_no_subject_shares_the_sentence_subject() -> None:
    context = "The museum closes on 5 January and reopens on 2 February."
    question = "When does the museum reopen?"
    assert judged(question, "On 5 January.", context) is Support.CONTRADICTED


def test_a_variant_that_denies_a_contradicted_value_is_supported() -> None:
    question = "Who runs the evening appointments at the harbour clinic?"
    text = resolve(question, "Dr Feld.").statements[0].text
    verifier = LocalJudge(verifier="rules").verifier
    denied = f"It is not true that {text[0].lower()}{text[1:]}"
    (finding,) = verifier.check([denied], CLINIC, sources=[text])
    assert finding.outcome is Support.SUPPORTED


def test_only_reply_words_the_question_does_not_use_are_values() -> None:
    question = "Is cheddar safe to eat when pregnant?"
    found = resolve(question, "Yes, cheddar is fine.")
    assert all(reply_values(s.text) == () for s in found.statements)
    found = resolve("Where do I collect the permit?", "At the post office you picked.")
    values = reply_values(found.statements[0].text)
    assert {"post", "office"} <= set(values)
    assert "picked" not in values  # a relative clause after the value is not the value


def test_the_marks_belong_to_the_turn_being_read() -> None:
    question = "Who runs the evening appointments at the harbour clinic?"
    text = resolve(question, "Dr Feld.").statements[0].text
    assert reply_values(text)
    resolve("What should I know?", "The clinic is open late on Thursdays.")
    assert reply_values(text) == ()  # the next turn, resolving nothing, clears them
    remember({text: ["Dr", "Feld"]})
    assert reply_values(text) == ("Dr", "Feld")


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [
        ("By 15th July.", False),
        ("By the fifteenth of July.", False),
        ("July 15th.", False),
        ("By 14th July.", True),
        ("The fourteenth of July.", True),
    ],
)
def test_a_date_in_ordinal_form_is_the_same_date(answer: str, wrong: bool) -> None:
    context = "Renewal forms must reach us by 15 July. Later forms go to the next cycle."
    found = judged("When do I need to send in my renewal form?", answer, context)
    assert (found is Support.CONTRADICTED) is wrong


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [("Two weeks.", False), ("A fortnight.", False), ("Four weeks.", True), ("Three days.", True)],
)
def test_a_duration_in_other_units_is_the_same_amount(answer: str, wrong: bool) -> None:
    context = "Decisions are usually made within 14 days of the interview."
    found = judged("How long does the visa decision take?", answer, context)
    assert (found is Support.CONTRADICTED) is wrong


def test_a_bare_number_is_not_read_as_a_measured_quantity() -> None:
    context = "On Saturdays the pharmacy opens at 9.00 and closes at 13.00."
    question = "What time does the pharmacy open on Saturdays?"
    assert judged(question, "At nine.", context) is not Support.CONTRADICTED


def test_a_time_of_day_in_words_is_the_passage_time() -> None:
    context = "Bins must be at the kerbside by 7am on collection day, and taken back in by 8pm."
    question = "What time do the bins need to be out?"
    assert judged(question, "By seven in the morning.", context) is not Support.CONTRADICTED
    assert judged(question, "By eight in the evening.", context) is not Support.SUPPORTED


POOL = "The pool opens at 6.30am on weekdays and at 8am at weekends."


PHARMACY = "The pharmacy opens at 9am on Saturdays and at 10am on Sundays."


@pytest.mark.parametrize(
    ("question", "answer", "context", "wrong"),
    [
        # a hedge on a time is not a word to find
        ("What time does the pool open on weekdays?", "Half six sharp.", POOL, False),
        ("What time does the pool open on weekdays?", "6.30 on the dot.", POOL, False),
        ("What time does the pool open on weekdays?", "Eight sharp.", POOL, True),
        # a bare hour answering a question about the time is a clock time
        ("What time does the pharmacy open on Saturdays?", "From 9.", PHARMACY, False),
        ("What time does the pharmacy open on Saturdays?", "From 10.", PHARMACY, True),
    ],
)
def test_a_time_reply_is_read_as_a_clock_time(
    question: str, answer: str, context: str, wrong: bool
) -> None:
    outcome = judged(question, answer, context)
    assert (outcome is Support.CONTRADICTED) == wrong


DOSE = (
    "Adults: take one or two 500 mg tablets every four to six hours. "
    "Do not take more than eight tablets in 24 hours."
)


@pytest.mark.parametrize("answer", ["Eight at most in 24 hours.", "Up to eight in 24 hours."])
def test_an_upper_bound_matches_the_passage_limit(answer: str) -> None:
    outcome = judged("How many paracetamol can I take in a day?", answer, DOSE)
    assert outcome is not Support.CONTRADICTED


def test_a_lower_bound_does_not_match_an_upper_limit() -> None:
    outcome = judged(
        "How many paracetamol can I take in a day?", "At least eight in 24 hours.", DOSE
    )
    assert outcome is not Support.SUPPORTED


BABY_CLINIC = (
    "The baby clinic runs on Tuesdays from 14:00 to 16:00. "
    "Immunisations are given on Thursdays from 09:30 to 11:30."
)


@pytest.mark.parametrize(
    ("answer", "wrong"), [("Tuesdays, 2 till 4.", False), ("Tuesdays, 9 till 11.", True)]
)
def test_a_range_of_bare_hours_is_a_range_of_clock_times(answer: str, wrong: bool) -> None:
    outcome = judged("When is the baby clinic?", answer, BABY_CLINIC)
    assert (outcome is not Support.SUPPORTED) == wrong
    if not wrong:
        assert outcome is not Support.CONTRADICTED


def test_a_bare_number_answering_a_count_stays_a_number() -> None:
    context = "Students may work up to 20 hours a week in term time, between 8am and 10pm."
    outcome = judged("How many hours a week can students work in term time?", "20.", context)
    assert outcome is not Support.CONTRADICTED


def test_every_time_of_the_reply_must_be_the_passages() -> None:
    context = "The surgery is open from 8am to 6.30pm, Monday to Friday."
    outcome = judged("What are the surgery's opening hours?", "8am to 6pm.", context)
    assert outcome is not Support.SUPPORTED


def test_a_number_of_another_kind_is_no_rival_of_a_count() -> None:
    context = (
        "The Basic account includes four free cash withdrawals per month; "
        "each further withdrawal costs €2."
    )
    question = "How many free withdrawals do I get a month with the basic account?"
    assert judged(question, "Four.", context) is not Support.CONTRADICTED
    assert judged(question, "Two.", context) is not Support.SUPPORTED


def test_a_factoid_cut_from_a_resolved_statement_keeps_its_reply_values() -> None:
    remember(
        {"Visitors can come in 2 to 4 and 6 to 8.": ["2", "to", "4", "and", "6", "to", "8"]},
        clock=["Visitors can come in 2 to 4 and 6 to 8."],
    )
    assert reply_values("Visitors can come in 6 to 8.") == ("6", "to", "8")
    assert reply_values("Patients can park in bay 6.") == ()


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [("Yes, but only after 12 months.", False), ("Yes, but only after 6 months.", True)],
)
def test_a_waiting_time_after_a_yes_is_a_bound_on_the_duration(answer: str, wrong: bool) -> None:
    context = (
        "Asylum seekers may apply for permission to work if they have waited more than 12"
        " months for a decision."
    )
    found = resolve("Can I work while I'm waiting for a decision?", answer)
    texts = [s.text for s in found.statements]
    (finding,) = LocalJudge().verifier.check(texts[-1:], context, sources=texts[-1:])
    assert (finding.outcome is Support.CONTRADICTED) == wrong
    assert wrong or finding.outcome is Support.SUPPORTED


def test_a_short_denial_the_passage_loosely_contradicts_is_not_supported() -> None:
    context = (
        "Pregnant women are offered the whooping cough vaccine, ideally between 16 and 32"
        " weeks of pregnancy."
    )
    question = "Is the whooping cough jab something I should get while I'm pregnant?"
    found = resolve(question, "No, it isn't given during pregnancy.")
    texts = [s.text for s in found.statements]
    findings = LocalJudge().verifier.check(texts, context, sources=texts)
    assert all(f.outcome is not Support.SUPPORTED for f in findings)


def test_a_stray_negation_does_not_deny_an_affirmative_short_reply() -> None:
    context = (
        "Children under 12 should not use the spray. They should see a pharmacist about"
        " other treatments."
    )
    found = resolve("Can my 8-year-old use the spray?", "No. They should see a pharmacist.")
    texts = [s.text for s in found.statements]
    findings = LocalJudge().verifier.check(texts, context, sources=texts)
    assert all(f.outcome is not Support.CONTRADICTED for f in findings)


@pytest.mark.parametrize(
    ("question", "answer", "wrong"),
    [
        ("How much do we get each week? We're in a self-catered flat.", "£49.18.", False),
        ("How much do we get each week? We're in a self-catered flat.", "£8.86.", True),
    ],
)
def test_the_questions_premise_chooses_the_sentence_that_answers_it(
    question: str, answer: str, wrong: bool
) -> None:
    context = (
        "If you live in catered accommodation you receive £8.86 per person per week. "
        "In self-catered accommodation the allowance is £49.18 per person per week."
    )
    assert (judged(question, answer, context) is Support.CONTRADICTED) == wrong


@pytest.mark.parametrize(
    ("question", "context", "faithful", "wrong"),
    [
        (
            "When do international transfers have to be made to go the same day?",
            "International transfers have to be made before 3.30pm on a working day to go the "
            "same day.",
            "Before half past three.",
            "Before half past four.",
        ),
        (
            "What time does the night shift start?",
            "The night shift starts at 11pm and ends at 7am.",
            "At 23:00.",
            "At 22:00.",
        ),
    ],
)
def test_the_numbers_of_a_clock_time_are_the_time_not_words_to_find(
    question: str, context: str, faithful: str, wrong: str
) -> None:
    """ "Half past three" and "23:00" are times ("3.30pm", "11pm"): their "three" or "23" is
    no number the passage must spell out."""
    scorer = MetaRAG(LocalJudge())
    kept = scorer.score_sync(question, faithful, [context])
    caught = scorer.score_sync(question, wrong, [context])
    assert kept.score is not None and kept.score < 0.3, faithful
    assert caught.score is None or caught.score >= 0.5, wrong


CUT_OFF = (
    "International transfers made before 3.30pm on a working day are sent the same day. "
    "Domestic payments are processed 24/7."
)


@pytest.mark.parametrize(
    ("question", "context", "answer", "kept"),
    [
        (
            "What's the cut-off for an international transfer to go today?",
            CUT_OFF,
            "Half past three.",
            True,
        ),
        (
            "What's the cut-off for an international transfer to go today?",
            CUT_OFF,
            "Half past four.",
            False,
        ),
        ("When does the pharmacy close?", "The pharmacy opens at 9am every day.", "At 9am.", False),
        (
            "What's the cut-off for an international transfer?",
            "International transfers made before 3.30pm are sent the same day. Domestic "
            "transfers made before 5pm are sent the same day.",
            "5pm.",
            False,
        ),
    ],
)
def test_the_passages_only_time_answers_a_question_it_partly_words(
    question: str, context: str, answer: str, kept: bool
) -> None:
    """When the passage words only part of the question ("cut-off" is not in it) but gives one
    time only, and the sentence giving it says the rest of the question and nothing opposite,
    a reply giving that time is supported; another time, a sentence that says the opposite
    ("opens" for "close"), or a passage with several times is not."""
    report = MetaRAG(LocalJudge()).score_sync(question, answer, [context])
    assert report.score is not None
    assert (report.score < 0.3) == kept, answer


AIRPORT = (
    "Lost luggage is reported to the Baggage Desk in the arrivals hall. "
    "Compensation claims for cancelled or delayed flights go to Customer Care at the airline."
)


def test_the_askers_own_details_do_not_hide_the_sentence_that_answers() -> None:
    question = "Who do I claim compensation from for my three hour delay?"
    assert judged(question, "Customer Care.", AIRPORT) is Support.SUPPORTED
    assert judged(question, "The Baggage Desk.", AIRPORT) is Support.CONTRADICTED


def test_a_detail_the_passage_gives_otherwise_still_counts() -> None:
    # the passage gives Saturday's hours: "on Sundays" is not the asker's aside
    context = "The pharmacy on Mill Road opens at 9am on Saturdays."
    outcome = judged("When does the pharmacy on Mill Road open on Sundays?", "At 9am.", context)
    assert outcome is not Support.SUPPORTED


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("What time does the Tuesday drop-in close?", "1pm.", Support.SUPPORTED),
        ("What time does the Tuesday drop-in close?", "10am.", Support.CONTRADICTED),
        ("When does the Tuesday drop-in open?", "At 10.", Support.SUPPORTED),
        ("When does the Tuesday drop-in open?", "At one.", Support.CONTRADICTED),
    ],
)
def test_a_question_about_the_end_of_a_range_asks_for_its_last_time(
    question: str, answer: str, expected: Support
) -> None:
    context = (
        "The advice line is open around the clock. The drop-in runs 10:00 to 13:00 on Tuesdays."
    )
    assert judged(question, answer, context) is expected


@pytest.mark.parametrize(("answer", "wrong"), [("Dr Lindqvist.", False), ("Mr Okafor.", True)])
def test_a_listing_sentence_gives_each_part_its_own_name(answer: str, wrong: bool) -> None:
    context = "Hearing tests are done by Mr Okafor on Tuesdays and by Dr Lindqvist on Thursdays."
    outcome = judged("Who does the hearing tests on Thursdays?", answer, context)
    assert (outcome is Support.CONTRADICTED) == wrong


def test_the_end_of_a_month_answers_a_question_about_its_date() -> None:
    context = "Late claims need a reason. The deadline for the main scheme was 30 June 2021."
    question = "Was there a cut-off for the main scheme?"
    assert judged(question, "Yes, the end of June 2021.", context) is not Support.CONTRADICTED
    assert judged(question, "Yes, the end of May 2021.", context) is not Support.SUPPORTED


def test_a_weekday_in_the_reply_is_no_name() -> None:
    context = "Salaries are paid on the last working day of each month."
    outcome = judged("When do I get paid this month?", "On Friday the 30th.", context)
    assert outcome is not Support.CONTRADICTED


@pytest.mark.parametrize(
    ("answer", "kept"),
    [("Within a month.", True), ("Within a month of the letter.", True), ("A week.", False)],
)
def test_a_month_said_for_its_days_is_the_passages_value(answer: str, kept: bool) -> None:
    """A month is 28 to 31 days: "within a month" gives "30 days" (for support only)."""
    context = "You have 30 days from the date of the letter to return the signed form."
    found = judged("By when do I have to send the form back?", answer, context)
    assert (found is Support.SUPPORTED) is kept
    assert found is not Support.CONTRADICTED or not kept


@pytest.mark.parametrize(("answer", "wrong"), [("At 4pm.", True), ("At 2.30pm.", False)])
def test_a_range_is_not_the_answer_when_the_sentence_gives_the_day_its_own_time(
    answer: str, wrong: bool
) -> None:
    context = (
        "The benefits office is open 09:00-16:00 Monday to Thursday and closes at 14:30 on Fridays."
    )
    outcome = judged("What time does the benefits office close on Fridays?", answer, context)
    assert (outcome is Support.CONTRADICTED) == wrong


@pytest.mark.parametrize(
    ("answer", "wrong"), [("6 and 20 March.", False), ("7 and 21 March.", True)]
)
def test_days_that_share_a_month_are_each_read_as_a_date(answer: str, wrong: bool) -> None:
    """ "6 and 20 March" is two dates in March: the first day is not read as a bare hour."""
    context = "The immunisation sessions run on Friday 6 March and Friday 20 March, 10am to 2pm."
    report = MetaRAG(LocalJudge()).score_sync(
        "When are the immunisation sessions?", answer, [context]
    )
    assert [f.text for f in report.factoids] == [
        f"The immunisation sessions are on {answer.split()[0]} March.",
        f"The immunisation sessions are on {answer.split()[2]} March.",
    ]
    assert report.flagged == wrong


@pytest.mark.parametrize(("answer", "wrong"), [("At 8am.", False), ("At 9am.", True)])
def test_weekdays_are_the_days_monday_to_friday(answer: str, wrong: bool) -> None:
    """ "On weekdays" is the part of a listing sentence that gives Monday to Friday its own
    hours; the part for Saturdays does not answer it."""
    context = "The clinic is open 08:00 to 18:00 Monday to Friday and 09:00 to 12:00 on Saturdays."
    outcome = judged("When does the clinic open on weekdays?", answer, context)
    assert (outcome is Support.CONTRADICTED) == wrong


def test_a_passages_heading_is_said_of_every_sentence_under_it() -> None:
    """ "Greyfield Foods pay policy:" names the employer for both sentences: the first does
    not answer a question about Sunday hours at Greyfield for holding the heading."""
    context = (
        "Greyfield Foods pay policy: Hours over 40 a week are paid at 1.5 times the normal rate."
        " All Sunday hours are paid at double the normal rate."
    )
    question = "what are sunday hours paid at greyfield"
    assert judged(question, "Twice the normal rate.", context) is Support.SUPPORTED
    assert judged(question, "1.5 times the normal rate.", context) is Support.CONTRADICTED
