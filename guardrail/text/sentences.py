"""Sentence spans, under three named rule sets, and the one abbreviation list.

``split_sentences(text, rules=...)`` returns ``(start, end)`` character spans, white space
trimmed, never empty. The rule sets differ because their readers do; each is used where the
packaged models and the published figures were made with it:

``"plain"``
    A sentence ends at ``.``, ``!`` or ``?`` (plus closing quotes or brackets) followed by
    white space, or at a newline. No abbreviation handling; closing quotes after the end
    mark fall between sentences. Answer sentences for span alignment, citations, the word
    localizer's features and the review page.
``"prose"``
    As ``plain``, but a period after an :data:`ABBREVIATIONS` entry or a single letter does not
    end a sentence, nor does a boundary followed by a lower-case letter. RT4CHART's claims and
    context chunks.
``"passages"``
    For scraped RAG passages: also cuts at blank lines, before list items on new lines, at
    run-together sentences ("joints.Arthritis"), after CJK full stops, and at single newlines;
    a period after an abbreviation, a capital initial or a list number does not end a sentence;
    pieces without a letter or digit are dropped. The offline judge.

All three are linear in the text's length: a run of end marks is matched from its first mark
only (a lookbehind and possessive quantifiers), and the abbreviation rules read a fixed number
of characters before a period, never the whole sentence so far.
"""

from __future__ import annotations

import re
from typing import Literal

from guardrail.models import Span

SentenceRules = Literal["plain", "prose", "passages"]

#: Words whose trailing period does not end a sentence (compared lower-case, without the dot).
ABBREVIATIONS = frozenset(
    (
        "mr mrs ms dr prof sr jr st vs etc e.g i.e eg ie u.s u.k inc ltd co corp no nos fig "
        "approx dept est gen gov sen rep col lt jan feb mar apr jun jul aug sep sept oct nov dec "
        "mt ft vol p pp ph.d a.m p.m ca cf al"
    ).split()
)

_PLAIN_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
_PROSE_END = re.compile(r"(?<![.!?])[.!?]++[\"'”’)\]]*+(?=\s)|\n+")
_PASSAGE_END = re.compile(
    r"(?<![.!?。！？])[.!?。！？]++[\"'”’)\]]*+(?=\s|$)|\n\s*\n|\n(?=\s*(?:[-*•]|\d{1,3}[.)])\s)"
)
_NON_SPACE = re.compile(r"\S")
_WORD_AND_DOT = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
#: How far before a period the abbreviation rules read (longer words are no abbreviation).
_LOOKBACK = 24
_GLUED_END = re.compile(r"(?<=[a-z\)])[.!?](?=[A-Z][a-z])")
_NEWLINE = re.compile(r"\n")
_LIST_NUMBER = re.compile(r"[ \t]*\(?\d{1,3}")
_WORD_BEFORE_DOT = re.compile(r"([A-Za-z][A-Za-z.]*)$")


def split_sentences(text: str, *, rules: SentenceRules) -> list[Span]:
    """Sentence spans of ``text`` under ``rules`` (see the module docstring)."""
    if rules == "plain":
        return _plain(text)
    if rules == "prose":
        return _prose(text)
    return _passages(text)


def _trim(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def _cut(text: str, cuts: list[int], start: int = 0, end: int | None = None) -> list[Span]:
    """The trimmed, non-empty pieces of ``text[start:end]`` between sorted cut positions."""
    out: list[Span] = []
    for cut in [*cuts, len(text) if end is None else end]:
        span = _trim(text, start, cut)
        if span is not None:
            out.append(span)
        start = cut
    return out


def _plain(text: str) -> list[Span]:
    spans: list[Span] = []
    start = 0
    for m in _PLAIN_END.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [s for s in (_trim(text, a, b) for a, b in spans) if s is not None]


def _prose(text: str) -> list[Span]:
    cuts: list[int] = []
    start = 0
    for m in _PROSE_END.finditer(text):
        end = m.end()
        if m.group(0)[0] != "\n":
            after = _NON_SPACE.search(text, end)
            if after is not None and after.group().islower():
                continue
            window = text[max(start, m.start() - _LOOKBACK) : m.start() + 1]
            before = _WORD_AND_DOT.search(window)
            if before and m.group(0).startswith(".") and len(m.group(0).rstrip("\"'”’)]")) == 1:
                word = before.group(1).lower()
                if word in ABBREVIATIONS or len(word) == 1:
                    continue
        cuts.append(end)
        start = end
    return _cut(text, cuts)


def _after_abbreviation(text: str, dot: int) -> bool:
    """True when the '.' at ``dot`` closes an abbreviation or a capital initial."""
    if dot >= len(text) or text[dot] != ".":
        return False
    m = _WORD_BEFORE_DOT.search(text[max(0, dot - _LOOKBACK) : dot])
    if not m:
        return False
    if m.group(1).lower().rstrip(".") in ABBREVIATIONS:
        return True
    # a single capital letter ("J. K. Rowling"), not a lone pronoun "I"
    return len(m.group(1)) == 1 and m.group(1).isupper() and m.group(1) != "I"


def _after_list_number(text: str, dot: int) -> bool:
    """True for the "." of a numbered list item ("\\n2. To ventilate ...")."""
    line_start = text.rfind("\n", max(0, dot - 8), dot) + 1
    if line_start == 0 and dot > 8:
        return False
    return _LIST_NUMBER.fullmatch(text, line_start, dot) is not None


#: A day written with its ordinal dot ("am 30." Juni, "bis zum 30.06." einreichen).
_DAY_BEFORE_DOT = re.compile(r"(?<![\d.,])\d{1,2}(?:\.\d{1,2})?$")
#: Month names that follow a day with its ordinal dot (German; Danish and Norwegian share
#: most of them).
_DOTTED_MONTHS = frozenset(
    "januar jänner februar märz april mai juni juli august september oktober november "
    "dezember marts maj desember december".split()
)

#: The word after a dot and the white space that follows it.
_NEXT_WORD = re.compile(r"\s+(\w+)")


def _after_day(text: str, dot: int) -> bool:
    """True for the ordinal dot of a day: before a month's name ("30. Juni") or a word in
    lower case ("bis zum 30.06. einreichen")."""
    if not _DAY_BEFORE_DOT.search(text, max(0, dot - 6), dot):
        return False
    after = _NEXT_WORD.match(text, dot + 1)
    if after is None:
        return False
    word = after.group(1)
    return word[0].islower() or word.lower() in _DOTTED_MONTHS


def _has_alnum(text: str, span: Span) -> bool:
    return any(c.isalnum() for c in text[span[0] : span[1]])


def _passages(text: str) -> list[Span]:
    if not text:
        return []
    cuts: set[int] = set()
    for m in _PASSAGE_END.finditer(text):
        if m.group(0).startswith(".") and (
            _after_abbreviation(text, m.start())
            or _after_list_number(text, m.start())
            or _after_day(text, m.start())
        ):
            continue
        cuts.add(m.end())
    for m in _GLUED_END.finditer(text):
        if not _after_abbreviation(text, m.start()):
            cuts.add(m.end())
    out: list[Span] = []
    for s, e in _cut(text, sorted(cuts)):
        # single newlines inside a piece still separate lines (headings, list items)
        lines = [m.start() for m in _NEWLINE.finditer(text, s, e)]
        out.extend(p for p in _cut(text, lines, s, e) if _has_alnum(text, p))
    return out
