"""Comparisons: "A is heavier than B" read against "B is lighter than A".

The conflict check (:mod:`~guardrail.judges.local.conflict`) asks this module whether a
statement and its best context unit compare the same two things on one scale:

* a comparison is a comparative ("heavier", "more expensive", "less expensive") with what it
  compares: the words after "than", and the words before the comparative (or, when words stand
  between the comparative and "than" — "grows faster *in the wet season* than in the dry
  season" — those);
* without "than" ("Tickets are cheaper when booked online"), only comparatives of the
  lexicon's antonym pairs count, and the rest of both texts must match;
* the two comparatives lie on one scale when their base words are equal or antonyms
  ("cheap"/"expensive"); "more" and "less" set the direction;
* the same order with the same direction, or the swapped order with the opposite direction,
  says the same; otherwise the statement reverses the context. Negations flip the result.

Anything else (other comparatives, sides that do not match) is left to the verifier.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from guardrail.judges.local.lexicon import Lexicon
from guardrail.text.stemming import stem

#: Comparatives whose base is not the word minus "-er".
_IRREGULAR = {"better": "good", "worse": "bad", "further": "far", "farther": "far"}
#: Words that stand for the thing compared ("the old model is heavier than the new one").
_PRONOUNS = frozenset({"one", "ones", "it", "they", "them", "that", "those"})
#: Context units whose comparison one reader remembers.
_UNITS_KEPT = 4096
#: Lead-ins that wrap a statement: their count of negations, and their words.
_FRAMES = ((1, ("it", "is", "not", "true", "that")), (0, ("it", "is", "true", "that")))


@dataclass(frozen=True)
class Comparison:
    """One comparison: its base word, direction along it, and the two sides compared."""

    base: str
    sign: int
    first: frozenset[str]
    second: frozenset[str]
    #: The words around the comparison (for comparisons without "than").
    rest: frozenset[str]
    negations: int


_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'"))


def _bases(word: str) -> list[str]:
    """Candidate base words of a comparative form ("heavier" -> "heavy", "bigger" -> "big")."""
    if word in _IRREGULAR:
        return [_IRREGULAR[word]]
    if not word.endswith("er") or len(word) < 5:
        return []
    stem = word[:-2]
    out = [stem, stem + "e"]
    if stem.endswith("i"):
        out.insert(0, stem[:-1] + "y")
    if len(stem) > 2 and stem[-1] == stem[-2]:
        out.insert(0, stem[:-1])
    return out


class Comparisons:
    """Reads comparisons with one lexicon (its antonym pairs, stopwords and negations)."""

    def __init__(self, lex: Lexicon) -> None:
        self.lex = lex
        self._read: dict[str, Comparison | None] = {}

    def _known(self, word: str) -> bool:
        return word in self.lex.antonyms or any(
            w in self.lex.antonyms for w in self.lex.synonyms.get(word, ())
        )

    def _comparative(self, words: list[str], at: int, known_only: bool) -> tuple[str, int] | None:
        """The (base, sign) of a comparative ending at ``words[at]``."""
        word = words[at]
        graded = at > 0 and words[at - 1] in ("more", "less")
        if graded and (not known_only or self._known(word)):
            return word, 1 if words[at - 1] == "more" else -1
        for base in _bases(word):
            if self._known(base) or (not known_only and base == word[:-2]):
                return base, 1
        return None

    def _content(self, words: list[str]) -> frozenset[str]:
        return frozenset(
            stem(w)
            for w in words
            if w not in self.lex.stopwords and w not in _PRONOUNS and not self.lex.is_negation(w)
        )

    def _negations(self, words: list[str]) -> int:
        """How many of ``words`` negate (counted only once a comparison is found)."""
        return sum(self.lex.is_negation(w) for w in words)

    def read(self, text: str) -> Comparison | None:
        """The comparison ``text`` makes, if any."""
        words = _words(text)
        negations = 0
        for count, frame in _FRAMES:
            if tuple(words[: len(frame)]) == frame:
                words = words[len(frame) :]
                negations += count
                break
        if "than" in words:
            than = words.index("than")
            for at in range(than - 1, max(-1, than - 8), -1):
                # an unknown "-er" word counts only right before "than" ("a higher number
                # than" is not a comparison of "numb")
                found = self._comparative(words, at, known_only=at != than - 1)
                if found is None:
                    continue
                start = at - 1 if at > 0 and words[at - 1] in ("more", "less") else at
                between = self._content(words[at + 1 : than])
                before = self._content(words[:start])
                first = between or before
                rest = before if between else frozenset()
                second = self._content(words[than + 1 :])
                return Comparison(*found, first, second, rest, negations + self._negations(words))
            return None
        for at, word in enumerate(words):
            if not word.endswith("er") and (at == 0 or words[at - 1] not in ("more", "less")):
                continue
            found = self._comparative(words, at, known_only=True)
            if found is not None:
                start = at - 1 if at > 0 and words[at - 1] in ("more", "less") else at
                first = self._content(words[:start])
                rest = self._content(words[at + 1 :])
                negations += self._negations(words)
                return Comparison(*found, first, frozenset(), rest, negations)
        return None

    def direction(self, a: str, b: str) -> int:
        """+1: the same scale and direction ("costly", "expensive"); -1: opposite
        ("cheap", "expensive"); 0: unrelated base words."""
        same = {a, *self.lex.synonyms.get(a, ())}
        if b in same:
            return 1
        opposite = {o for w in same for o in self.lex.antonyms.get(w, ())}
        return -1 if b in opposite else 0

    def agree(self, statement: str, unit: str) -> bool | None:
        """True: ``statement`` says what ``unit`` says; False: it reverses it; ``None``: not
        two comparisons of the same things on one scale."""
        s = self.read(statement)
        if s is None:
            return None
        if unit in self._read:
            u = self._read[unit]
        else:
            u = self.read(unit)
            if len(self._read) < _UNITS_KEPT:
                self._read[unit] = u
        if u is None or bool(s.second) != bool(u.second):
            return None
        direction = self.direction(s.base, u.base) * s.sign * u.sign
        if direction == 0 or not _close(s.rest, u.rest):
            return None
        if _same(s.first, u.first) and _same(s.second, u.second):
            agree = direction > 0
        elif s.second and _same(s.first, u.second) and _same(s.second, u.first):
            agree = direction < 0  # swapped sides: the opposite comparative says the same
        else:
            return None
        return agree if (s.negations + u.negations) % 2 == 0 else not agree


def _same(a: frozenset[str], b: frozenset[str]) -> bool:
    """One side names the same thing: one word set contains the other ("the old model" /
    "the old one")."""
    if not a and not b:
        return True
    return bool(a) and bool(b) and (a <= b or b <= a)


def _close(a: frozenset[str], b: frozenset[str]) -> bool:
    """The words around the comparison mostly match (or neither text has any)."""
    if not a or not b:
        return not a and not b
    return len(a & b) / len(a | b) >= 0.5
