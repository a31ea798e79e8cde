"""A fact moved to another entity the context also names: the context says "X did A, Y did B",
the statement says "Y did A".

The value check (:mod:`~guardrail.judges.local.conflict`) never lets a name conflict when the
context states that name anywhere: a partial mention is far more often the same name than a
rival. That leaves the moved fact unchecked. Here a name of the statement that the context
holds, but *not* in the statement's best context unit, is compared with that unit: when the
unit covers the rest of the statement (:data:`FRAME_COVERAGE`) and, aligned word by word, puts
another name exactly where the statement has this one ("the sonographer carries out the scan" /
"the midwife carries out the scan" works for names: "Helen Park became director" against
"Sarah Collins became director ... Helen Park is deputy"), the statement is contradicted.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from functools import lru_cache

from guardrail.judges.local.values import Value
from guardrail.judges.local.verify import Assessment, Finding, Support, Term, Unit, quote
from guardrail.lang.context import current_language
from guardrail.lang.registry import language
from guardrail.text.tokens import words as _words

#: Share of the statement's weight, the name left out, that its best unit must cover.
FRAME_COVERAGE = 0.8
#: Words a rewritten stretch may hold besides the two names it swaps.
_SLACK = 1
#: Words of a name too general to tell two names apart.
_GENERIC = frozenset("the of and a an de la le van von der den di da do".split())


def _own(name: str) -> set[str]:
    return {w for w in _words(name) if w not in _GENERIC and len(w) > 1}


def _span(text: str, value: Value) -> tuple[int, int]:
    before = len(_words(text[: value.start]))
    return before, before + max(1, len(_words(value.surface)))


def _rest(assessment: Assessment, name_words: set[str]) -> list[tuple[Term, float]]:
    """The statement's terms and weights, the name's words left out."""
    return [
        (term, weight)
        for term, weight in zip(assessment.terms, assessment.weights, strict=True)
        if not _word_set(term.surface) & name_words
    ]


def _cover(rest: list[tuple[Term, float]], unit: Unit) -> float:
    """The share of ``rest``'s weight that ``unit`` holds."""
    total = got = 0.0
    for term, weight in rest:
        total += weight
        if term.stem in unit.stems or term.same & unit.same:
            got += weight
    return got / total if total else 0.0


def _swapped(statement: str, value: Value, unit: str, rival: Value) -> bool:
    """Aligned word by word, the unit puts ``rival`` where the statement has ``value``, and
    the two texts are otherwise alike on both sides of it."""
    a, b = _words(statement), _words(unit)
    a_span, b_span = _span(statement, value), _span(unit, rival)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        tight = (
            i1 <= a_span[0]
            and a_span[1] <= i2
            and i2 - i1 <= a_span[1] - a_span[0] + _SLACK
            and j1 <= b_span[0]
            and b_span[1] <= j2
            and j2 - j1 <= b_span[1] - b_span[0] + _SLACK
        )
        if tight:
            # the same word on at least one side of the swapped stretch
            return (i1 > 0 and j1 > 0 and a[i1 - 1] == b[j1 - 1]) or (
                i2 < len(a) and j2 < len(b) and a[i2] == b[j2]
            )
    return False


@lru_cache(maxsize=8192)
def _word_set(text: str) -> frozenset[str]:
    return frozenset(_words(text))


def moved(
    statement: str,
    assessment: Assessment,
    stated: Callable[[str], list[Value]],
    values_of: Callable[[Unit], list[Value]],
    units: Sequence[Unit],
) -> Finding | None:
    """A fact moved to another name: aligned word by word (:func:`moved_name`), or, in a
    language with a module, in any word order (:func:`swapped_roles`); ``None`` when neither
    finds one. English keeps the aligned check alone: on RAGTruth's English summaries the
    any-order check flagged faithful sentences that name several people (answer F1 0.700 ->
    0.691 with it, 0.703 without)."""
    found = moved_name(statement, assessment, stated, values_of, units)
    if found is not None or language(current_language()) is None:
        return found
    return swapped_roles(assessment, units)


def moved_name(
    statement: str,
    assessment: Assessment,
    stated: Callable[[str], list[Value]],
    values_of: Callable[[Unit], list[Value]],
    units: Sequence[Unit],
) -> Finding | None:
    """Contradicted when a name of the statement, stated in some context unit, stands where
    another unit that covers the rest of the statement better names another; ``None``
    otherwise."""
    if not assessment.terms or assessment.negations:
        return None
    text = statement  # its values are already read (the value check's)
    names = [v for v in stated(text) if v.kind == "name"]
    if not names:
        return None
    said = _word_set(text)
    for name in names:
        own = _own(name.text or name.surface)
        if not own:
            continue
        holding = [u for u in units if own <= _word_set(u.text)]
        if not holding:
            continue  # the context never names it: the value check's case, not a moved fact
        rest = _rest(assessment, own)
        held = max(_cover(rest, u) for u in holding)
        if held >= 1.0:
            continue  # a unit with the name says all the rest: nothing moved
        others = [(c, u) for u in units if u not in holding if (c := _cover(rest, u))]
        if not others:
            continue
        cover, unit = max(others, key=lambda x: x[0])
        if cover < FRAME_COVERAGE or cover <= held:
            continue
        for rival in values_of(unit):
            if rival.kind != "name" or _own(rival.surface) & said:
                continue
            if _swapped(text, name, unit.text, rival):
                return Finding(
                    Support.CONTRADICTED,
                    f"The context says this of {rival.surface}, not {name.surface}: "
                    f"{quote(unit.text)}",
                )
    return None


#: Most statement words a moved name may take (a name of one to three words).
_ROLE_WORDS = 3
#: Words besides the moved name the best unit may lack, if no unit holds them ("C'est").
_ROLE_EXTRA = 1
#: Share of the statement's weight its best unit must hold without the moved name.
ROLE_COVERAGE = 0.5


def _namelike(surface: str) -> bool:
    """A capitalized word or an acronym: a name, or in German a noun."""
    return surface[:1].isupper()


def swapped_roles(assessment: Assessment, units: Sequence[Unit]) -> Finding | None:
    """Contradicted when, in whatever word order, the statement says of one name what its
    best unit says of another: the words the best unit lacks are names that another unit
    names (besides at most one word no unit holds, "C'est"), and the best unit holds a name
    the statement and that other unit leave out ("The immigration office handles permits.
    The Job Centre handles benefits." / "Permits are handled by the Job Centre.").
    ``None`` otherwise."""
    best = assessment.best
    if best is None or assessment.negations or not best.missing:
        return None
    missing = best.missing
    if len(missing) > _ROLE_WORDS + _ROLE_EXTRA:
        return None
    total = sum(assessment.weights)
    lost = sum(w for t, w in zip(assessment.terms, assessment.weights, strict=True) if t in missing)
    if not total or (total - lost) / total < ROLE_COVERAGE:
        return None
    said = {t.stem for t in assessment.terms}
    for other in units:
        if other is best.unit:
            continue
        moved = [t for t in missing if _holds(other, t)]
        extra = [t for t in missing if t not in moved]
        if not moved or len(moved) > _ROLE_WORDS or not all(_namelike(t.surface) for t in moved):
            continue
        if len(extra) > _ROLE_EXTRA or any(_holds(u, t) for t in extra for u in units):
            continue
        own = {e for e in best.unit.entities if e not in said and e not in other.stems}
        if own:
            return Finding(
                Support.CONTRADICTED,
                f"The context says this of another name than "
                f"{' '.join(t.surface for t in moved)}: {quote(best.unit.text)}",
            )
    return None


def _holds(unit: Unit, term: Term) -> bool:
    return term.stem in unit.stems or bool(term.same & unit.same)
