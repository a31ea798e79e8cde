"""Sentence spans under the three rule sets, and the one abbreviation list."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guardrail.text.sentences import ABBREVIATIONS, split_sentences

RULES = ("plain", "prose", "passages")


def pieces(text: str, rules: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text, rules=rules)]  # type: ignore[arg-type]


@pytest.mark.parametrize("rules", RULES)
@given(text=st.text(alphabet=st.sampled_from(list("ab .!?\n'A1。\"")), max_size=80))
def test_spans_are_ordered_trimmed_in_bounds_and_keep_every_word(rules, text):
    """Spans never overlap, stay inside the text, carry no outer white space, and cover every
    letter and digit (so nothing is dropped, and an empty result means no words)."""
    spans = split_sentences(text, rules=rules)
    last = 0
    for s, e in spans:
        assert last <= s < e <= len(text)
        assert text[s:e] == text[s:e].strip()
        last = e
    covered = {i for s, e in spans for i in range(s, e)}
    assert all(i in covered for i, ch in enumerate(text) if ch.isalnum())
    if rules == "prose":  # keeps punctuation-only pieces and closing quotes too
        assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_plain_rules_cut_at_every_end_mark():
    text = "One fact. Two facts!  Three? tail"
    assert pieces(text, "plain") == ["One fact.", "Two facts!", "Three?", "tail"]
    assert pieces("Dr. Smith came.", "plain") == ["Dr.", "Smith came."]
    assert pieces("He said 'go.' Then left.", "plain") == ["He said 'go.", "Then left."]


def test_prose_rules_skip_abbreviations_and_initials():
    """Abbreviations and initials do not end a sentence; newlines always do."""
    text = "Dr. Smith met J. Doe in the U.S. on Monday. It rained!\nNext line here"
    assert pieces(text, "prose") == [
        "Dr. Smith met J. Doe in the U.S. on Monday.",
        "It rained!",
        "Next line here",
    ]
    assert pieces("He said no. then left.", "prose") == ["He said no. then left."]


def test_passage_rules_skip_abbreviations_and_split_glued_sentences():
    """Dr./e.g./initials do not end a sentence; "joints.Arthritis" does."""
    text = (
        "Dr. Smith met J. K. Rowling, e.g. in 2001. It rained!  "
        "Arthritis hurts joints.Arthritis is common."
    )
    assert pieces(text, "passages") == [
        "Dr. Smith met J. K. Rowling, e.g. in 2001.",
        "It rained!",
        "Arthritis hurts joints.",
        "Arthritis is common.",
    ]


def test_passage_rules_split_list_items_and_lines():
    """Numbered list items on their own lines become separate sentences."""
    text = "The functions are:\n\n1. To allow airflow.\n2. To ventilate the lungs"
    assert pieces(text, "passages") == [
        "The functions are:",
        "1. To allow airflow.",
        "2. To ventilate the lungs",
    ]


@pytest.mark.parametrize("rules", ["prose", "passages"])
def test_one_abbreviation_list_serves_both_rule_sets(rules):
    """Titles, "et al." and "Ph.D." keep a sentence whole under both rule sets."""
    assert {"lt", "col", "al", "ph.d", "vol", "rep"} <= ABBREVIATIONS
    text = "Lt. Col. Reed and Rep. Diaz cited Smith et al. in the Ph.D. thesis. Vol. 2 followed."
    assert pieces(text, rules) == [
        "Lt. Col. Reed and Rep. Diaz cited Smith et al. in the Ph.D. thesis.",
        "Vol. 2 followed.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Die Einspruchsfrist endet am 30. Juni. Danach wird der Bescheid bestandskräftig.",
            ["Die Einspruchsfrist endet am 30. Juni.", "Danach wird der Bescheid bestandskräftig."],
        ),
        (
            "Bitte bis zum 30.06. einreichen. Später geht es nicht.",
            ["Bitte bis zum 30.06. einreichen.", "Später geht es nicht."],
        ),
        ("The fee is €30. Payment is due now.", ["The fee is €30.", "Payment is due now."]),
    ],
)
def test_a_day_with_its_ordinal_dot_ends_no_passage_sentence(
    text: str, expected: list[str]
) -> None:
    """ "am 30. Juni" and "bis zum 30.06. einreichen" write the day with a dot: no end."""
    assert pieces(text, "passages") == expected
