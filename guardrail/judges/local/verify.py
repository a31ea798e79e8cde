"""A lexical verifier: is a statement supported, contradicted, or not covered by the context?

How it decides (deterministic, no model):

1. The context is split into sentences, and sentences into clauses (at ";", ", but", ...).
   Each unit is reduced to stems, synonym keys, polarity-scale keys, negation scopes (the
   words each negation governs), numbers and named entities. This preprocessing is done once
   per context (the judge caches it).
2. The statement's content words are weighted by an IDF over the context sentences; words
   the context never uses weigh most, so an unsupported key word drags coverage down.
3. The best unit is the one covering most of that weight (a word counts when its stem, a
   synonym, or a polar opposite appears; a word found only elsewhere in the context counts half).
4. Polarity: negations in the statement + negations in the unit that govern a statement word
   + opposite-word matches ("safe" vs "contraindicated") — odd means the unit says the
   opposite -> ``NO``.
   A number or a named entity in the statement, missing from a well-matched unit that names a
   different one -> ``NO``. Enough coverage with nothing conflicting -> ``YES``. Otherwise
   ``NOT SURE``, naming what the context does not mention.

What it cannot do: paraphrases beyond its word lists, reasoning across sentences, arithmetic,
coreference ("it" is not resolved), scope ("throughout" vs "in the third trimester").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import lru_cache
from typing import NamedTuple

from guardrail.judges.local.lexicon import (
    ENGLISH_COORDINATORS,
    FREE_KEY,
    VERDICT,
    Lexicon,
    is_requirement,
)
from guardrail.text.edits import strip_citations, strip_passage_label
from guardrail.text.sentences import split_sentences
from guardrail.text.stemming import stem
from guardrail.text.tokens import Token, parse_number, tokenize

_CLAUSE_BREAK = re.compile(
    r";\s+|,\s+(?=(?:but|whereas|while|although|though|however|yet|except)\b)", re.IGNORECASE
)
_NEGATING_CLAIM = re.compile(
    r"^the\s+(?:claim|statement|idea|notion)\s+that\s+(.+?)\s+is\s+(?:false|incorrect|untrue|wrong)\W*$",
    re.IGNORECASE | re.DOTALL,
)
_NOT_NEGATION_AFTER = frozenset({"only", "just", "merely", "necessarily", "all", "every"})
_MAX_QUOTE = 160


class Support(str, Enum):
    """The verifier's three answers (mapped to YES/NO/NOT SURE or RT4CHART labels)."""

    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Finding:
    """An outcome and a one-line reason that names the evidence or the missing item."""

    outcome: Support
    reason: str


@dataclass(frozen=True)
class Term:
    """One content word of a text, with everything needed to match it."""

    surface: str
    stem: str
    same: frozenset[str]
    polar: tuple[tuple[str, int], ...]
    number: float | None
    entity: bool
    light: bool = False
    #: The word and its root, in a language that joins compounds (else empty).
    forms: frozenset[str] = frozenset()
    #: The pieces the word may be a compound of (see
    #: :meth:`~guardrail.lang.base.Language.compound_parts`).
    parts: frozenset[str] = frozenset()
    #: Capitalized where a name would be, in a language that capitalizes every noun: not
    #: weighed as a name, but a rival another unit may hold (see ``entities.swapped_roles``).
    namelike: bool = False


@dataclass(frozen=True)
class Unit:
    """A context sentence or clause, preprocessed for matching."""

    text: str
    sentence: int
    stems: frozenset[str]
    same: frozenset[str]
    polar: dict[str, frozenset[int]]
    numbers: frozenset[float]
    entities: frozenset[str]
    size: int
    #: For each negation, the stems it governs (see :func:`negation_scopes`).
    scopes: tuple[frozenset[str], ...] = ()
    #: Its words and their roots, and the pieces its compounds may be made of (a language
    #: that joins compounds; else empty).
    forms: frozenset[str] = frozenset()
    parts: frozenset[str] = frozenset()
    #: The scopes of its negations that deny what its main clause says: none inside a
    #: relative or conditional clause ("Complaints *that we cannot resolve* ..."), none that
    #: bounds an amount ("must not exceed 8 hours").
    denials: tuple[frozenset[str], ...] = ()

    def holds(self, term: Term) -> bool:
        """The unit has the statement's word ``term`` (or a word of its meaning)."""
        return term.stem in self.stems or bool(term.same & self.same)

    def negations_about(self, terms: Iterable[Term]) -> int:
        """Negations of this unit that govern one of ``terms`` (or govern nothing we can see).

        A long context sentence often negates something the statement does not talk about
        ("Arthritis is not a single disease; it is an informal way of referring to joint
        pain"): counting that negation would make a faithful statement look reversed.
        """
        keys: set[str] = set()
        for t in terms:
            keys.add(t.stem)
            keys.update(t.same)
            keys.update(k for k, _ in t.polar if k.startswith(VERDICT))
        return sum(1 for scope in self.scopes if not scope or scope & keys)


@dataclass(frozen=True)
class ContextIndex:
    """Everything about one context that does not depend on the statement."""

    units: tuple[Unit, ...]
    df: dict[str, int]
    sentences: int
    #: key -> units using it. Its keys are those of ``df``: a clause's keys are its sentence's.
    postings: dict[str, tuple[int, ...]]
    lower_vocab: frozenset[str]
    #: The heading the passage opens with ("Greyfield Foods pay policy: Hours over 40 ..."),
    #: as a unit of its own: what it names is said of every sentence after it. ``None`` when
    #: the first sentence opens with no short heading before a colon, or the passage has one
    #: sentence.
    header: Unit | None = None


def negation_positions(tokens: list[Token], lex: Lexicon) -> list[int]:
    """Indices of the tokens that negate ("not", "never", "n't" ...; not "not only", "no doubt")."""
    out: list[int] = []
    negations = lex.negations
    for i, tok in enumerate(tokens):
        if not tok.text[:1].isalpha():
            continue
        low = tok.lower  # lower-cased with a plain apostrophe: what is_negation compares
        nxt = tokens[i + 1].lower if i + 1 < len(tokens) else ""
        if (low in _FREE_OF and nxt == "of") or low in lex.without_words:
            if low in lex.without_words and bounds_a_number(tokens, i, lex):
                continue  # "without exceeding 3 tablets": at most 3, no denial
            if without_scope(tokens, i, lex) or low in _FREE_OF:
                out.append(i)  # "free of charge": no charge; "without notice": no notice
            continue
        if low not in negations and not low.endswith("n't"):
            continue
        if tok.lower == "not" and nxt in _NOT_NEGATION_AFTER:
            continue
        if tok.lower == "no" and nxt in ("doubt",):
            continue
        if bounds_a_number(tokens, i, lex):
            continue
        if i == 0 and nxt in _ANSWER_BREAK:
            continue  # "No, ..." / "Não, ...": a reply to the question, not a denial of the rest
        out.append(i)
    return out


#: "free of X" denies X ("free of charge" is no charge), as a negation does.
_FREE_OF = frozenset({"free"})
#: What follows a negation that opens a text and only answers the question ("No, ...").
_ANSWER_BREAK = frozenset({",", "!", ";", "–", "—"})
#: Tokens after a bound word searched for the number it bounds (and after a negation that
#: follows its bound word, "ne dépassez *pas* 3 g").
_BOUND_REACH = 3
#: Tokens after a negation searched for a bound word ("will not be scheduled for *more* than").
_BOUND_WORD_REACH = 5


def bounds_a_number(tokens: list[Token], i: int, lex: Lexicon) -> bool:
    """Whether the negation at ``i`` makes a bound on a number rather than a denial: "must
    not work more than 20 hours" says "at most 20 hours"; "nicht mehr als 20" likewise."""
    if not lex.bound_words:
        return False
    if i >= 1 and any(t.lower in lex.bound_words for t in tokens[max(0, i - 2) : i]):
        # the second part of a split negation after its verb ("ne dépassez *pas* 3 g")
        after = tokens[i + 1 : i + 2 + _BOUND_REACH]
        if any(t.is_number or lex.number_value(t.lower) is not None for t in after):
            return True
    end = min(len(tokens), i + 1 + _BOUND_WORD_REACH)
    for j in range(i + 1, end):
        if tokens[j].lower in lex.bound_words:
            after = tokens[j + 1 : j + 2 + _BOUND_REACH]
            return any(t.is_number or lex.number_value(t.lower) is not None for t in after)
        if tokens[j].text in _SCOPE_BREAK:
            return False
    return False


#: Content words after a negation that it is taken to govern (up to a clause break).
NEGATION_SCOPE = 4
_SCOPE_BREAK = frozenset({",", ";", ":", ".", "!", "?", "(", ")"})
_SCOPE_STOP = ENGLISH_COORDINATORS
#: "Or" in each language: a negation denies every alternative after it ("no tome alcohol *o*
#: drogas" denies both), so the scope goes on past it.
_ALTERNATIVES = frozenset({"or", "oder", "o", "ou", "of"})


#: Negations that deny the noun after them only ("through *no* fault of your own", "*keine*
#: Gebühr"): the word before them is not theirs.
_NO_NOUN = frozenset(
    "no kein keine keinen keinem keiner keines geen ningún ninguna ninguno nessun nessuna "
    "nessuno nenhum nenhuma".split()
)


#: Nouns for a price: a negation right before one ("no fee") denies the price only, and says
#: that what the sentence names is free ("no *pay*" is no wage, not free: not one of them).
_PRICE_NOUNS = frozenset({"fee", "fees", "charge", "charges", "cost", "costs"})
#: Verbs of a price: "nothing" right after one ("costs nothing", "pay nothing") says free.
_PRICE_VERBS = frozenset({"cost", "costs", "pay", "pays"})


def _denied_price(tokens: list[Token], i: int) -> str:
    """The price word the negation at ``i`` denies ("*no* fee", "costs *nothing*"), or ""."""
    low = tokens[i].lower
    if low in ("no", "without") and i + 1 < len(tokens) and tokens[i + 1].lower in _PRICE_NOUNS:
        return tokens[i + 1].lower
    if low == "nothing" and i >= 1 and tokens[i - 1].lower in _PRICE_VERBS:
        return tokens[i - 1].lower
    if low == "nothing" and [t.lower for t in tokens[i + 1 : i + 3]] == ["to", "pay"]:
        return "pay"
    return ""


def negation_scopes(tokens: list[Token], lex: Lexicon) -> tuple[frozenset[str], ...]:
    """The stems each negation governs: the next few content words and the word before."""
    scopes: list[frozenset[str]] = []
    for i in negation_positions(tokens, lex):
        scope: set[str] = set()
        if tokens[i].lower in _FREE_OF:  # "free of charge" denies the charge, nothing else
            found = next((t for t in tokens[i + 2 : i + 4] if t.is_word), None)
            if found is not None and lex.is_content(found.lower):
                scope.add(stem(found.lower))
            scopes.append(frozenset(scope))
            continue
        if tokens[i].lower in lex.without_words:  # "without notice": the notice, nothing else
            scopes.append(without_scope(tokens, i, lex))
            continue
        price = _denied_price(tokens, i)
        if price:  # "no fee for an appeal", "costs nothing": the price, not the appeal
            scopes.append(frozenset({stem(price)}))
            continue
        noun_only = tokens[i].lower in _NO_NOUN
        reach = NEGATION_SCOPE
        for before in reversed(tokens[:i] if not noun_only else []):
            if before.text in _SCOPE_BREAK or before.lower in lex.coordinators:
                break  # "swallow whole *and* not open": "whole" is not denied
            if before.is_word and lex.is_content(before.lower):
                scope.add(stem(before.lower))  # the verb of a negation after it ("mangez pas")
                reach += 1
                break
        for later in tokens[i + 1 :]:
            if later.text in _SCOPE_BREAK or later.lower in _SCOPE_STOP:
                break
            if later.lower in lex.coordinators and later.lower not in _ALTERNATIVES:
                break  # "no conduzca *y* llame al médico": the call is not denied
            if scope and later.lower in lex.conditionals:
                break  # "do not lift loads *if* the wound is open": the wound is not denied
            if noun_only and later.lower in lex.auxiliaries:
                break  # "no exam results yet *can* enrol": the noun phrase ends at its verb
            if later.is_number or (later.is_word and lex.is_content(later.lower)):
                scope.add(later.text.rstrip("%") if later.is_number else stem(later.lower))
                if later.is_word:
                    # a negated verdict word governs the verdict ("must not be taken" is a
                    # verdict on acceptability): a statement's verdict on that scale is about it
                    polar = lex.polar_keys.get(stem(later.lower), ())
                    scope.update(k for k, _ in polar if k.startswith(VERDICT))
                if len(scope) >= reach:
                    break
        scopes.append(frozenset(scope))
    return tuple(scopes)


#: Content words "without" governs ("without giving 24 hours' *notice*").
_WITHOUT_REACH = 3
#: Nouns that make "without" an idiom for "fine" ("sin problema", "without any trouble").
_WITHOUT_IDIOMS = frozenset(
    "problem problems issue issues trouble difficulty difficulties worry worries problema "
    "problemas problemi problème problèmes souci soucis probleme problemen probleem "
    "schwierigkeiten dificultad dificultades difficulté difficultés difficoltà dificuldade "
    "dificuldades moeite".split()
)


#: Nouns that "without" turns into *safely* ("sans risque", "sin riesgo", "ohne Gefahr").
_RISKS = frozenset(
    "risk risks risque risques riesgo riesgos rischio rischi risco riscos risiko risiken "
    "risico gefahr gevaar danger peligro pericolo perigo".split()
)


def _safely(low: str, lex: Lexicon) -> bool:
    """``low`` is a risk noun the language's verdict words do not hold: after "without" the
    phrase says *safely* and neither word is a fact the passage must hold. (A risk noun on the
    verdict scale, English's "risk" or French "danger", is read by the scale: "without" then
    negates a negative verdict.)"""
    return low in _RISKS and not word_reading(low, lex).polar


def _safely_phrase(tokens: list[Token], i: int, lex: Lexicon) -> bool:
    """``tokens[i]`` is a word of a "without risk" phrase (:func:`_safely`): its "without"
    or its noun, "any" allowed between."""
    low = tokens[i].lower
    if low in lex.without_words:
        for tok in tokens[i + 1 : i + 4]:
            if not tok.is_word:
                return False
            if lex.is_content(tok.lower):
                return _safely(tok.lower, lex)
        return False
    if not _safely(low, lex):
        return False
    for j in range(i - 1, max(-1, i - 3), -1):
        if tokens[j].lower in lex.without_words:
            return True
        if not tokens[j].is_word or lex.is_content(tokens[j].lower):
            return False
    return False


def without_scope(tokens: list[Token], i: int, lex: Lexicon) -> frozenset[str]:
    """The stems "without" (``tokens[i]``) denies: the content words of the noun phrase after
    it, up to :data:`_WITHOUT_REACH` ("without notice and without compensation": notice)."""
    scope: list[str] = []
    for later in tokens[i + 1 :]:
        if later.text in _SCOPE_BREAK or later.lower in _SCOPE_STOP:
            break
        if later.is_word and lex.is_content(later.lower):
            if not scope and (later.lower in _WITHOUT_IDIOMS or _safely(later.lower, lex)):
                return frozenset()  # "without any problem" is "fine", not a denial
            scope.append(stem(later.lower))
            if len(scope) >= _WITHOUT_REACH:
                break
        elif scope and not later.is_number and later.text not in ("'", "’"):
            break  # the noun phrase ended ("without notice *to* the tenant")
    return frozenset(scope)


class WordReading(NamedTuple):
    """What the verifier reads of one lower-cased word (the same in every text and context)."""

    #: A content word (not a stop word, negation or punctuation).
    content: bool
    stem: str
    same: frozenset[str]
    polar: tuple[tuple[str, int], ...]
    number: float | None
    light: bool
    #: A stop word, negation or number word: never part of a name.
    unnamed: bool
    #: A word the lexicon knows, so a capitalized first word is not taken for a name.
    known: bool
    #: The word and its root, and its compound parts (a language that joins compounds).
    forms: frozenset[str] = frozenset()
    parts: frozenset[str] = frozenset()


#: Words whose reading one lexicon remembers.
WORDS_KEPT = 65536
#: Words longer than this are keyed by their language's root too (shorter ones as written).
ROOT_KEYED = 4


def word_reading(low: str, lex: Lexicon) -> WordReading:
    """The reading of ``low`` (a token's :attr:`~guardrail.text.tokens.Token.lower`), remembered
    on the lexicon."""
    found: WordReading | None = lex.readings.get(low)
    if found is None and lex.base is not None:
        base = lex.base(low)
        if base != low:
            found = word_reading(base, lex)
            if len(lex.readings) < WORDS_KEPT:
                lex.readings[low] = found
            return found
    if found is None:
        s = stem(low)
        number = lex.number_value(low)
        if low in ("one", "first", "once"):
            number = None  # too often a pronoun or an idiom to compare as a number
        same = lex.same_keys.get(s, frozenset())
        forms: frozenset[str] = frozenset()
        parts: frozenset[str] = frozenset()
        if lex.parts is not None and lex.root is not None:
            forms = frozenset({low, lex.root(low)})
            parts = lex.parts(low)
        if lex.root is not None:
            same = same | _root_keys(low, lex.root) | lex.root_same.get(lex.root(low), frozenset())
        else:
            same = same | derived_keys(low)
        found = WordReading(
            content=lex.is_content(low),
            stem=s,
            same=same,
            polar=lex.polar_keys.get(s, ())
            or (lex.root_polar.get(lex.root(low), ()) if lex.root is not None else ()),
            number=number,
            light=s in lex.light_words,
            unnamed=low in lex.stopwords or lex.is_negation(low) or low in lex.number_words,
            known=lex.is_known_word(low),
            forms=forms,
            parts=parts,
        )
        if len(lex.readings) < WORDS_KEPT:
            lex.readings[low] = found
    return found


#: English suffixes that make a noun of an adjective (or the other way round), by class:
#: "pregnant" / "pregnancy", "resident" / "residence", "eligible" / "eligibility".
_DERIVED = (
    ("ancies", "a"), ("ancy", "a"), ("ance", "a"), ("ants", "a"), ("ant", "a"),
    ("encies", "e"), ("ency", "e"), ("ence", "e"), ("ents", "e"), ("ent", "e"),
    ("bilities", "b"), ("bility", "b"), ("bly", "b"), ("ble", "b"),
)  # fmt: skip
#: Shortest stem left once such a suffix is cut.
_DERIVED_STEM = 4
#: Stems whose two forms mean different things ("current" / "currency", "patient" /
#: "patience", "present" / "presence").
_DERIVED_APART = frozenset({"curr", "pati", "pres", "cli"})


#: Nouns made of a verb with "-ment" ("payment" / "pay", "treatment" / "treat"): such a
#: noun's key is :data:`NOUN_OF` and its verb's stem, so the verb matches it.
_MENT = ("ments", "ment")
NOUN_OF = "noun-of:"
#: Verbs whose "-ment" noun means something else ("department", "basement", "statement").
_MENT_APART = frozenset(
    {"depart", "apart", "base", "state", "supple", "imple", "comple", "docu", "instru",
     "experi", "argu", "ele", "gar", "seg", "frag", "orna", "senti", "settle", "move", "com",
     "pig", "fer", "tor"}
)  # fmt: skip


def derived_keys(low: str) -> frozenset[str]:
    """The key an English word shares with the words derived from the same stem by one of
    :data:`_DERIVED`'s suffixes, or a "-ment" noun's key for its verb (:data:`NOUN_OF`);
    none for other words."""
    for suffix in _MENT:
        if low.endswith(suffix):
            base = low[: -len(suffix)]
            if len(base) >= 3 and base.isalpha() and base not in _MENT_APART:
                return frozenset({f"{NOUN_OF}{stem(base)}"})
            return frozenset()
    for suffix, kind in _DERIVED:
        if low.endswith(suffix):
            base = low[: -len(suffix)]
            if len(base) >= _DERIVED_STEM and base.isalpha() and base not in _DERIVED_APART:
                return frozenset({f"der:{base}|{kind}"})
            return frozenset()
    return frozenset()


#: An elided article or pronoun before an apostrophe ("l'allocation", "dell'anno", "d'asile").
_ELIDED = re.compile(r"^[^\W\d_]{1,4}['’]")


def _root_keys(low: str, root: Callable[[str], str]) -> frozenset[str]:
    """The root key of a word of a language with roots, read without an elided article
    ("l'allocation" shares "allocations"'s root); none for a short word."""
    word = _ELIDED.sub("", low)
    return frozenset({f"root:{root(word)}"}) if len(word) > ROOT_KEYED else frozenset()


#: Scale words that multiply the number before them ("quince *mil*", "2 *million*").
_SCALES = frozenset({100.0, 1000.0, 1_000_000.0, 1_000_000_000.0})


def _composed(before: float, after: float) -> float | None:
    """The number two adjacent number words make ("vinte" "dois" = 22, "quince" "mil" =
    15000, "two" "hundred" = 200), or None when they are two numbers ("two three")."""
    if after in _SCALES and after > before:
        return before * after
    if before >= 20 and before % 10 == 0 and after < 10 and before < 100:
        return before + after
    if before >= 100 and after < before and after < 100 and before % 100 == 0:
        return before + after
    return None


def _terms(tokens: list[Token], lex: Lexicon, lower_vocab: frozenset[str]) -> list[Term]:
    out: list[Term] = []
    at: list[int] = []  # the token index of each term
    first_word = next((i for i, t in enumerate(tokens) if t.is_word), -1)
    last_number = -2  # the token index of the last term's number (to compose the next with)
    for i, tok in enumerate(tokens):
        text = tok.text
        head = text[:1]
        if head.isdigit():
            value = parse_number(text, decimal_comma=lex.decimal_comma)
            out.append(Term(text, text.rstrip("%"), frozenset(), (), value, False))
            at.append(i)
            last_number = i
            continue
        if not head.isalpha():
            continue
        low = tok.lower
        reading = word_reading(low, lex)
        if reading.number is not None and out and out[-1].number is not None:
            between = tokens[last_number + 1 : i]
            made = _composed(out[-1].number, reading.number)
            if made is not None and all(t.lower in lex.number_joiners for t in between):
                out[-1] = replace(out[-1], surface=f"{out[-1].surface} {text}", number=made)
                last_number = i
                continue
        if not reading.content or _safely_phrase(tokens, i, lex):
            continue
        if not head.isupper() or reading.unnamed:
            entity = False
        elif text.isupper() and len(text) >= 2:
            entity = True  # acronyms
        elif i == first_word and reading.known:
            entity = False  # "Transfer the potatoes ..." starts with a verb, not a name
        else:
            entity = low not in lower_vocab
        namelike = False
        if entity and lex.capitalized_nouns and not text.isupper():
            entity, namelike = False, True  # German capitalizes every noun: not a sign of a name
        out.append(
            Term(
                surface=text,
                stem=reading.stem,
                same=reading.same,
                polar=reading.polar,
                number=reading.number,
                entity=entity,
                light=reading.light,
                forms=reading.forms,
                parts=reading.parts,
                namelike=namelike,
            )
        )
        at.append(i)
        if reading.number is not None:
            last_number = i
    return _carried(out, at, tokens)


#: Tokens from a verdict word to the verdict word it may govern ("advises pregnant women to
#: avoid").
_CARRY_REACH = 5
#: Words that end the stretch a verdict word governs, in every language ("safe *and* effective"
#: are two verdicts, not one about the other).
_CARRY_STOP = _SCOPE_STOP | frozenset(
    "und oder aber et ou mais y o pero e ed ma en of maar".split()
)


#: Words that mark the verb a verdict word governs ("recommends *to* avoid", "raccomanda *di*
#: evitare", "recommande *d'*éviter", "empfiehlt *zu* meiden", "raadt aan *te* vermijden").
_TO = frozenset({"to", "di", "de", "d", "d'", "zu", "te", "a"})


def _carried(terms: list[Term], at: list[int], tokens: list[Token]) -> list[Term]:
    """``terms``, a positive verdict word that governs a negative one ("recommends
    *avoiding*", "raccomanda di *evitare*", "must *avoid*") left without a verdict of its own:
    it passes the governed verdict on ("recommends avoiding X" says "avoid X", not "X is
    recommended")."""
    if sum(1 for t in terms if _verdict_signs(t)) < 2:
        return terms
    out = list(terms)
    for j, term in enumerate(terms):
        if _verdict_signs(term) != {1}:
            continue
        for k in range(j + 1, len(terms)):
            between = tokens[at[j] + 1 : at[k]]
            if at[k] - at[j] > _CARRY_REACH or any(
                t.text in _SCOPE_BREAK or t.lower in _CARRY_STOP for t in between
            ):
                break
            if _verdict_signs(terms[k]):
                if at[k] - at[j] > 1 and tokens[at[k] - 1].lower not in _TO:
                    break  # "permitted *without problems*": a noun, not a verb governed
                if -1 not in _verdict_signs(terms[k]):
                    break  # "recommends taking": the same verdict, left as it is
                kept = tuple((key, sign) for key, sign in term.polar if not key.startswith(VERDICT))
                out[j] = replace(term, polar=kept)
                break
    return out


def _verdict_signs(term: Term) -> set[int]:
    return {sign for key, sign in term.polar if key.startswith(VERDICT)}


#: Words that open a relative or conditional clause, in every language: a negation just after
#: one denies within that clause only.
_SUBORDINATE = frozenset(
    "that which who whose if unless when where whom que qui si quand lorsque cuando donde "
    "che se quando dove cui dass wenn falls weil dat wanneer indien omdat quem onde caso "
    "welche welcher".split()
)
#: Tokens before a negation searched for a word of :data:`_SUBORDINATE`.
_SUBORDINATE_REACH = 3


def _header_unit(units: list[Unit], lex: Lexicon, lower_vocab: frozenset[str]) -> Unit | None:
    """The heading of a passage whose units are ``units`` (see :attr:`ContextIndex.header`)."""
    if not units or len({u.sentence for u in units}) < 2:
        return None
    head, colon, _ = units[0].text.partition(": ")
    if not colon or not 1 <= len(head.split()) <= _HEADER_WORDS:
        return None
    return _unit(head, -1, lex, lower_vocab)


#: The most words a passage's heading holds.
_HEADER_WORDS = 8


def _unit(text: str, sentence: int, lex: Lexicon, lower_vocab: frozenset[str]) -> Unit:
    tokens = tokenize(text, "lexical")
    terms = _terms(tokens, lex, lower_vocab)
    polar: dict[str, set[int]] = {}
    for t in terms:
        for key, sign in t.polar:
            polar.setdefault(key, set()).add(sign)
    scopes = negation_scopes(tokens, lex)
    # a negated word's synonym keys are negated with it ("no alcohol" denies "beer")
    same_of = {t.stem: {k for k in t.same if k.startswith("syn:")} for t in terms if t.same}
    if any(same_of.values()):
        scopes = tuple(sc | {k for w in sc for k in same_of.get(w, ())} for sc in scopes)
    denials = tuple(
        scope
        for i, scope in zip(negation_positions(tokens, lex), scopes, strict=True)
        if not any(t.lower in _SUBORDINATE for t in tokens[max(0, i - _SUBORDINATE_REACH) : i])
        and not any(w[:1].isdigit() for w in scope)
    )
    same = {k for t in terms for k in t.same}
    if lex.free_phrases and any(p in text.lower() for p in lex.free_phrases):
        same.add(FREE_KEY)
    return Unit(
        text=text,
        sentence=sentence,
        stems=frozenset(t.stem for t in terms),
        same=frozenset(same),
        polar={k: frozenset(v) for k, v in polar.items()},
        numbers=frozenset(t.number for t in terms if t.number is not None),
        entities=frozenset(t.stem for t in terms if t.entity or t.namelike),
        size=len(terms),
        scopes=scopes,
        denials=denials,
        forms=frozenset(f for t in terms for f in t.forms),
        parts=frozenset(p for t in terms for p in t.parts),
    )


def _keys(unit: Unit) -> Iterable[str]:
    yield from unit.stems
    yield from unit.same
    yield from unit.polar
    yield from (f"num:{n:g}" for n in unit.numbers)
    yield from (f"part:{p}" for p in unit.parts)
    yield from (f"form:{f}" for f in unit.forms)


def index_context(context: str, lex: Lexicon) -> ContextIndex:
    """Preprocess a context once; every verify call for the same answer reuses it."""
    lower_vocab = frozenset(
        t.lower for t in tokenize(context, "lexical") if t.is_word and not t.is_capitalized
    )
    units: list[Unit] = []
    df: dict[str, int] = {}
    n_sentences = 0
    for start, end in split_sentences(context, rules="passages"):
        sentence = strip_citations(strip_passage_label(context[start:end])).strip()
        if not sentence:
            continue
        whole = _unit(sentence, n_sentences, lex, lower_vocab)
        if whole.size == 0:
            continue
        units.append(whole)
        for key in set(_keys(whole)):
            df[key] = df.get(key, 0) + 1
        clauses = [c.strip() for c in _CLAUSE_BREAK.split(sentence) if c and c.strip()]
        if len(clauses) > 1:
            for clause in clauses:
                part = _unit(clause, n_sentences, lex, lower_vocab)
                if part.size:
                    units.append(part)
        n_sentences += 1
    postings: dict[str, list[int]] = {}
    for i, unit in enumerate(units):
        for key in set(_keys(unit)):
            postings.setdefault(key, []).append(i)
    return ContextIndex(
        units=tuple(units),
        df=df,
        sentences=n_sentences,
        postings={k: tuple(v) for k, v in postings.items()},
        lower_vocab=lower_vocab,
        header=_header_unit(units, lex, lower_vocab),
    )


def _strip_framing(statement: str, lex: Lexicon) -> tuple[str, int]:
    """Remove "It is true that" / "It is not true that" wrappers; return extra negations."""
    text = statement.strip().strip("\"'“”")
    extra = 0
    for _ in range(3):
        low = text.lower()
        m = _NEGATING_CLAIM.match(text)
        if m:
            text, extra = m.group(1), extra + 1
            continue
        for prefix in lex.framing_negating:
            if low.startswith(prefix + " ") or low.startswith(prefix + ","):
                text, extra = text[len(prefix) :].lstrip(" ,"), extra + 1
                break
        else:
            for prefix in lex.framing_supportive:
                if low.startswith(prefix):
                    text = text[len(prefix) :].lstrip(" ,")
                    break
            else:
                break
    return text, extra


def _term_keys(term: Term) -> Iterable[str]:
    yield term.stem
    yield from term.same
    yield from (k for k, _ in term.polar)
    if term.number is not None:
        yield f"num:{term.number:g}"
    # a compound and its parts find each other (see _joined)
    yield from (f"part:{f}" for f in term.forms)
    yield from (f"form:{p}" for p in term.parts)


@dataclass
class _Match:
    unit: Unit
    coverage: float
    opposed: list[Term]
    missing: list[Term]
    #: Some opposed term is opposed on a verdict scale ("safe" against "contraindicated"), not
    #: only relationally ("before"/"after") or by a prefix ("closed"/"disclosed"); or a
    #: verdict word matches one the unit negates ("safe" against "must not be taken").
    decisive: bool = False


#: Prefixes that make a word's opposite ("unsafe", "nonsmoker", "dislike").
_NEGATING_PREFIXES = ("un", "non", "in", "im", "ir", "il", "dis")


@lru_cache(maxsize=32768)
def _opposite_forms(stem_text: str) -> tuple[str, ...]:
    """Stems that say the opposite of ``stem_text`` by a prefix: it without its negating prefix,
    and it with each one."""
    out: list[str] = []
    for prefix in _NEGATING_PREFIXES:
        if stem_text.startswith(prefix):
            out.append(stem_text[len(prefix) :])
        out.append(prefix + stem_text)
    return tuple(out)


def _joined(term: Term, unit: Unit) -> bool:
    """Whether ``term`` is a part of a compound of ``unit`` ("Nase" / "Nasenschleimhaut") or a
    compound with a word of ``unit`` as a part ("Kaltmiete" / "Miete")."""
    return not term.forms.isdisjoint(unit.parts) or not term.parts.isdisjoint(unit.forms)


def _noun_of(term: Term, unit: Unit) -> bool:
    """Whether ``term`` is the verb of a "-ment" noun of ``unit`` ("pay" / "payment"), or a
    "-ment" noun whose verb ``unit`` holds."""
    if f"{NOUN_OF}{term.stem}" in unit.same:
        return True
    return any(k.startswith(NOUN_OF) and k[len(NOUN_OF) :] in unit.stems for k in term.same)


def _match(unit: Unit, terms: list[Term], weights: list[float], elsewhere: list[bool]) -> _Match:
    got = 0.0
    total = sum(weights) or 1.0
    opposed: list[Term] = []
    missing: list[Term] = []
    decisive = False
    stems, numbers, same, polar = unit.stems, unit.numbers, unit.same, unit.polar
    for i, (term, weight) in enumerate(zip(terms, weights, strict=True)):
        if term.stem in stems or (term.number is not None and term.number in numbers):
            got += weight
            continue
        if not term.same.isdisjoint(same) or _noun_of(term, unit):
            got += weight
            continue
        relation = 0
        verdict = False
        for key, sign in term.polar:
            signs = polar.get(key)
            if signs:
                relation = 1 if sign in signs else -1
                if relation == 1:
                    # a verdict the unit negates ("harmless" / "must not be taken") is as
                    # explicit as an opposite verdict word
                    if key.startswith(VERDICT) and any(key in sc for sc in unit.scopes):
                        decisive = True
                    break
                verdict = verdict or key.startswith(VERDICT)
        prefixable = relation == 0 and len(term.stem) > 4
        if prefixable and not stems.isdisjoint(_opposite_forms(term.stem)):
            relation = -1
        if relation == 0 and term.forms and _joined(term, unit):
            relation = 1
        if relation == 1:
            got += weight
        elif relation == -1:
            got += weight
            opposed.append(term)
            decisive = decisive or verdict
        else:
            missing.append(term)
            if elsewhere[i]:
                got += 0.5 * weight
    return _Match(unit, min(1.0, got / total), opposed, missing, decisive)


def _quote(text: str) -> str:
    one_line = " ".join(text.split())
    if len(one_line) > _MAX_QUOTE:
        one_line = one_line[: _MAX_QUOTE - 3].rstrip() + "..."
    return f'"{one_line}"'


#: A context excerpt for a reason line: one line, at most a few words, in quotes.
quote = _quote


def _names(terms: Iterable[Term], limit: int = 4) -> str:
    seen: list[str] = []
    for t in terms:
        if t.surface.lower() not in (s.lower() for s in seen):
            seen.append(t.surface)
    return ", ".join(seen[:limit])


@dataclass(frozen=True)
class Thresholds:
    """Coverage needed to answer YES, and to call a polarity or value clash a NO."""

    support: float = 0.72
    conflict: float = 0.6


@dataclass
class Assessment:
    """The rule verifier's finding plus the intermediate evidence behind it.

    The trained verifier (:mod:`guardrail.judges.local.features`) turns these intermediates into
    features, so both verifiers share one matching pass instead of computing it twice.
    """

    finding: Finding
    terms: list[Term] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)
    best: _Match | None = None
    negations: int = 0
    parity: int = 0
    tokens: list[Token] = field(default_factory=list)
    framing: int = 0
    #: Per term: the context uses one of its keys somewhere (not necessarily in ``best``).
    elsewhere: list[bool] = field(default_factory=list)
    #: The statement with its framing ("It is not true that ...") stripped.
    core: str = ""


def verify(
    statement: str,
    index: ContextIndex,
    lex: Lexicon,
    thresholds: Thresholds | None = None,
) -> Finding:
    """Decide whether ``index``'s context supports, contradicts or does not cover ``statement``."""
    return assess(statement, index, lex, thresholds).finding


@dataclass(frozen=True)
class _Core:
    """What :func:`assess` reads from a statement's core (framing stripped): the same for
    "X", "It is true that X" and "It is not true that X", so it is computed once."""

    tokens: list[Token]
    terms: list[Term]
    negations: int
    weights: list[float]
    elsewhere: list[bool]
    best: _Match | None


def _read_core(core: str, index: ContextIndex, lex: Lexicon) -> _Core:
    tokens = tokenize(core, "lexical")
    terms = _terms(tokens, lex, index.lower_vocab)
    if not terms or not index.units:
        return _Core(tokens, terms, 0, [], [], None)
    negations = len(negation_positions(tokens, lex))
    n = index.sentences
    weights: list[float] = []
    elsewhere: list[bool] = []
    df_of, postings = index.df.get, index.postings.get
    candidates: set[int] = set()
    # per unit: how much more than their "found elsewhere" half the terms it may match weigh
    reach: dict[int, float] = {}
    elsewhere_half = 0.0
    for term in terms:
        keys = list(_term_keys(term))
        df = max([df_of(k, 0) for k in keys])  # the stem is always a key
        found: set[int] = set()
        for key in keys:
            found.update(postings(key, ()))
        candidates |= found
        weight = math.log((n + 1) / (df + 0.5)) + 1.0 if df else math.log(n + 1) + 1.0
        if term.entity or term.namelike or term.number is not None:
            weight *= 1.5
        elif term.light:
            weight *= 0.25
        weights.append(weight)
        elsewhere.append(df > 0)
        if len(term.stem) > 4:  # a prefixed opposite counts as covered too (see _match)
            for form in _opposite_forms(term.stem):
                found.update(postings(form, ()))
        gain = 0.5 * weight if df > 0 else weight
        elsewhere_half += weight - gain
        for unit in found:
            reach[unit] = reach.get(unit, 0.0) + gain
    # The best unit: the highest coverage (to 6 decimals), then the smallest unit, then the
    # first one. Units are tried by the coverage they could reach at most (every term that
    # may match them counted in full): once that bound is short of the best coverage found,
    # no unit left can win, so the rest are not matched. (The margin is far above rounding.)
    total = sum(weights) or 1.0
    best: _Match | None = None
    best_rank = ((-1.0, 0), 0)
    for i in sorted(candidates, key=lambda i: (-reach[i], i)):
        if best is not None and (elsewhere_half + reach[i]) / total < best_rank[0][0] - 1e-6:
            break
        m = _match(index.units[i], terms, weights, elsewhere)
        rank = ((round(m.coverage, 6), -m.unit.size), -i)
        if rank > best_rank:
            best, best_rank = m, rank
    return _Core(tokens, terms, negations, weights, elsewhere, best)


#: The verdict scale of obligation ("required" / "optional").
_REQUIREMENT = f"{VERDICT}requirement"
#: Words that, before "to", make an obligation ("have to attend", "is obliged to pay").
_OBLIGED_BEFORE_TO = frozenset({"have", "has", "had", "obliged", "obligated"})


#: Modals of obligation in the other languages that a negation turns into "not required"
#: ("Sie müssen nicht", "no tienen que", "não têm de", "hoeven niet", "non hanno bisogno
#: di"), as "do not have to" and "do not need to".
_HAVE_TO = frozenset(
    "muss müssen musst müsst musste mussten moet moeten hoeft hoeven hoef "
    "necesita necesitan necesitas necesito precisa precisam precisas preciso".split()
)
_HAVE_TO_PAIRS = (
    frozenset(
        (a, b)
        for a in "tiene tienen tienes tengo tenemos hay tem têm tens tenho temos".split()
        for b in ("que", "de")
    )
    | frozenset((a, "à") for a in "ont avez a as avons ai".split())
    | frozenset({("bisogno", "di"), ("besoin", "de"), ("besoin", "d")})
)
#: An elided French "avoir" before "à" ("n'ont pas à payer").
_HAVE_TO_ELIDED = ("'ont", "'avez", "'avons")
#: Modals of obligation that a negation turns into a prohibition ("ne doivent pas", "no
#: deben", "non devono", "não devem"), as "must not" in English.
_MUST = frozenset(
    "doit doivent devez dois devons debe deben debes deve devono devi devem deves".split()
)


def obligation_opposed(
    tokens: list[Token], terms: list[Term], unit: Unit, negated: bool = False
) -> int:
    """1 when the statement says an obligation with a modal ("have to attend", "must attend";
    "do not have to attend" too) and ``unit`` says there is none ("attending is voluntary",
    "is optional"): the modal is read as the opposite of the unit's word, so "do not have to
    attend" agrees with "voluntary" and "have to attend" does not. 0 otherwise, and when the
    statement has an obligation word of its own ("required") or says "must not" (a
    prohibition, not an obligation)."""
    if not any(
        signs == frozenset({-1}) for key, signs in unit.polar.items() if is_requirement(key)
    ):
        return 0
    if any(is_requirement(key) for t in terms for key, _ in t.polar):
        return 0
    for i, tok in enumerate(tokens):
        low = tok.lower
        nxt = tokens[i + 1].lower if i + 1 < len(tokens) else ""
        if low in _OBLIGED_BEFORE_TO and nxt == "to":
            return 1
        if low == "must" and nxt not in ("not", "never"):
            return 1
        if low in _HAVE_TO or (low, nxt) in _HAVE_TO_PAIRS:
            return 1  # "müssen", "tienen que", "têm de", "hoeven"
        if low.endswith(_HAVE_TO_ELIDED) and "à" in (t.lower for t in tokens[i + 1 : i + 3]):
            return 1  # "n'ont pas à payer"
        if low in _MUST and not negated:
            return 1  # "doivent payer"; "ne doivent pas" forbids, which is no obligation
    return 0


def unit_parity(
    negations: int, tokens: list[Token], terms: list[Term], unit: Unit, opposed: int
) -> int:
    """1 when a statement (its ``negations``, ``tokens`` and ``terms``) says the opposite of
    ``unit``: an odd count of its negations, the unit's negations about its words, its words
    the unit holds an opposite of (``opposed``) and a modal obligation the unit says there is
    none of (:func:`obligation_opposed`); 0 otherwise."""
    about = unit.negations_about(terms)
    obliged = obligation_opposed(tokens, terms, unit, negated=negations > 0)
    return (negations + about + opposed + obliged) % 2


#: Statement cores remembered per context (see ``memo`` of :func:`assess`).
CORES_KEPT = 4096


def assess(
    statement: str,
    index: ContextIndex,
    lex: Lexicon,
    thresholds: Thresholds | None = None,
    memo: dict[str, _Core] | None = None,
) -> Assessment:
    """:func:`verify`, keeping the matched unit, term weights and polarity for feature use.

    ``memo`` (one dict per context) keeps each statement core's matching pass, so a factoid's
    wrapped variants ("In fact, X", "It is not true that X") reuse it.
    """
    th = thresholds or Thresholds()
    core, framing_neg = _strip_framing(strip_citations(statement), lex)
    read = memo.get(core) if memo is not None else None
    if read is None:
        read = _read_core(core, index, lex)
        if memo is not None and len(memo) < CORES_KEPT:
            memo[core] = read
    terms, tokens = read.terms, read.tokens
    if not terms:
        return Assessment(
            Finding(Support.UNKNOWN, "The statement has no content words to check."),
            tokens=tokens,
            core=core,
        )
    if not index.units:
        return Assessment(
            Finding(Support.UNKNOWN, "The context is empty."),
            terms,
            tokens=tokens,
            elsewhere=[False] * len(terms),
            core=core,
        )
    negations = read.negations + framing_neg
    weights, elsewhere, best = read.weights, read.elsewhere, read.best
    if best is None:
        return Assessment(
            Finding(Support.UNKNOWN, f"The context does not mention {_names(terms)}."),
            terms,
            weights,
            negations=negations,
            tokens=tokens,
            framing=framing_neg,
            elsewhere=elsewhere,
            core=core,
        )
    parity = unit_parity(negations, tokens, terms, best.unit, len(best.opposed))
    finding = _decide(best, terms, weights, elsewhere, parity, th)
    return Assessment(
        finding, terms, weights, best, negations, parity, tokens, framing_neg, elsewhere, core
    )


def _decide(
    best: _Match,
    terms: list[Term],
    weights: list[float],
    elsewhere: list[bool],
    parity: int,
    th: Thresholds,
) -> Finding:
    """The rule verifier's three-way decision from the best-matching context unit."""
    unit = best.unit
    if best.coverage >= th.conflict and parity == 1:
        clash = _names(best.opposed) if best.opposed else "negation"
        return Finding(
            Support.CONTRADICTED,
            f"The context says the opposite ({clash}): {_quote(unit.text)}",
        )

    stmt_numbers = [t for t in terms if t.number is not None]
    missing_numbers = [t for t in stmt_numbers if t.number not in unit.numbers]
    rest = _coverage_without(best, terms, weights, lambda t: t.number is not None)
    if missing_numbers and unit.numbers and rest >= th.conflict:
        other = ", ".join(f"{v:g}" for v in sorted(unit.numbers))
        return Finding(
            Support.CONTRADICTED,
            f"The context gives {other}, not {_names(missing_numbers)}: {_quote(unit.text)}",
        )

    stmt_entities = {t.stem: t for t in terms if t.entity}
    missing_entities = [t for s, t in stmt_entities.items() if s not in unit.stems]
    extra_entities = unit.entities - set(stmt_entities) - {t.stem for t in terms}
    rest = _coverage_without(best, terms, weights, lambda t: t.entity)
    if missing_entities and extra_entities and rest >= th.conflict:
        named = [t for t in tokenize(unit.text, "lexical") if stem(t.lower) in extra_entities]
        return Finding(
            Support.CONTRADICTED,
            f"The context names {_names_tokens(named)}, not {_names(missing_entities)}: "
            f"{_quote(unit.text)}",
        )

    key_missing = [t for t in best.missing if t.entity or t.number is not None]
    if best.coverage >= th.support and not key_missing:
        return Finding(Support.SUPPORTED, f"The context states: {_quote(unit.text)}")
    missing = {id(t) for t in best.missing}
    absent = [t for t, e in zip(terms, elsewhere, strict=True) if id(t) in missing and not e]
    absent = [t for t in absent if not t.light] or absent
    if absent:
        return Finding(Support.UNKNOWN, f"The context does not mention {_names(absent)}.")
    if key_missing:
        return Finding(
            Support.UNKNOWN,
            f"No context sentence links {_names(key_missing)} to the rest of the statement.",
        )
    return Finding(
        Support.UNKNOWN,
        f"The closest context sentence only partly matches: {_quote(unit.text)}",
    )


def _coverage_without(
    match: _Match, terms: list[Term], weights: list[float], excluded: Callable[[Term], bool]
) -> float:
    """Coverage of the statement's other words, so a swapped value is judged on its frame."""
    missing = {id(t) for t in match.missing}
    total = got = 0.0
    for term, weight in zip(terms, weights, strict=True):
        if excluded(term):
            continue
        total += weight
        if id(term) not in missing:
            got += weight
    return got / total if total else 0.0


def _names_tokens(tokens: list[Token], limit: int = 3) -> str:
    seen: list[str] = []
    for t in tokens:
        if t.text not in seen:
            seen.append(t.text)
    return ", ".join(seen[:limit])
