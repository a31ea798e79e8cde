"""Flagged-span marking: one cut (marked_pieces) behind the [[ ]] text and the terminal view."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from guardrail.actions.highlight import mark_spans, marked_pieces
from guardrail.models import Factoid, ScoreReport
from guardrail.render import highlighted_text


def test_pieces_merge_clamp_and_cover_the_text():
    """Touching and overlapping spans merge; spans past either end are clamped; empty drop."""
    text = "abcdefghij"
    pieces = marked_pieces(text, [(2, 4), (4, 6), (5, 7), (-3, 1), (9, 40), (3, 3)])
    assert pieces == [((0, 1), True), ((1, 2), False), ((2, 7), True), ((7, 9), False),
                      ((9, 10), True)]  # fmt: skip
    assert mark_spans(text, [(2, 4), (4, 6)]) == "ab[[cdef]]ghij"


@given(
    st.text(max_size=30),
    st.lists(st.tuples(st.integers(-5, 40), st.integers(-5, 40)), max_size=5),
)
def test_pieces_reassemble_and_agree_with_mark_spans(text, spans):
    """The pieces concatenate to the text, and mark_spans wraps exactly the marked ones."""
    pieces = marked_pieces(text, spans)
    assert "".join(text[s:e] for (s, e), _ in pieces) == text
    marked = "".join(f"<{text[s:e]}>" if m else text[s:e] for (s, e), m in pieces)
    assert mark_spans(text, spans, open_mark="<", close_mark=">") == marked


def test_highlighted_text_matches_the_highlight_action():
    """The terminal rendering shows the same [[ ]] text as the guard's highlight action."""
    answer = "Ibuprofen is safe throughout pregnancy."
    f = Factoid(index=0, text="safe", spans=[(13, 38)], aligned=True, alignment=1.0, score=0.9,
                flagged=True)  # fmt: skip
    report = ScoreReport(score=0.9, threshold=0.5, flagged=True, factoids=[f],
                         flagged_spans=[(13, 38)])  # fmt: skip
    text = highlighted_text(answer, report)
    assert text.plain == mark_spans(answer, report.flagged_spans)
    assert text.plain == "Ibuprofen is [[safe throughout pregnancy]]."
    assert [str(s.style) for s in text.spans] == ["bold red underline"]
    assert highlighted_text(answer, None).plain == answer
