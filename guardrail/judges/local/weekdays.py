"""Ranges of weekdays: "from Tuesday to Sunday", "Monday to Friday", "dal martedì alla
domenica", "von Montag bis Donnerstag", "du lundi au jeudi", "de lunes a viernes", "van
maandag tot en met woensdag".

Two weekdays a sentence joins with a range word (:data:`RANGE_WORDS`) stand for every day
from the first to the second, wrapping past the week's end ("Friday to Monday"). The conflict
check reads a stated day against them: a day inside a range is the sentence's own (no rival
value), a day outside every range is another value, even when the context names that day
elsewhere ("On Mondays it is closed"). Days joined by "and" are a list, not a range.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from guardrail.judges.local.values import Value

__all__ = ["RANGE_WORDS", "covered", "ranges"]

#: What stands between the two days of a range, per language (lower-cased, spaces squeezed).
RANGE_WORDS = frozenset(
    {
        "to", "till", "until", "through", "thru", "-", "–", "—",  # en
        "bis", "bis zum", "bis einschließlich",  # de
        "au", "à", "jusqu'au", "jusqu’au",  # fr
        "a", "al", "hasta", "hasta el",  # es
        "alla", "fino a", "fino al", "fino alla",  # it
        "tot", "tot en met", "t/m",  # nl
        "até", "até à", "ao",  # pt
    }
)  # fmt: skip
#: Days in a week (weekday values are numbered 0 = Monday to 6 = Sunday).
_WEEK = 7

Span = tuple[int, int]


def ranges(values: Sequence[Value], text: str) -> list[Span]:
    """The (first day, last day) of each weekday range in ``text``, whose values are
    ``values`` (as :func:`~guardrail.judges.local.values.extract` reads them)."""
    days = sorted((v for v in values if v.kind == "weekday" and v.amount is not None), key=_at)
    out: list[Span] = []
    for a, b in pairwise(days):
        between = " ".join(text[a.end : b.start].lower().split())
        if between in RANGE_WORDS:
            out.append((int(a.amount or 0), int(b.amount or 0)))
    return out


def covered(day: int, spans: Sequence[Span]) -> bool:
    """Whether ``day`` falls inside one of ``spans`` (a span may wrap past Sunday)."""
    return any((day - first) % _WEEK <= (last - first) % _WEEK for first, last in spans)


def _at(value: Value) -> int:
    return value.start
