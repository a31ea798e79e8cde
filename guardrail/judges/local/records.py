"""Yes/no attributes of a JSON record, and statements that assert or deny them.

Data-to-text contexts are records: ``"OutdoorSeating": false``, ``"WiFi": "no"``,
``"BusinessParking": {"street": false, "lot": true}``. A statement that names such an
attribute ("outdoor seating", "street parking", "Wi-Fi") and asserts it where the record says
no, or denies it where the record says yes, contradicts the record, however little of the rest
of the statement the record covers ("Cafe Blue has outdoor seating." against
``"OutdoorSeating": false``). :class:`RecordFacts` finds such conflicts for the conflict check
(:meth:`~guardrail.judges.local.verifiers.LexicalVerifier.value_verdict`).

An attribute is named when all the content words of its key (and of the key it sits under:
"street" *parking*) occur within a few words of each other; generic key words ("Restaurants",
"Business", "GoodFor", "Accepts") are not needed. A negation ("not", "no", "without", "n't")
before the attribute in the same clause denies it; a list keeps the clause going ("does not
offer garage, street, or valet parking" denies all three), a comma before a new clause ends it.
An attribute the record holds without a value (``null``) is not known: a statement that claims
or denies it is not supported either way ("NOT SURE", naming the key). Values that are not
yes/no are left to the verifier.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.structured import key_words, load_json
from guardrail.judges.local.verify import Finding, Support
from guardrail.text.stemming import stem

#: Key words an attribute does not need to be named by.
GENERIC_KEY_WORDS = frozenset(
    {
        "attributes",
        "restaurants",
        "restaurant",
        "business",
        "good",
        "for",
        "accepts",
        "has",
        "by",
        "only",
    }
)
#: Words a record writes for yes and for no.
_YES = frozenset({"yes", "true", "free", "paid"})
_NO = frozenset({"no", "none", "false"})
#: The farthest apart (in words) an attribute's key words may be and still name it.
WINDOW = 4
#: Words that end the clause a negation governs.
_BREAKS = frozenset({"but", "while", "whereas", "although", "though", "however", "yet", "except"})
_LIST_WORDS = frozenset({"or", "and", "nor"})
#: Words of a list item after a comma (more words than this start a new clause).
_LIST_ITEM = 2
_WORD = re.compile(r"[a-z0-9]+|[.;:!?,]")
_SPELLINGS = (
    (re.compile(r"\bwi[- ]?fi\b"), "wifi"),
    (re.compile(r"\btake[- ]?out\b"), "takeout"),
    (re.compile(r"n't\b"), " not"),
)
#: Largest record read (characters of JSON).
MAX_RECORD = 200_000


@dataclass(frozen=True)
class RecordFact:
    """One yes/no attribute: the stems that name it, its value and how the record puts it."""

    stems: frozenset[str]
    #: ``None``: the record holds the attribute without a value (``null``).
    value: bool | None
    says: str


def _words(text: str) -> list[str]:
    low = text.lower()
    for pattern, spelled in _SPELLINGS:
        low = pattern.sub(spelled, low)
    return _WORD.findall(low)


def _stems(key: str, lex: Lexicon) -> set[str]:
    """The stems a statement names a key by (generic key words left out)."""
    return {
        stem(w)
        for w in _words(key)
        if w.isalpha() and w not in GENERIC_KEY_WORDS and lex.is_content(w)
    }


def _value(raw: object) -> bool | None:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        text = raw.strip().lstrip("u").strip("'\"").lower()
        if text in _YES:
            return True
        if text in _NO:
            return False
    return None


class RecordFacts:
    """The yes/no attributes of one JSON record (``None`` from :meth:`of` for other text)."""

    def __init__(self, facts: list[RecordFact], lex: Lexicon) -> None:
        self.facts = facts
        self._negations = frozenset(lex.negations) | {"without"}

    @classmethod
    def of(cls, context: str, lex: Lexicon) -> RecordFacts | None:
        """The record's attributes, or ``None`` when ``context`` is not a JSON object that has
        any."""
        if len(context.strip()) > MAX_RECORD:
            return None
        data = load_json(context)
        if not isinstance(data, dict):
            return None
        facts: list[RecordFact] = []
        cls._walk(data, [], facts, lex)
        return cls(facts, lex) if facts else None

    @classmethod
    def _walk(cls, value: object, path: list[str], out: list[RecordFact], lex: Lexicon) -> None:
        if isinstance(value, dict):
            if len(path) < 3:
                for key, inner in value.items():
                    cls._walk(inner, [*path, str(key)], out, lex)
            return
        found = _value(value)
        if (found is None and value is not None) or not path:
            return
        keys = [k for k in path[-2:] if k.lower() != "attributes"]
        named = [_stems(key_words(k), lex) for k in keys]
        if not keys or not named[-1]:
            return  # the attribute's own key says nothing a statement would name ("lot")
        if (
            found is not None
            and sum(1 for w in _words(key_words(keys[-1])) if lex.is_negation(w)) % 2
        ):
            found = not found  # "no_music": false says there is music
        says = f"{'.'.join(keys)}: {json.dumps(value)}"
        out.append(RecordFact(frozenset().union(*named), found, says))

    def conflict(self, statement: str) -> RecordFact | None:
        """The first attribute ``statement`` names and asserts against the record (or denies
        where the record says yes); else the first it names that the record does not know
        (``value`` ``None``); else ``None``."""
        words = _words(statement)
        stems = [stem(w) if w.isalnum() else w for w in words]
        present = set(stems)
        unknown: RecordFact | None = None
        for fact in self.facts:
            at = _named(stems, fact.stems) if fact.stems <= present else None
            if at is None:
                continue
            if fact.value is None:
                unknown = unknown or fact
            elif self._denied(words, *at) == fact.value:
                return fact
        return unknown

    def _denied(self, words: list[str], start: int, end: int) -> bool:
        """An odd count of negations in the clause around ``words[start:end]`` ("no
        Wi-Fi", "Wi-Fi is not available")."""
        count = sum(1 for w in words[start:end] if w in self._negations)
        i = start - 1
        while i >= 0 and not _ends_clause(words, i):
            count += words[i] in self._negations
            i -= 1
        i = end
        while i < len(words) and not _ends_clause(words, i):
            count += words[i] in self._negations
            i += 1
        return count % 2 == 1


def _ends_clause(words: list[str], i: int) -> bool:
    w = words[i]
    return w in ".;:!?" or w in _BREAKS or (w == "," and not _in_list(words, i))


def _named(stems: list[str], wanted: frozenset[str]) -> tuple[int, int] | None:
    """Where ``wanted`` first occur all together — within :data:`WINDOW` words of each other,
    with no punctuation between them — as (start, end), else ``None``."""
    for start, first in enumerate(stems):
        if first not in wanted:
            continue
        seen: set[str] = set()
        for end in range(start, min(len(stems), start + WINDOW + 1)):
            if not stems[end].isalnum():
                break
            if stems[end] in wanted:
                seen.add(stems[end])
                if seen == wanted:
                    return start, end + 1
    return None


def _in_list(words: list[str], comma: int) -> bool:
    """The comma at ``comma`` separates list items ("garage, street, or valet parking"), not
    clauses."""
    for w in words[comma + 1 : comma + 2 + _LIST_ITEM]:
        if w == "," or w in _LIST_WORDS:
            return True
        if w in ".;:!?":
            return False
    return False


def record_finding(fact: RecordFact, framed: bool) -> Finding:
    """The verdict on a statement that asserts ``fact`` against the record (``framed``: it is
    wrapped in "It is not true that ...", so it denies what contradicts the record)."""
    if fact.value is None:
        return Finding(Support.UNKNOWN, f"The record does not say: {fact.says}.")
    if framed:
        return Finding(Support.SUPPORTED, f"The record says {fact.says}, as the statement has it.")
    return Finding(Support.CONTRADICTED, f"Conflicting value: the record says {fact.says}.")
