"""Turn a case's score report into what the review page draws: coloured answer segments,
factoid cards with verdicts, and passages with each factoid's evidence sentence marked.

Pure functions over the models — no web framework here — so the logic is unit-tested and the
templates stay dumb. Text is returned raw; Jinja's autoescaping makes it safe in HTML.

Colour scale: a factoid score in [0, 1] maps to one of ``BUCKETS`` CSS classes ``s0``..``s9``
(green = supported, red = likely hallucinated). Classes instead of inline styles keep the page
under a strict Content-Security-Policy (``style-src 'self'``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from guardrail.models import Factoid, ScoreReport, Span
from guardrail.text.sentences import split_sentences
from guardrail.text.tokens import STOPWORDS

__all__ = [
    "BUCKETS",
    "AnswerSegment",
    "EvidenceMark",
    "FactoidView",
    "PassageView",
    "ResolvedView",
    "SentenceView",
    "answer_segments",
    "factoid_views",
    "passage_views",
    "resolved_views",
    "score_bucket",
]

BUCKETS = 10
_WORD = re.compile(r"[\w']+", re.UNICODE)


def score_bucket(score: float) -> int:
    """The colour bucket 0..BUCKETS-1 for a score (clamped to [0, 1])."""
    s = min(1.0, max(0.0, score))
    return min(BUCKETS - 1, int(s * BUCKETS))


@dataclass(frozen=True)
class AnswerSegment:
    """A run of answer text covered by the same set of factoids."""

    text: str
    start: int
    end: int
    factoids: tuple[int, ...] = ()
    score: float | None = None
    flagged: bool = False
    ends: tuple[int, ...] = ()  # factoids whose span ends here (where the label goes)

    @property
    def bucket(self) -> int | None:
        return None if self.score is None else score_bucket(self.score)


def answer_segments(answer: str, report: ScoreReport | None) -> list[AnswerSegment]:
    """Cut the answer at every factoid-span boundary; each piece carries the highest score of
    the factoids covering it and whether it lies in a flagged span."""
    if report is None or not report.factoids:
        return [AnswerSegment(answer, 0, len(answer))] if answer else []
    n = len(answer)
    spans: list[tuple[Span, Factoid]] = [
        ((max(0, s), min(n, e)), f) for f in report.factoids for s, e in f.spans if s < e
    ]
    cuts = {0, n}
    for (s, e), _ in spans:
        cuts.update((s, e))
    for s, e in report.flagged_spans:
        cuts.update((max(0, min(n, s)), max(0, min(n, e))))
    points = sorted(cuts)
    out: list[AnswerSegment] = []
    for start, end in itertools.pairwise(points):
        if start >= end:
            continue
        covering = [f for (s, e), f in spans if s <= start and end <= e]
        idx = tuple(sorted({f.index for f in covering}))
        score = max((f.score for f in covering), default=None)
        flagged = any(s <= start and end <= e for s, e in report.flagged_spans)
        ends = tuple(sorted({f.index for (s, e), f in spans if e == end and s < end}))
        out.append(AnswerSegment(answer[start:end], start, end, idx, score, flagged, ends))
    return out


def _words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in _WORD.findall(text)) if w not in STOPWORDS}


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass(frozen=True)
class EvidenceMark:
    """Factoid ``factoid`` points at this sentence: cited by the scorer, or best word overlap."""

    factoid: int
    how: str  # "cited" | "overlap"
    score: float


@dataclass(frozen=True)
class SentenceView:
    text: str
    marks: tuple[EvidenceMark, ...] = ()
    trailing: str = ""  # up to the next sentence (white space, a closing quote): kept as written

    @property
    def bucket(self) -> int | None:
        if not self.marks:
            return None
        return score_bucket(max(m.score for m in self.marks))


@dataclass(frozen=True)
class PassageView:
    index: int
    sentences: list[SentenceView] = field(default_factory=list)
    leading: str = ""  # white space before the first sentence, kept like ``trailing``

    @property
    def marked(self) -> bool:
        return any(s.marks for s in self.sentences)


def _best_sentences(factoid: Factoid, sentences: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Where a factoid's evidence lies: ``(sentence number, how)`` pairs.

    Evidence strings the scorer cited win (a sentence containing the evidence, or contained in
    it); otherwise the one sentence sharing the largest share of the factoid's content words.
    """
    found: list[tuple[int, str]] = []
    for ev in (_norm(e) for e in factoid.evidence if e.strip()):
        for k, text in sentences:
            s = _norm(text)
            if s and (ev in s or s in ev):
                found.append((k, "cited"))
    if found:
        return sorted(set(found))
    claim = _words(factoid.text)
    if not claim:
        return []
    best: tuple[float, int] | None = None
    for k, text in sentences:
        share = len(claim & _words(text)) / len(claim)
        if share > 0 and (best is None or share > best[0]):
            best = (share, k)
    return [] if best is None else [(best[1], "overlap")]


def passage_views(contexts: list[str], report: ScoreReport | None) -> list[PassageView]:
    """Every passage split into sentences, each factoid's evidence sentence(s) marked."""
    flat: list[tuple[int, str]] = []  # (global sentence number, text)
    layout: list[list[tuple[int, int, int]]] = []  # per passage: (number, start, end)
    for ctx in contexts:
        rows = []
        for start, end in split_sentences(ctx, rules="plain"):
            rows.append((len(flat), start, end))
            flat.append((len(flat), ctx[start:end]))
        layout.append(rows)
    marks: dict[int, list[EvidenceMark]] = {}
    for f in report.factoids if report else []:
        for k, how in _best_sentences(f, flat):
            marks.setdefault(k, []).append(EvidenceMark(f.index, how, f.score))
    views: list[PassageView] = []
    for p, (ctx, rows) in enumerate(zip(contexts, layout, strict=True)):
        sentences = []
        for j, (k, start, end) in enumerate(rows):
            nxt = rows[j + 1][1] if j + 1 < len(rows) else len(ctx)
            sentences.append(SentenceView(ctx[start:end], tuple(marks.get(k, ())), ctx[end:nxt]))
        views.append(PassageView(p, sentences, ctx[: rows[0][1]] if rows else ctx))
    return views


@dataclass(frozen=True)
class VerdictView:
    judge: str
    label: str
    reason: str
    parsed: bool


@dataclass(frozen=True)
class VariantView:
    relation: str
    text: str
    label: str
    penalty: float
    generated: bool
    verdicts: list[VerdictView]


@dataclass(frozen=True)
class FactoidView:
    index: int
    text: str
    score: float
    flagged: bool
    aligned: bool
    quoted: list[str]
    variants: list[VariantView]
    #: Values the context states differently ("context says Warsaw, not Vienna").
    conflicts: list[str] = field(default_factory=list)

    @property
    def bucket(self) -> int:
        return score_bucket(self.score)


def factoid_views(answer: str, report: ScoreReport | None) -> list[FactoidView]:
    """Factoids highest score first, with the answer text they cover and every verdict."""
    if report is None:
        return []
    views = [
        FactoidView(
            index=f.index,
            text=f.text,
            score=f.score,
            flagged=f.flagged,
            aligned=f.aligned,
            quoted=[answer[s:e] for s, e in f.spans if 0 <= s < e <= len(answer)],
            conflicts=f.conflicts(),
            variants=[
                VariantView(
                    relation=v.relation.value,
                    text=v.text,
                    label=v.label.value,
                    penalty=v.penalty,
                    generated=v.generated,
                    verdicts=[
                        VerdictView(d.judge, d.label.value, d.reason, d.parsed) for d in v.verdicts
                    ],
                )
                for v in f.variants
            ],
        )
        for f in report.factoids
    ]
    return sorted(views, key=lambda v: (-v.score, v.index))


@dataclass(frozen=True)
class ResolvedView:
    """A statement the answer was read as, with the answer words it stands for."""

    words: str
    text: str
    rule: str


def resolved_views(answer: str, report: ScoreReport | None) -> list[ResolvedView]:
    """The statements an answer that leans on its question was read as ("Yes" -> "Pregnant
    women can take ibuprofen."); empty when it stood on its own."""
    if report is None:
        return []
    return [
        ResolvedView(
            words=" ".join(answer[s:e] for s, e in r.spans if 0 <= s < e <= len(answer)),
            text=r.text,
            rule=r.rule,
        )
        for r in report.resolved
    ]
