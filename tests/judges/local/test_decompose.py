"""Rule-based decomposition: atomic factoids in the answer's own words."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guardrail.judges.local import LocalJudge
from guardrail.scoring.parsing import parse_statements

_SHARED = LocalJudge(verifier="rules")  # one lexicon load for all hypothesis examples


def factoids(judge: LocalJudge, text: str) -> list[str]:
    reply = judge.answer("decompose", {"text": text, "question": "q"})
    items, failure = parse_statements(reply)
    assert failure is None and json.loads(reply) == items
    return items


def test_paper_example_splits_shared_subject_and_clauses(judge):
    """The MetaRAG prompt's example gives the prompt's expected three factoids."""
    text = (
        "Marie Curie discovered polonium and radium, and Albert Einstein developed the "
        "theory of relativity in 1905."
    )
    assert factoids(judge, text) == [
        "Marie Curie discovered polonium.",
        "Marie Curie discovered radium.",
        "Albert Einstein developed the theory of relativity in 1905.",
    ]


def test_interjections_and_pleasantries_are_dropped(judge):
    """ "Yes," is stripped; greetings, questions and sign-offs yield no factoid."""
    text = (
        "Hello! Yes, ibuprofen is safe throughout pregnancy. Do you need more? "
        "I hope this helps! Let me know if you have other questions."
    )
    assert factoids(judge, text) == ["Ibuprofen is safe throughout pregnancy."]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Ibuprofen is safe and effective.",
            ["Ibuprofen is safe.", "Ibuprofen is effective."],
        ),
        (
            "The drug increases blood pressure and reduces heart rate.",
            ["The drug increases blood pressure.", "The drug reduces heart rate."],
        ),
        (
            "Curie was born in Warsaw and moved to Paris in 1891.",
            ["Curie was born in Warsaw.", "Curie moved to Paris in 1891."],
        ),
        (
            "The museum includes paintings, sculptures, and manuscripts.",
            [
                "The museum includes paintings.",
                "The museum includes sculptures.",
                "The museum includes manuscripts.",
            ],
        ),
        (
            "The treaty was signed in 1648 but it was not ratified until 1650.",
            ["The treaty was signed in 1648.", "It was not ratified until 1650."],
        ),
        (
            "Paris is the capital; it has 2 million inhabitants.",
            ["Paris is the capital.", "It has 2 million inhabitants."],
        ),
        (
            "Visitors can come in from 2 to 4 and 6 to 8.",
            ["Visitors can come in from 2 to 4.", "Visitors can come in from 6 to 8."],
        ),
    ],
)
def test_coordinated_clauses_become_separate_factoids(judge, text, expected):
    """Clauses with their own verb, or a carried-over subject, are split."""
    assert factoids(judge, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The area between the shoulder and elbow is the humerus.",
        "Procter and Gamble sells soap.",
        "Tom and Jerry are friends.",
    ],
)
def test_word_level_coordination_is_not_split(judge, text):
    """ "between X and Y", names and coordinated subjects stay one factoid."""
    assert factoids(judge, text) == [text]


def test_lead_in_before_colon_and_list_items(judge):
    """A "Here's what I found:" lead-in is dropped, list bullets stripped, headers skipped."""
    text = (
        "Sure! Here's what I found: The Eiffel Tower is in Paris.\n"
        "Based on the given passages, the functions of air sacs are:\n"
        "1. To allow a unidirectional flow of air.\n"
        "2. To ventilate the lungs."
    )
    assert factoids(judge, text) == [
        "The Eiffel Tower is in Paris.",
        "To allow a unidirectional flow of air.",
        "To ventilate the lungs.",
    ]


@pytest.mark.parametrize("text", ["", "   \n ", "Yes.", "No!", "Thank you!", "Is it safe?", "?!"])
def test_no_factual_content_gives_an_empty_array(judge, text):
    """Empty, interjection-only or question-only answers decompose to []."""
    assert judge.answer("decompose", {"text": text}) == "[]"


def test_unicode_and_duplicates(judge):
    """Non-Latin text survives as its own sentence; repeated sentences appear once."""
    text = "東京は日本の首都です。 Café crème costs €3. Café crème costs €3."
    assert factoids(judge, text) == ["東京は日本の首都です。", "Café crème costs €3."]


def test_very_long_answer_is_bounded(judge):
    """A 2,000-sentence answer is decomposed without error and capped at 200 factoids."""
    text = " ".join(f"Fact number {i} concerns item {i}." for i in range(2000))
    got = factoids(judge, text)
    assert len(got) == 200 and got[0] == "Fact number 0 concerns item 0."


def test_factoids_stay_close_to_answer_words(judge):
    """Every factoid's words (bar a carried subject) come from the answer."""
    text = (
        "Arthritis is a joint disorder characterized by inflammation. It occurs in the "
        "joints, and is frequently accompanied by joint pain."
    )
    got = factoids(judge, text)
    assert got == [
        "Arthritis is a joint disorder characterized by inflammation.",
        "It occurs in the joints.",
        "It is frequently accompanied by joint pain.",
    ]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_decompose_never_raises_and_always_returns_a_json_array(text):
    """Arbitrary text gives a JSON array of non-empty strings."""
    reply = _SHARED.answer("decompose", {"text": text})
    items = json.loads(reply)
    assert isinstance(items, list) and all(isinstance(i, str) and i.strip() for i in items)


@pytest.mark.parametrize(
    "text",
    [
        "You have to go and report on Tuesdays between 9 and 11 in the morning.",
        "You can come and collect the letter after 2pm.",
        "Please try and arrive ten minutes early.",
    ],
)
def test_go_and_do_is_one_action(judge, text):
    """ "go and report", "come and collect", "try and arrive" name one action: split, the
    first half ("You have to go.") would be a claim nobody made."""
    assert factoids(judge, text) == [text]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Raw fish is best avoided – sushi with cooked fish or vegetables is fine, though.",
            ["Raw fish is best avoided.", "Sushi with cooked fish or vegetables is fine, though."],
        ),
        (
            "Online transfers cost 2 euros — only the paper form at the counter is free.",
            ["Online transfers cost 2 euros.", "Only the paper form at the counter is free."],
        ),
    ],
)
def test_a_dash_between_two_clauses_separates_them(judge, text, expected):
    """One spaced dash between two clauses joins two claims, each checked on its own."""
    assert factoids(judge, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Ibuprofen — like other anti-inflammatory painkillers — should be avoided in pregnancy.",
        "Take 8 - 10 drops a day.",
        "The clinic is open Monday – Friday.",
    ],
)
def test_a_dash_inside_a_clause_does_not_split_it(judge, text):
    """Two dashes around an aside, a range of numbers, a range of days: one claim."""
    assert factoids(judge, text) == [text]


def test_a_label_and_its_value_are_not_cut_at_their_dash(judge):
    """ "Xbox One (while standing) — LT (hold) + RB (tap)." names a label and its value."""
    text = "Xbox One (while standing) — LT (hold) + RB (tap)."
    assert factoids(judge, text) == [text]
