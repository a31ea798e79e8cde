"""The verifier's best-matching context unit: skipping units whose coverage cannot reach the
best one found picks exactly the unit an exhaustive pass over every candidate picks."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.verify import (
    ContextIndex,
    _Match,
    _match,
    _read_core,
    _term_keys,
    index_context,
)

_LEX = Lexicon.load()
_SUITE = Path(__file__).parents[2] / "data" / "contradictions.jsonl"
#: Near-duplicate sentences and clauses, opposites by word list and by prefix alone
#: ("unblorped"), numbers and names: many units tie or nearly tie.
_CONTEXT = (
    "The vaccine is safe for adults; it is unsafe for infants. "
    "The vaccine is safe for children, but it is not approved for infants. "
    "In 2019 the vaccine was approved in France, and in 2021 it was approved in Spain. "
    "Doctors in Spain say the vaccine is effective. Doctors in France say it is ineffective. "
    "The trial lasted 14 days. The trial lasted 30 days in Spain. The second trial lasted "
    "two weeks, while the first trial lasted 14 days. The drug was blorped in Spain. "
    "The drug was tested in France and blorped; the drug was tested."
)
_WORDS = (
    "the vaccine is safe unsafe for adults children infants approved not in 2019 2021 France "
    "Spain Italy doctors say effective ineffective trial lasted 14 30 days two weeks second "
    "first it was and but drug blorped unblorped nonblorped tested"
).split()


def _exhaustive(core: str, index: ContextIndex) -> _Match | None:
    """The best unit by trying every candidate in order (the plain definition)."""
    read = _read_core(core, index, _LEX)
    terms, weights, elsewhere = read.terms, read.weights, read.elsewhere
    if not terms or not index.units:
        return None
    candidates: set[int] = set()
    for term in terms:
        for key in _term_keys(term):
            candidates.update(index.postings.get(key, ()))
    best: _Match | None = None
    best_rank = (-1.0, 0)
    for i in sorted(candidates):
        m = _match(index.units[i], terms, weights, elsewhere)
        rank = (round(m.coverage, 6), -m.unit.size)
        if rank > best_rank:
            best, best_rank = m, rank
    return best


def _same(a: _Match | None, b: _Match | None) -> bool:
    if a is None or b is None:
        return a is b
    return (a.unit, a.coverage, a.opposed, a.missing) == (b.unit, b.coverage, b.opposed, b.missing)


_INDEX = index_context(_CONTEXT, _LEX)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=9))
def test_the_best_unit_is_the_exhaustive_one(words: list[str]) -> None:
    core = " ".join(words) + "."
    assert _same(_read_core(core, _INDEX, _LEX).best, _exhaustive(core, _INDEX)), core


def test_the_contradiction_suite_picks_the_exhaustive_unit() -> None:
    for line in _SUITE.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        index = index_context(case["context"], _LEX)
        for text in (case["statement"], case["context"]):
            assert _same(_read_core(text, index, _LEX).best, _exhaustive(text, index)), text
