"""Map a factoid back to the character span(s) of the answer it came from.

Decomposers do not quote: they resolve pronouns ("He" -> "Einstein"), split conjunctions
("discovered polonium and radium" -> "... discovered radium."), and drop interjections. So
alignment works in two steps:

1. **Exact**: the factoid (without its final punctuation) occurs in the answer, ignoring case
   and runs of white space -> that one span, alignment 1.0.
2. **Word runs**: content words are compared after light normalization (lower case, possessive
   and common suffixes stripped). The answer sentence holding the largest share of the
   factoid's content words is chosen; the spans are the runs of matching words in it, bridging
   gaps of at most three function words or punctuation. ``alignment`` is the share of the
   factoid's content words found there.

A factoid whose best alignment is below ``min_alignment`` is reported ``aligned=False`` with no
spans — never silently dropped.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from guardrail.models import Span

_TOKEN = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*|\S", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
_SUFFIXES = ("ingly", "edly", "ing", "ed", "es", "s", "ly")
_MAX_BRIDGE = 3

STOPWORDS = frozenset(
    (
        "a an the and or but nor so yet of in on at to for from by with without into onto upon "
        "about above below over under between among through during before after since until "
        "than as is are was were be been being am do does did done has have had having can "
        "could may might must shall should will would it its it's this that these those there "
        "here he she they them his her their theirs we us our you your i me my mine who whom "
        "whose which what when where why how also very just only not no yes too then thus "
        "however therefore such own same other each any all both either neither some more most "
        "much many few"
    ).split()
)
# Negations and quantifiers carry meaning: never treat them as droppable function words.
_MEANINGFUL = frozenset({"not", "no", "never", "all", "only", "none", "without", "nor"})


def normalize(word: str) -> str:
    """Lower-case and strip possessives and a common suffix (a deliberately light stemmer)."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    key: str
    word: bool  # alphanumeric token (not punctuation)
    content: bool  # a word that is not a function word


def tokenize(text: str) -> list[Token]:
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        is_word = raw[0].isalnum()
        low = raw.lower()
        content = is_word and (low not in STOPWORDS or low in _MEANINGFUL)
        out.append(Token(raw, m.start(), m.end(), normalize(raw), is_word, content))
    return out


def sentence_spans(text: str) -> list[Span]:
    """Character spans of the sentences of ``text`` (trimmed of surrounding white space)."""
    spans: list[Span] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    out: list[Span] = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


@dataclass(frozen=True)
class Alignment:
    spans: list[Span] = field(default_factory=list)
    score: float = 0.0
    aligned: bool = False


def _exact(factoid: str, answer: str) -> Span | None:
    core = factoid.strip().rstrip(".!?;:").strip()
    if not core:
        return None
    pattern = r"\s+".join(re.escape(part) for part in core.split())
    m = re.search(pattern, answer, flags=re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def _runs(tokens: list[Token], matched: list[bool]) -> list[Span]:
    spans: list[Span] = []
    i = 0
    n = len(tokens)
    while i < n:
        if not matched[i]:
            i += 1
            continue
        start, end = tokens[i].start, tokens[i].end
        j = i + 1
        while j < n:
            if matched[j]:
                end = tokens[j].end
                j += 1
                continue
            k = j
            while k < n and not matched[k] and not tokens[k].content and k - j < _MAX_BRIDGE:
                k += 1
            if k < n and matched[k]:
                j = k
                continue
            break
        spans.append((start, end))
        i = j
    return spans


def align(factoid: str, answer: str, *, min_alignment: float = 0.5) -> Alignment:
    """Locate ``factoid`` in ``answer``; see the module docstring for the rules."""
    exact = _exact(factoid, answer)
    if exact is not None:
        return Alignment([exact], 1.0, True)
    f_tokens = [t for t in tokenize(factoid) if t.word]
    wanted = {t.key for t in f_tokens if t.content} or {t.key for t in f_tokens}
    if not wanted:
        return Alignment()
    best: tuple[float, list[Span]] = (0.0, [])
    # Tokens hold no white space and sentences are cut at white space or after . ! ?, so no
    # token crosses a sentence edge: a sentence's tokens are the answer's that start within it.
    a_tokens = tokenize(answer)
    starts = [t.start for t in a_tokens]
    for s_start, s_end in sentence_spans(answer):
        tokens = a_tokens[bisect_left(starts, s_start) : bisect_left(starts, s_end)]
        matched = [t.word and t.key in wanted for t in tokens]
        found = {t.key for t, m in zip(tokens, matched, strict=True) if m}
        coverage = len(found & wanted) / len(wanted)
        if coverage > best[0]:
            best = (coverage, _runs(tokens, matched))
    coverage, spans = best
    if coverage < min_alignment or not spans:
        return Alignment([], round(coverage, 4), False)
    return Alignment(spans, round(coverage, 4), True)
