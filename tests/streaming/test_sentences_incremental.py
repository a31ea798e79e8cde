"""The incremental splitter releases exactly what a splitter that rescans everything it has
received would release, chunk for chunk: scanning each chunk once changes the cost, not the
cuts."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from guardrail.streaming.sentences import _END, SentenceSplitter, _before_period


class RescanningSplitter:
    """The straightforward reference: rescan the whole pending text on every chunk."""

    def __init__(self) -> None:
        self.buffer = ""

    def feed(self, chunk: str) -> list[str]:
        text = self.buffer + chunk
        out: list[str] = []
        start = 0
        for m in _END.finditer(text):
            kind = None if m.group(0)[0] == "\n" else _before_period(text, m.start())
            if kind is not None:
                following = text[m.end() : m.end() + 1]
                if not following:
                    break
                if kind == "abbreviation" or following.islower():
                    continue
            out.append(text[start : m.end()])
            start = m.end()
        self.buffer = text[start:]
        return out


_PIECES = [
    *("a", "B", "x", "3", "12", " ", "  ", "\n", ".", "!", "?", '"', ")"),
    *("Dr", "e.g", "J", "ok", "xdr", "etc", "abcdefghijklmnopqrstuvwxyz"),
]


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=40),
    st.lists(st.integers(0, 120), max_size=12),
)
def test_same_sentences_as_rescanning_for_any_chunking(pieces: list[str], cuts: list[int]) -> None:
    """Every feed returns the same sentences as the rescanning reference, and the same rest."""
    text = "".join(pieces)
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    new, old = SentenceSplitter(), RescanningSplitter()
    for a, b in itertools.pairwise(points):
        assert new.feed(text[a:b]) == old.feed(text[a:b])
        assert new.pending == old.buffer
    assert new.flush() == old.buffer


def test_a_waiting_end_is_decided_by_the_first_character_that_can_decide_it() -> None:
    """'3.' waits; more dots and a space keep it waiting; a capital releases it."""
    splitter = SentenceSplitter()
    assert splitter.feed("It costs 3.") == []
    assert splitter.feed("..") == []
    assert splitter.feed(" ") == []
    assert splitter.feed("Next") == ["It costs 3... "]
    assert splitter.flush() == "Next"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_same_sentences_as_rescanning_one_character_at_a_time(pieces: list[str]) -> None:
    """Fed a character at a time (every rule then reads across a chunk boundary), the
    incremental splitter still matches the rescanning reference."""
    new, old = SentenceSplitter(), RescanningSplitter()
    for char in "".join(pieces):
        assert new.feed(char) == old.feed(char)
    assert new.flush() == old.buffer
