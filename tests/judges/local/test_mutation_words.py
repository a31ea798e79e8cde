"""The mutator writes words: over RAGTruth dev factoids, no variant brings in a non-word or
turns a verb into another part of speech ("lasts" -> "finals"), by a fixed lexicon check."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from guardrail.evaluation.datasets import load_rows
from guardrail.judges.local import LocalJudge
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.morph import regular_inflect

_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|\d+(?:[.,:]\d+)*%?")
#: Words the mutator writes itself: its wrappers ("In fact, ...", "It is not the case that
#: ...") and what it puts in place of a removed negation ("no one" -> "someone").
_WRAPPER_WORDS = frozenset(
    "it is true that in fact the case indeed not false untrue some someone still".split()
)
_BARE = re.compile(r"^[a-z]+$")


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _is_word(word: str, lex: Lexicon, source_words: set[str]) -> bool:
    low = word.lower()
    return (
        low in source_words
        or any(low in _forms(w) for w in source_words)  # "specify" -> "specifies"
        or low in _WRAPPER_WORDS
        or lex.is_known_word(low)
        or lex.is_negation(low)
        or not _BARE.match(low)  # digits, contractions: checked as numbers elsewhere
    )


def _forms(word: str) -> set[str]:
    return {regular_inflect(word, form) for form in ("s", "ed", "ing")}


def _verb_use(word: str, lex: Lexicon) -> bool:
    """An inflected verb form ("lasts", "closed") in the factoid."""
    found = lex.morph.analyze(word.lower())
    return found is not None and found[1] in ("s", "ed")


def audit(factoid: str, variants: list[str], lex: Lexicon) -> tuple[list[str], list[str]]:
    """(non-words, part-of-speech changes) the variants bring into the factoid."""
    source = _words(factoid)
    source_words = {w.lower() for w in source}
    non_words: list[str] = []
    pos_changes: list[str] = []
    for variant in variants:
        target = _words(variant)
        matcher = difflib.SequenceMatcher(
            a=[w.lower() for w in source], b=[w.lower() for w in target], autojunk=False
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            new = target[j1:j2]
            non_words += [f"{w} in {variant!r}" for w in new if not _is_word(w, lex, source_words)]
            if tag == "replace" and i2 - i1 == 1 and j2 - j1 == 1:
                old = source[i1]
                if _verb_use(old, lex) and not lex.morph.is_known_verb_form(new[0].lower()):
                    pos_changes.append(f"{old} -> {new[0]} in {variant!r}")
    return non_words, pos_changes


def test_the_audit_catches_the_known_failures():
    """The check itself: the old mutator's "finals" is a part-of-speech change, a made-up
    word is a non-word, and the current mutator's variants of the same factoid pass."""
    lex = Lexicon.load()
    factoid = "The free trial lasts 30 days."
    _, pos = audit(factoid, ["The free trial finals 30 days."], lex)
    assert pos == ["lasts -> finals in 'The free trial finals 30 days.'"]
    bad, _ = audit(factoid, ["The free trial lastz 30 days."], lex)
    assert bad
    judge = LocalJudge(verifier="rules")
    variants = judge.mutator.synonyms(factoid, 2) + judge.mutator.antonyms(factoid, 2)
    assert audit(factoid, variants, lex) == ([], [])


@pytest.mark.data
def test_mutations_of_ragtruth_factoids_are_words(shared_data: Path):
    rows = load_rows(shared_data / "ragtruth" / "dev.jsonl", shuffle_seed=11, limit=120)
    judge = LocalJudge(verifier="rules")
    lex = judge.lexicon
    checked = 0
    non_words: list[str] = []
    pos_changes: list[str] = []
    for row in rows:
        for factoid in judge.decomposer.decompose(row.answer):
            variants = judge.mutator.synonyms(factoid, 2) + judge.mutator.antonyms(factoid, 2)
            bad, pos = audit(factoid, variants, lex)
            non_words += bad
            pos_changes += pos
            checked += len(variants)
    assert checked > 1000
    assert pos_changes == []
    assert non_words == []
