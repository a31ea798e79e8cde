"""A medicine the passage only advises against, given as the one to take.

"For a headache while on warfarin, use paracetamol. Avoid ibuprofen." against "While on
warfarin, ibuprofen is the one to use for a headache.": the statement shares the passage's
words, the medicine included, so word coverage supports it. What the passage says of that
medicine is only a denial. This check reads every place the passage names the statement's one
medicine; when each of them denies it — a word of avoiding near it ("avoid", "evitare",
"vermeiden", "deve ser evitado"), or a negation just before it in its clause with no other
medicine between ("do not give aspirin", "No le dé aspirina", "Neem geen ibuprofen") — a
statement that names it without a denial of its own is contradicted.

A medicine is a name :func:`~guardrail.judges.local.medicines.is_medicine` knows, or, outside
German (where every noun is capitalized), a capitalized word that is not the statement's first
("Dolorex"). A statement that sets one medicine against another ("paracetamol rather than
ibuprofen", "preferred over ibuprofen") is left to the other checks, as is a medicine the
passage also names without a denial.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from guardrail.judges.local.contrast import instead_at
from guardrail.judges.local.lexicon import Lexicon, is_acceptability
from guardrail.judges.local.medicines import is_medicine, key
from guardrail.judges.local.verify import (
    Assessment,
    Finding,
    Support,
    Unit,
    negation_positions,
    quote,
    word_reading,
)
from guardrail.text.tokens import Token, tokenize

__all__ = ["FRAME_COVERAGE", "advised_against"]

#: Tokens that end a clause.
_BREAKS = frozenset({",", ";", ":", ".", "!", "?", "(", ")", "–", "—"})
#: Share of the statement's weight, its medicines left out, that the passage must use: the
#: statement speaks of what the passage does ("the one to use for a headache"), not of
#: another matter ("Ibuprofen is cheap").
FRAME_COVERAGE = 0.25
#: Tokens either side of a medicine searched for a word of avoiding.
_AVOID_REACH = 6
#: Tokens before a medicine searched for a negation that denies it.
_NEGATION_REACH = 4
#: Words that set one thing against another ("preferred *over* ibuprofen").
_COMPARING = frozenset("over than versus vs".split())
#: Shortest capitalized word read as a medicine's brand name.
_BRAND_CHARS = 4


def _base(text: str) -> str:
    """A token without an elided article ("l'ibuprofene": "ibuprofene"), lower case."""
    return re.split(r"['’]", text)[-1].lower()


def _avoiding(tok: Token, lex: Lexicon) -> bool:
    """A word of avoiding: the negative side of the acceptability scale ("avoid", "evitare")."""
    return tok.is_word and any(
        is_acceptability(k) and sign < 0 for k, sign in word_reading(tok.lower, lex).polar
    )


def _medicine(tok: Token, first: bool, lex: Lexicon) -> str:
    """The key of the medicine ``tok`` names, else ""."""
    if not tok.is_word:
        return ""
    return _medicine_key(tok.text, first, lex.capitalized_nouns)


@lru_cache(maxsize=65536)
def _medicine_key(text: str, first: bool, capitalized_nouns: bool) -> str:
    word = _base(text)
    if is_medicine(word):
        return key(word)
    bare = re.split(r"['’]", text)[-1]
    brand = (
        not first
        and not capitalized_nouns
        and len(bare) >= _BRAND_CHARS
        and bare[:1].isupper()
        and not bare.isupper()
        and bare.isalpha()
    )
    return f"name:{word}" if brand else ""


def _clause(tokens: Sequence[Token], p: int) -> tuple[int, int]:
    left = p
    while left > 0 and tokens[left - 1].text not in _BREAKS:
        left -= 1
    right = p + 1
    while right < len(tokens) and tokens[right].text not in _BREAKS:
        right += 1
    return left, right


def _denied(tokens: list[Token], p: int, lex: Lexicon, negations: Sequence[int]) -> bool:
    """The medicine at ``tokens[p]`` is denied in its clause: a word of avoiding near it, or
    one of the text's ``negations`` (:func:`~guardrail.judges.local.verify.negation_positions`:
    none that bounds an amount) just before it, with no other medicine and no amount in the
    clause before it ("Paracetamol does not interact with warfarin", "do not exceed 3 g of
    paracetamol" deny neither medicine)."""
    left, right = _clause(tokens, p)
    near = range(max(left, p - _AVOID_REACH), min(right, p + _AVOID_REACH + 1))
    if any(i != p and _avoiding(tokens[i], lex) for i in near):
        return True
    for n in negations:
        if max(left, p - _NEGATION_REACH) <= n < p:
            return not any(
                _medicine(tokens[i], i == 0, lex) or tokens[i].is_number
                for i in range(left, p)
                if i != n
            )
    return False


def _spoken_of(assessment: Assessment, medicines: set[str]) -> float:
    """The share of the statement's weight, its ``medicines`` (their words) left out, that
    the passage uses anywhere."""
    total = held = 0.0
    for term, weight, there in zip(
        assessment.terms, assessment.weights, assessment.elsewhere, strict=True
    ):
        if term.surface.lower() in medicines or _base(term.surface) in medicines:
            continue
        total += weight
        held += weight if there else 0.0
    return held / total if total else 0.0


#: Ordinal words a statement may scope a medicine's use with ("the *first* two trimesters").
_ORDINALS = frozenset(
    "first second third fourth last primo secondo terzo premier première deuxième troisième "
    "primer primera segundo segunda tercer tercera primeiro primeira terceiro terceira erste "
    "ersten zweite zweiten dritte dritten eerste tweede derde".split()
)


def _ordinals(tokens: Sequence[Token], lex: Lexicon) -> set[str]:
    """The ordinal words of ``tokens`` that scope a period ("the *first* two trimesters", "the
    *third* trimester"): a statement that scopes the medicine's use with one the passage's
    denial lacks says something the denial does not settle. An ordinal of rank ("the first
    choice", "als eerste") scopes nothing."""
    out = set()
    for i, tok in enumerate(tokens[:-1]):
        nxt = tokens[i + 1]
        if tok.lower in _ORDINALS and (
            nxt.is_number
            or lex.number_value(nxt.lower) is not None
            or nxt.lower.startswith(_PERIODS)
        ):
            out.add(tok.lower)
    return out


#: Beginnings of the words for a period of a pregnancy or a treatment, in every language.
_PERIODS = ("trimest", "week", "month", "semana", "semaine", "mes", "mois", "monat", "woche",
            "maand", "settiman", "dose", "dosis")  # fmt: skip


def _sentences(units: Sequence[Unit]) -> list[Unit]:
    """One unit per passage sentence: its first, the sentence itself."""
    seen: set[int] = set()
    out = []
    for unit in units:
        if unit.sentence not in seen:
            seen.add(unit.sentence)
            out.append(unit)
    return out


def advised_against(assessment: Assessment, units: Sequence[Unit], lex: Lexicon) -> Finding | None:
    """Contradicted when the statement names a medicine without a denial of its own and
    every place the passage (its ``units``) names that medicine denies it; ``None``
    otherwise."""
    tokens = assessment.tokens
    if assessment.negations or assessment.framing % 2 or not tokens:
        return None
    named = [(t, m) for i, t in enumerate(tokens) if (m := _medicine(t, i == 0, lex))]
    if not named:
        return None  # the common case: nothing of the passage is read
    medicines = list(dict.fromkeys(m for _, m in named))
    if _spoken_of(assessment, {_base(t.text) for t, _ in named}) < FRAME_COVERAGE:
        return None  # "Ibuprofen is cheap": not what the passage speaks of
    if any(_avoiding(t, lex) for t in tokens) or any(
        t.lower in _COMPARING or instead_at(list(tokens), i) for i, t in enumerate(tokens)
    ):
        return None  # "avoid X", "paracetamol rather than X", "preferred over X"
    sentences = [(unit, *_read(unit.text, lex)) for unit in _sentences(units)]
    for medicine in medicines:
        denials = [
            (unit, found, _denied(found, p, lex, negated))
            for unit, found, negated, at in sentences
            for p, key in at
            if key == medicine
        ]
        if not denials or not all(denied for _, _, denied in denials):
            continue
        if _ordinals(tokens, lex) - set().union(*(_ordinals(f, lex) for _, f, _ in denials)):
            continue  # "safe in the first two trimesters" against "contraindicated in the third"
        return Finding(
            Support.CONTRADICTED,
            f"The context advises against what the statement gives: {quote(denials[0][0].text)}",
        )
    return None


#: Passage sentences read (tokens, negation positions, medicines), per lexicon and text.
_READ: dict[tuple[int, str], tuple[list[Token], list[int], list[tuple[int, str]]]] = {}
_READ_KEPT = 4096


def _read(text: str, lex: Lexicon) -> tuple[list[Token], list[int], list[tuple[int, str]]]:
    """A passage sentence's tokens, negations and medicines (position, key), read once per
    lexicon."""
    key = (id(lex), text)
    found = _READ.get(key)
    if found is None:
        tokens = tokenize(text, "lexical")
        named = [(p, m) for p, tok in enumerate(tokens) if (m := _medicine(tok, p == 0, lex))]
        found = (tokens, negation_positions(tokens, lex), named)
        if len(_READ) >= _READ_KEPT:
            _READ.clear()
        _READ[key] = found
    return found
