"""Tokens, sentences and word normalization for the offline judge.

Everything keeps character offsets into the original text, because the scorer aligns factoids
back to answer spans and the verifier quotes evidence sentences verbatim. No dependencies, no
models: regular expressions and a deliberately light stemmer (both sides of every comparison go
through the same stemmer, so it only has to be consistent, not linguistically right).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Words, numbers (with thousands separators, decimals, a trailing %) and contractions.
_TOKEN = re.compile(
    r"\d+(?:[.,]\d+)*%?"
    r"|[^\W\d_]+(?:[-'’][^\W\d_]+)*"
    r"|[^\w\s]",
    re.UNICODE,
)
_SENT_END = re.compile(r"[.!?。！？]+[\"'”’)\]]*(?=\s|$)|\n\s*\n|\n(?=\s*(?:[-*•]|\d{1,3}[.)])\s)")
_GLUED_END = re.compile(r"(?<=[a-z\)])[.!?](?=[A-Z][a-z])")
_NEWLINE = re.compile(r"\n")
_LIST_NUMBER = re.compile(r"[ \t]*\(?\d{1,3}")
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "eg",
        "ie",
        "inc",
        "ltd",
        "co",
        "corp",
        "no",
        "fig",
        "approx",
        "dept",
        "est",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "mt",
        "ft",
        "lt",
        "col",
        "gen",
        "gov",
        "sen",
        "rep",
        "u.s",
        "u.k",
        "a.m",
        "p.m",
        "ca",
        "cf",
        "al",
    ]
)
_PASSAGE_LABEL = re.compile(r"^\s*(?:passage|document|doc|source|context)\s*\d*\s*[:.]\s*", re.I)


@dataclass(frozen=True)
class Token:
    """A token with its offsets into the text it came from."""

    text: str
    start: int
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower().replace("’", "'")

    @property
    def is_word(self) -> bool:
        return self.text[:1].isalpha()

    @property
    def is_number(self) -> bool:
        return self.text[:1].isdigit()

    @property
    def is_capitalized(self) -> bool:
        return self.text[:1].isupper()


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into words, numbers and punctuation marks, with offsets."""
    return [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def words(text: str) -> list[str]:
    """Lower-cased word and number tokens (punctuation dropped)."""
    return [t.lower for t in tokenize(text) if t.is_word or t.is_number]


def _ends_with_abbreviation(text: str, dot: int) -> bool:
    """True when the '.' at ``dot`` closes an abbreviation or an initial, not a sentence."""
    if dot >= len(text) or text[dot] != ".":
        return False
    m = re.search(r"([A-Za-z][A-Za-z.]*)$", text[max(0, dot - 24) : dot])
    if not m:
        return False
    word = m.group(1).lower().rstrip(".")
    if word in _ABBREVIATIONS:
        return True
    # a single capital letter ("J. K. Rowling"), not a lone pronoun "I"
    return len(m.group(1)) == 1 and m.group(1).isupper() and m.group(1) != "I"


def _is_list_number(text: str, dot: int) -> bool:
    """True for the "." of a numbered list item ("\n2. To ventilate ...")."""
    line_start = text.rfind("\n", max(0, dot - 8), dot) + 1
    if line_start == 0 and dot > 8:
        return False
    return _LIST_NUMBER.fullmatch(text, line_start, dot) is not None


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` into ``text``, whitespace trimmed, never empty.

    Splits after ``.!?`` followed by space, at blank lines, before list items on new lines, and
    at run-together sentences ("joints.Arthritis") common in scraped passages.
    """
    if not text:
        return []
    cuts: set[int] = set()
    for m in _SENT_END.finditer(text):
        if m.group(0).startswith(".") and (
            _ends_with_abbreviation(text, m.start()) or _is_list_number(text, m.start())
        ):
            continue
        cuts.add(m.end())
    for m in _GLUED_END.finditer(text):
        if not _ends_with_abbreviation(text, m.start()):
            cuts.add(m.end())
    spans: list[tuple[int, int]] = []
    start = 0
    for cut in [*sorted(cuts), len(text)]:
        _add_trimmed(text, start, cut, spans)
        start = cut
    # single newlines inside a chunk still separate lines (headings, list items)
    out: list[tuple[int, int]] = []
    for s, e in spans:
        if "\n" not in text[s:e]:
            out.append((s, e))
            continue
        pos = s
        for m in _NEWLINE.finditer(text, s, e):
            _add_trimmed(text, pos, m.start(), out)
            pos = m.end()
        _add_trimmed(text, pos, e, out)
    return out


def _add_trimmed(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    chunk = text[start:end]
    stripped = chunk.strip()
    if not stripped or not any(c.isalnum() for c in stripped):
        return
    lead = len(chunk) - len(chunk.lstrip())
    s = start + lead
    out.append((s, s + len(stripped)))


_CITATION = re.compile(
    r"\s*(?:\((?:see\s+)?(?:passages?|sources?|documents?|refs?\.?)\s*[\d\s,&and-]*\)"
    r"|\[\d+(?:\s*[,-]\s*\d+)*\]"
    r"|,?\s+(?:as\s+(?:described|stated|mentioned|noted)\s+)?(?:in|according\s+to)\s+"
    r"(?:passages?|sources?|documents?)\s+\d+(?:\s*(?:,|and|&)\s*\d+)*)",
    re.IGNORECASE,
)


def strip_citations(text: str) -> str:
    """Drop "(Passage 2)", "[3]", "as described in passage 1" — pointers, not claims."""
    return _CITATION.sub("", text)


def strip_passage_label(sentence: str) -> str:
    """Drop a leading "passage 2:" label (RAG contexts often carry them)."""
    return _PASSAGE_LABEL.sub("", sentence, count=1)


_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ational", "ate"),
    ("ization", "ize"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("nesses", ""),
    ("ness", ""),
    ("ments", "ment"),
    ("ingly", ""),
    ("edly", ""),
    ("ings", ""),
    ("sses", "ss"),
    ("ies", "y"),
    ("ied", "y"),
    ("ying", "y"),
    ("ing", ""),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
    ("ly", ""),
)


def stem(word: str) -> str:
    """A light, consistent stem: "discovered"/"discovers" -> "discover", "safe" -> "saf"."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith(("ss", "us", "is")) and not w.endswith(("sses",)):
        return w
    for suffix, repl in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + repl
            break
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1].isalpha():
        w = w[:-1]
    return w


def parse_number(token: str) -> float | None:
    """The numeric value of a digit token ("1,000" -> 1000, "3.5%" -> 3.5), else None."""
    raw = token.rstrip("%")
    if not raw or not raw[0].isdigit():
        return None
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw):
        raw = raw.replace(",", "")
    elif "," in raw:
        raw = raw.replace(",", ".", 1) if raw.count(",") == 1 and "." not in raw else raw
    try:
        return float(raw)
    except ValueError:
        return None


def capitalize_first(text: str) -> str:
    """Upper-case the first letter, leave the rest alone."""
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1 :]
        if not ch.isspace() and ch not in "\"'“‘(":
            return text
    return text


def ensure_period(text: str) -> str:
    """End a sentence with terminal punctuation."""
    text = text.rstrip()
    text = text.rstrip(",;:—–-").rstrip()
    if text and text[-1] not in ".!?\"'”’)。！？":
        text += "."
    return text
