"""Highlight: flagged spans as structured offsets (in the report) and as a text rendering."""

from __future__ import annotations

from collections.abc import Iterable

from guardrail.models import Span, merge_spans


def marked_pieces(text: str, spans: Iterable[Span]) -> list[tuple[Span, bool]]:
    """Cut ``text`` into ``((start, end), marked)`` pieces that cover it in order.

    The spans are merged (overlapping or touching ones become one) and clamped to the text;
    empty pieces are left out. Every rendering of flagged spans (``[[ ]]`` markers, terminal
    colours) is built on this, so they all mark the same characters.
    """
    out: list[tuple[Span, bool]] = []
    cursor = 0
    for start, end in merge_spans(list(spans)):
        start, end = max(start, cursor), min(end, len(text))
        if start >= end:
            continue
        if cursor < start:
            out.append(((cursor, start), False))
        out.append(((start, end), True))
        cursor = end
    if cursor < len(text):
        out.append(((cursor, len(text)), False))
    return out


def mark_spans(
    text: str, spans: list[Span], *, open_mark: str = "[[", close_mark: str = "]]"
) -> str:
    """Return ``text`` with each span wrapped in markers, e.g. ``"is [[safe throughout]]"``."""
    return "".join(
        f"{open_mark}{text[s:e]}{close_mark}" if marked else text[s:e]
        for (s, e), marked in marked_pieces(text, spans)
    )
