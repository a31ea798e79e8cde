"""The offline judge's word lists (``lexicon.json``) as lookup tables.

The data lives in JSON beside this module so it can be read and extended without touching code.
Three relations matter:

* antonym pairs ("safe"/"unsafe") — antonym mutations swap them; the verifier treats them as
  opposites;
* synonym groups ("safe"/"harmless") — synonym mutations swap them; the verifier treats them as
  the same word;
* polarity scales — looser families, used only when verifying: any positive word of a scale
  ("safe", "recommended") opposes any negative one ("contraindicated", "avoid"). A scale marked
  ``verdict`` judges one thing (acceptability, truth, efficacy, possibility, requirement); its
  keys start with :data:`VERDICT`. Relational scales (timing, direction) are not verdicts.

Lookups for verification are keyed by :func:`~guardrail.text.stemming.stem`, so inflected
forms ("increases", "increased") find their entry.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache, partial
from importlib import resources
from typing import Any

from guardrail.judges.local.morph import Form, Morphology
from guardrail.judges.local.values import JOINED_NUMBERS, joined_number, tables
from guardrail.lang.base import lead
from guardrail.lang.dictionary import knows
from guardrail.lang.registry import MODULES, language
from guardrail.text.stemming import stem

_FORMS: tuple[Form, ...] = ("", "s", "ed", "ing")
#: Prefix of the polar keys of verdict scales ("verdict:acceptability").
VERDICT = "verdict:"
#: The key shared by the words and phrases for "free of charge" in a language with a module.
FREE_KEY = "cue:free"
#: English phrases of several words for "free of charge": a context unit holding one has
#: :data:`FREE_KEY`, as the word "free" has ("There is no fee for an appeal" / "It's free").
EN_FREE_PHRASES = frozenset(
    {"no fee", "no fees", "no charge", "free of charge", "at no cost", "without charge",
     "costs nothing", "cost nothing", "no cost", "nothing to pay", "not charged"}
)  # fmt: skip


def is_acceptability(polar_key: str) -> bool:
    """``polar_key`` names the acceptability scale: English's, or a language module's first
    verdict scale (:attr:`~guardrail.lang.base.Language.verdicts`, "verdict:de:0")."""
    return polar_key == f"{VERDICT}acceptability" or _module_scale(polar_key, 0)


def is_requirement(polar_key: str) -> bool:
    """``polar_key`` names the requirement scale: English's, or a language module's second
    verdict scale ("verdict:de:1")."""
    return polar_key == f"{VERDICT}requirement" or _module_scale(polar_key, 1)


def _module_scale(polar_key: str, index: int) -> bool:
    return polar_key.startswith(VERDICT) and polar_key.endswith(f":{index}")


#: English words that join two parts of a sentence, each with its own facts.
ENGLISH_COORDINATORS = frozenset(
    {"and", "or", "but", "while", "whereas", "although", "though", "because"}
)
#: English words that open a conditional clause.
ENGLISH_CONDITIONALS = frozenset({"if", "when", "whenever", "once"})


def _surface_map(morph: Morphology, entries: Iterable[str]) -> dict[str, tuple[str, Form]]:
    """Every inflected form of every entry -> (entry, form); exact entries win."""
    out: dict[str, tuple[str, Form]] = {}
    entries = list(entries)
    for entry in entries:
        for form in _FORMS[1:]:
            out.setdefault(morph.inflect(entry, form), (entry, form))
    for entry in entries:
        out[entry] = (entry, "")
    return out


@dataclass(frozen=True)
class Lexicon:
    """Immutable lookup tables built from ``lexicon.json``."""

    negations: frozenset[str]
    stopwords: frozenset[str]
    auxiliaries: frozenset[str]
    contractions: dict[str, str]
    number_words: dict[str, float]
    morph: Morphology
    antonyms: dict[str, list[str]]
    synonyms: dict[str, list[str]]
    antonym_forms: dict[str, tuple[str, Form]]
    synonym_forms: dict[str, tuple[str, Form]]
    #: stem -> keys shared by words of the same meaning ("syn:3", "stem:saf")
    same_keys: dict[str, frozenset[str]]
    #: stem -> (scale key, polarity) pairs; polarity +1 / -1
    polar_keys: dict[str, tuple[tuple[str, int], ...]]
    drop_sentences: tuple[str, ...]
    lead_ins: tuple[str, ...]
    framing_supportive: tuple[str, ...]
    framing_negating: tuple[str, ...]
    #: generic words ("characterized", "used", "method") that weigh little when verifying
    light_words: frozenset[str] = frozenset()
    #: words that, after a negation and before a number, make a bound rather than a denial:
    #: "not more than 20" is "at most 20", "ne pas dépasser 4 g" is "at most 4 g"
    bound_words: frozenset[str] = frozenset()
    #: prepositions that deny the noun after them ("without", "ohne", "sans"): read as a
    #: negation of that noun only
    without_words: frozenset[str] = frozenset({"without", "unless", "except"})
    #: numbers are written "15.000" and "2,25" (:attr:`~guardrail.lang.base.Language.decimal_comma`)
    decimal_comma: bool = False
    #: words that join the parts of a number written in words ("hundred *and* five", "vinte
    #: *e* dois"; :attr:`~guardrail.lang.base.Language.number_joiners`)
    number_joiners: frozenset[str] = frozenset({"and"})
    #: words that join two parts of a sentence (the language's
    #: :attr:`~guardrail.lang.base.Language.coordinators`): a negation denies nothing across
    #: one ("swallow whole *and* not chew")
    coordinators: frozenset[str] = ENGLISH_COORDINATORS
    #: words that open a conditional clause: a negation before one does not deny the
    #: condition ("do not drive *if* the drops make you drowsy"). English only: elsewhere an
    #: instruction's imperative and a statement's infinitive do not share a root ("ne
    #: conduisez pas" / "pouvez conduire"), and the condition's words are what tie the two.
    conditionals: frozenset[str] = ENGLISH_CONDITIONALS
    #: The language's root of a word (:meth:`~guardrail.lang.base.Language.root`): words of one
    #: root share a key, so inflected forms match. ``None`` for English (its stemmer does it).
    root: Callable[[str], str] | None = field(default=None, compare=False, hash=False)
    #: The language's word without elided articles and joined pronouns
    #: (:meth:`~guardrail.lang.base.Language.base_word`); ``None`` for English.
    base: Callable[[str], str] | None = field(default=None, compare=False, hash=False)
    #: The language's compound parts of a word
    #: (:meth:`~guardrail.lang.base.Language.compound_parts`); ``None`` where words do not join.
    parts: Callable[[str], frozenset[str]] | None = field(default=None, compare=False, hash=False)
    #: root -> synonym keys, for a language with roots: an inflected form of a word of a
    #: synonym group ("Gefahren") finds its group.
    root_same: dict[str, frozenset[str]] = field(default_factory=dict, compare=False, hash=False)
    #: root -> polar keys, for a language with roots: "sconsigliata" finds "sconsigliato"'s.
    root_polar: dict[str, tuple[tuple[str, int], ...]] = field(
        default_factory=dict, compare=False, hash=False
    )
    #: Phrases of several words for "free of charge" ("sans frais"): a context unit holding
    #: one has :data:`FREE_KEY`, as every one-word form of "free" has.
    free_phrases: frozenset[str] = field(default=EN_FREE_PHRASES, compare=False, hash=False)
    #: Every noun is capitalized (German): a capitalized word is then no sign of a name, and
    #: only an acronym ("BAMF") is read as one when verifying.
    capitalized_nouns: bool = False
    #: The language's own dictionary (:func:`guardrail.lang.dictionary.knows`): a word it
    #: knows is an ordinary word, so a sentence's first word is not read as a name value
    #: (:meth:`~guardrail.judges.local.conflict.ConflictCheck.common`).
    dictionary: Callable[[str], bool] | None = field(default=None, compare=False, hash=False)
    #: Numbers written as one word ("duecentocinquanta", "quarante-huit"), for a language that
    #: writes them so (:func:`~guardrail.judges.local.values.joined_number`).
    joined_numbers: Callable[[str], float | None] | None = field(
        default=None, compare=False, hash=False
    )
    #: What the verifier has read of each word it met (see :func:`~.verify.word_reading`):
    #: a cache, not data (at most :data:`~.verify.WORDS_KEPT` entries).
    readings: dict[str, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    @classmethod
    def load(cls) -> Lexicon:
        """Read the packaged ``lexicon.json``."""
        return cls.from_dict(_english_data())

    @classmethod
    def for_language(cls, code: str) -> Lexicon:
        """The lexicon for reading language ``code``: the packaged English one, extended by
        the language module's negations, stopwords, opposites, verdict scales and number
        words (:mod:`guardrail.lang`); English itself, or a language without a module, gets
        the packaged one. Built once per language and process."""
        return _for_language(code)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Lexicon:
        morph = Morphology(data.get("irregular_verbs", {}), data.get("regular_verbs", []))
        antonyms: dict[str, list[str]] = {}
        for a, b in data.get("antonym_pairs", []):
            antonyms.setdefault(a, []).append(b)
            antonyms.setdefault(b, []).append(a)
        synonyms: dict[str, list[str]] = {}
        for group in data.get("synonym_groups", []):
            for word in group:
                bucket = synonyms.setdefault(word, [])
                bucket.extend(w for w in group if w != word and w not in bucket)

        same: dict[str, set[str]] = {}
        for i, group in enumerate(data.get("synonym_groups", [])):
            for word in group:
                for surface in _inflections(morph, word):
                    same.setdefault(stem(surface), set()).add(f"syn:{i}")
        same.setdefault(stem("free"), set()).add(FREE_KEY)

        polar: dict[str, set[tuple[str, int]]] = {}
        for i, (a, b) in enumerate(data.get("antonym_pairs", [])):
            for word, sign in ((a, 1), (b, -1)):
                for surface in _inflections(morph, word):
                    polar.setdefault(stem(surface), set()).add((f"pair:{i}", sign))
        for scale in data.get("polarity_scales", []):
            name = f"{VERDICT if scale.get('verdict') else 'scale:'}{scale['name']}"
            for word in scale.get("positive", []):
                for surface in _inflections(morph, word):
                    polar.setdefault(stem(surface), set()).add((name, 1))
            for word in scale.get("negative", []):
                for surface in _inflections(morph, word):
                    polar.setdefault(stem(surface), set()).add((name, -1))

        return cls(
            negations=frozenset(data.get("negations", [])),
            stopwords=frozenset(data.get("stopwords", [])),
            auxiliaries=frozenset(data.get("auxiliaries", [])),
            contractions=dict(data.get("contractions", {})),
            number_words={k: float(v) for k, v in data.get("number_words", {}).items()},
            morph=morph,
            antonyms=antonyms,
            synonyms=synonyms,
            antonym_forms=_surface_map(morph, antonyms),
            synonym_forms=_surface_map(morph, synonyms),
            same_keys={k: frozenset(v) for k, v in same.items()},
            polar_keys={k: tuple(sorted(v)) for k, v in polar.items()},
            drop_sentences=tuple(data.get("drop_sentences", [])),
            lead_ins=tuple(sorted(data.get("lead_ins", []), key=len, reverse=True)),
            framing_supportive=tuple(data.get("framing_supportive", [])),
            framing_negating=tuple(data.get("framing_negating", [])),
            light_words=frozenset(stem(w) for w in data.get("light_words", [])),
            bound_words=frozenset(data.get("bound_words", [])),
            without_words=frozenset(data.get("without_words", ["without", "unless", "except"])),
            decimal_comma=bool(data.get("decimal_comma", False)),
            number_joiners=frozenset(data.get("number_joiners", ["and"])),
            coordinators=frozenset(data.get("coordinators", ENGLISH_COORDINATORS)),
            conditionals=frozenset(data.get("conditionals", ENGLISH_CONDITIONALS)),
        )

    def is_negation(self, word: str) -> bool:
        """``not``, ``never``, ``cannot``, any ``n't`` contraction ..."""
        w = word.lower().replace("’", "'")
        return w in self.negations or w.endswith("n't")

    def is_content(self, word: str) -> bool:
        """A word that carries meaning: not a stopword, negation or punctuation."""
        w = word.lower()
        return bool(w) and w[0].isalnum() and w not in self.stopwords and not self.is_negation(w)

    def is_known_word(self, word: str) -> bool:
        """An ordinary English word the lexicon knows (so a capital is not a name)."""
        w = word.lower()
        return (
            w in self.stopwords
            or w in self.number_words
            or self.morph.is_known_verb_form(w)
            or w in self.antonym_forms
            or w in self.synonym_forms
            or stem(w) in self.light_words
            or stem(w) in self.polar_keys
        )

    def number_value(self, word: str) -> float | None:
        low = word.lower()
        found = self.number_words.get(low)
        if found is None and self.joined_numbers is not None:
            return self.joined_numbers(low)
        return found


def _inflections(morph: Morphology, word: str) -> set[str]:
    return {word, *(morph.inflect(word, f) for f in _FORMS[1:])}


@lru_cache(maxsize=1)
def _english_data() -> dict[str, Any]:
    raw = resources.files(__package__).joinpath("lexicon.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


@cache
def _for_language(code: str) -> Lexicon:
    lang = language(code)
    if lang is None:
        return _english()
    data = dict(_english_data())
    # An English negation that is an ordinary word of the language (Portuguese "no" is "in
    # the") is not a negation there.
    data["negations"] = [w for w in data.get("negations", []) if w not in lang.stopwords]
    for key, extra in lang.lexicon_data().items():
        base = data.get(key)
        if isinstance(base, dict) and isinstance(extra, dict):
            data[key] = {**base, **extra}
        elif isinstance(base, list) and isinstance(extra, list):
            data[key] = [*base, *extra]
        else:
            data[key] = extra
    # a statement wrapped in another module's language reads too: the answer's language
    # (which the mutations write in) may differ from the passage's
    for other in MODULES:
        module = language(other)
        if module is not None and other != code:
            for key, wraps in (
                ("framing_supportive", module.supportive_wraps),
                ("framing_negating", module.negating_wraps),
            ):
                data[key] = [*data.get(key, []), *(lead(w) for w in wraps)]
    data["conditionals"] = []  # see Lexicon.conditionals: English only
    built = Lexicon.from_dict(data)
    root_same: dict[str, set[str]] = {}
    first = len(_english_data().get("synonym_groups", []))
    for i, group in enumerate(lang.synonyms, start=first):
        for word in group:
            root_same.setdefault(lang.root(word), set()).add(f"syn:{i}")
    # the words for "free of charge" share a key, and a unit holding a phrase for it has it
    # ("gratis" / "zonder kosten")
    for word in lang.free:
        if " " not in word:
            root_same.setdefault(lang.root(word), set()).add(FREE_KEY)
    # a unit word and its abbreviation or other forms share a key ("grammes" / "g")
    for word, (dimension, factor) in tables(code).units.items():
        root_same.setdefault(lang.root(word), set()).add(f"unit:{dimension}:{factor:g}")
    root_polar: dict[str, tuple[tuple[str, int], ...]] = {}
    if lang.endings:
        words = [w for pair in lang.opposites for w in pair]
        words += [w for pos, neg in lang.verdicts for w in (*pos, *neg)]
        for word in words:
            found = built.polar_keys.get(stem(word))
            if found and " " not in word:
                root_polar.setdefault(lang.root(word), found)
    return replace(
        built,
        root_polar=root_polar,
        root=lang.root if lang.endings else None,
        base=lang.base_word if lang.elided or lang.clitics else None,
        parts=lang.compound_parts if lang.compounds else None,
        root_same={k: frozenset(v) for k, v in root_same.items()},
        free_phrases=EN_FREE_PHRASES | {p for p in lang.free if " " in p},
        capitalized_nouns=lang.capitalized_nouns,
        dictionary=partial(knows, code),
        joined_numbers=partial(joined_number, code) if code in JOINED_NUMBERS else None,
    )


@lru_cache(maxsize=1)
def _english() -> Lexicon:
    return Lexicon.from_dict(_english_data())
