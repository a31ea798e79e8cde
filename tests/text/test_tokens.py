"""Tokens: offsets that slice their text back out, in both modes; keys, content, numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guardrail.text.tokens import content_keys, parse_number, tokenize, words

MODES = ("align", "lexical")


@pytest.mark.parametrize("mode", MODES)
@given(text=st.text(max_size=200))
def test_offsets_slice_the_token_back_out(mode, text):
    """For any text, tokens are in order, disjoint, hold no white space and match their slice."""
    last = 0
    for tok in tokenize(text, mode):  # type: ignore[arg-type]
        assert text[tok.start : tok.end] == tok.text and tok.text
        assert last <= tok.start and not any(c.isspace() for c in tok.text)
        last = tok.end


@given(text=st.text(max_size=200))
def test_align_mode_covers_every_visible_character(text):
    """Span alignment relies on it: every non-space character is inside some token."""
    covered = {i for t in tokenize(text, "align") for i in range(t.start, t.end)}
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_the_two_modes_cut_numbers_and_words_differently():
    text = "isn't 1,000 3.5% COVID-19 snake_case"
    assert [t.text for t in tokenize(text, "lexical")] == [
        "isn't", "1,000", "3.5%", "COVID", "-", "19", "snake", "case",
    ]  # fmt: skip
    assert [t.text for t in tokenize(text, "align")] == [
        "isn't", "1", ",", "000", "3", ".", "5", "%", "COVID-19", "snake", "_", "case",
    ]  # fmt: skip


def test_keys_and_content_words():
    """Keys are light stems; function words are not content, negations and quantifiers are."""
    toks = {t.text: t for t in tokenize("The doctors discovered it was not safe for all.", "align")}
    assert toks["doctors"].key == "doctor" and toks["discovered"].key == "discover"
    assert not toks["The"].content and not toks["it"].content and not toks["."].content
    assert toks["not"].content and toks["all"].content and toks["safe"].content
    assert content_keys("The doctors were not sure.") == {"doctor", "not", "sure"}


def test_lexical_words_and_token_kinds():
    assert words("Ibuprofen isn’t safe: 1,000 mg!") == ["ibuprofen", "isn't", "safe", "1,000", "mg"]
    one, thousand = tokenize("Paris 1,000", "lexical")
    assert one.is_word and one.is_capitalized and not one.is_number
    assert thousand.is_number and thousand.is_alnum and not thousand.is_word


def test_parse_number_handles_separators_and_percent():
    """Thousands separators and percent signs do not change the value."""
    assert parse_number("1,000") == 1000.0
    assert parse_number("3.5%") == 3.5
    assert parse_number("1867") == 1867.0
    assert parse_number("abc") is None
