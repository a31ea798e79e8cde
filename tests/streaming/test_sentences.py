"""The streaming sentence splitter: exact slices, cut where a reader expects, whatever the
chunking."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guardrail.exceptions import ConfigError
from guardrail.policy import parse_policy
from guardrail.streaming.sentences import SentenceSplitter


def split(chunks: list[str]) -> list[str]:
    splitter = SentenceSplitter()
    out = [s for c in chunks for s in splitter.feed(c)]
    rest = splitter.flush()
    return out + ([rest] if rest else [])


@given(st.text(alphabet="ab .!?\n3D", max_size=80), st.lists(st.integers(0, 80), max_size=8))
def test_sentences_concatenate_to_the_input_for_any_chunking(text: str, cuts: list[int]):
    """However the text is chunked, the released pieces add up to exactly the text."""
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    chunks = [text[a:b] for a, b in itertools.pairwise(points)]
    assert "".join(split(chunks)) == text


def test_a_sentence_ends_at_its_end_mark_without_waiting_for_the_next_token():
    """'France.' completes the sentence at once; the following space starts the next one."""
    splitter = SentenceSplitter()
    assert splitter.feed("Paris is the capital of France.") == ["Paris is the capital of France."]
    assert splitter.feed(" It is") == []


def test_numbers_initials_and_abbreviations_do_not_end_a_sentence():
    """'2.1', 'Dr. Smith' and 'e.g. in' stay inside their sentence."""
    chunks = ["It has 2", ".1 million people. Dr", ". Smith said so, e.g", ". in 2023. The end."]
    assert split(chunks) == [
        "It has 2.1 million people. ",
        "Dr. Smith said so, e.g. in 2023. ",
        "The end.",
    ]


def test_newlines_end_sentences():
    """A list item on its own line is its own sentence."""
    assert split(["- one\n- two\n", "- three"]) == ["- one\n", "- two\n", "- three"]


def test_stream_setting_is_validated():
    """stream accepts hold, release or buffer only."""
    yaml = "name: p\ntopics:\n  - {name: general, threshold: 0.5, stream: %s}\n"
    assert parse_policy(yaml % "hold").topic("general").stream_mode == "hold"
    with pytest.raises(ConfigError, match="stream"):
        parse_policy(yaml % "trickle")
