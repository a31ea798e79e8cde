"""Highlight: flagged spans as structured offsets (in the report) and as a text rendering."""

from __future__ import annotations

from guardrail.models import Span, merge_spans


def mark_spans(
    text: str, spans: list[Span], *, open_mark: str = "[[", close_mark: str = "]]"
) -> str:
    """Return ``text`` with each span wrapped in markers, e.g. ``"is [[safe throughout]]"``."""
    out: list[str] = []
    cursor = 0
    for start, end in merge_spans(spans):
        start, end = max(start, cursor), min(end, len(text))
        if start >= end:
            continue
        out += [text[cursor:start], open_mark, text[start:end], close_mark]
        cursor = end
    out.append(text[cursor:])
    return "".join(out)
