"""The one interface every language module fills: the words the offline judge needs to read a
statement against a passage in that language.

A language module (``guardrail/lang/de.py`` ...) defines ``LANGUAGE = Language(...)`` and is
listed in :data:`guardrail.lang.registry.MODULES`. The offline judge reads a text in a language
with the English tables *plus* the language's own (so an English unit or currency inside a
German sentence still reads), never another language's: Spanish ``once`` (eleven) is not a
number in English, Italian ``mai`` (never) is not a month.

Words are lower case. Articles that double as "one" (``ein``, ``un``, ``een``) are not number
words: "eine Arbeitserlaubnis" asserts no quantity.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

#: unit word -> (dimension, factor to the dimension's base unit), as in the values module:
#: dimensions ``days``, ``months``, ``minutes``, ``seconds``, ``metres``, ``grams``, ``litres``.
Units = Mapping[str, tuple[str, float]]


#: Fewest letters a root keeps: shorter words are matched as written.
ROOT_CHARS = 4
#: Fewest letters a compound keeps beside one of its parts ("Kranken|kasse").
COMPOUND_REST = 3
#: Fewest letters of a compound's last part, its head ("Zwem|les", "Feier|tag"); a first part
#: keeps :data:`ROOT_CHARS`.
HEAD_CHARS = 3


@cache
def _by_length(endings: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(set(endings), key=len, reverse=True))


@dataclass(frozen=True)
class Clock:
    """How a language says a time of day in words ("a las nueve y media", "um halb zehn",
    "à 9h30"). Minutes after a joiner use :attr:`Language.halves` ("y media") and
    :attr:`quarters` ("y cuarto")."""

    #: words before an hour that make it a time of day ("a las", "alle", "om", "um"), one or
    #: two words; a range ("de 2 à 3 heures") or a limit ("jusqu'à 10 heures") is a length
    before: frozenset[str] = frozenset()
    #: words right before one of :attr:`before` that make the hour a limit, not a time of day
    #: ("jusqu'à 10 heures": up to ten hours)
    until: frozenset[str] = frozenset()
    #: words after an hour that always make it a time of day ("Uhr"; "h" written onto it)
    hours: frozenset[str] = frozenset()
    #: words for a quarter of an hour after a joiner ("y cuarto", "et quart")
    quarters: frozenset[str] = frozenset()
    #: "half" before an hour is half an hour before it ("half tien", "halb zehn": 9:30)
    half_before: bool = False
    #: words after a time that put it after noon ("de la tarde", "du soir", "'s avonds")
    evening: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Language:
    """One language's words for the offline judge (all lower case)."""

    code: str
    name: str
    #: negation cues ("nicht", "kein")
    negations: frozenset[str]
    #: function words that carry no claim ("der", "und")
    stopwords: frozenset[str]
    #: opposite pairs ("erhöht", "senkt"): antonym mutations swap them, the verifier opposes them
    opposites: tuple[tuple[str, str], ...]
    #: verdict scales: any positive word opposes any negative one ("sicher" / "gefährlich").
    #: The first is acceptability: its positive side holds the verbs of taking or using a
    #: medicine too, so "darf nicht eingenommen werden" opposes "ist unbedenklich". The
    #: second is requirement ("Pflicht" / "freiwillig", "befreit"): a modal of obligation
    #: ("müssen") is read against its negative side.
    verdicts: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    #: cardinal number words ("sechs": 6), never articles
    numbers: Mapping[str, int] = field(default_factory=dict)
    #: scale words ("hundert": 100, "tausend": 1000)
    scales: Mapping[str, int] = field(default_factory=dict)
    #: ordinal words ("dritte": 3)
    ordinals: Mapping[str, int] = field(default_factory=dict)
    #: words for "last" ("letzte", "dernier"): an ordinal counted from the end, so "the last
    #: working day" and "the first working day" are two different positions
    last: frozenset[str] = frozenset()
    #: month names and abbreviations -> 1..12
    months: Mapping[str, int] = field(default_factory=dict)
    #: weekday names -> 0 (Monday) .. 6
    weekdays: Mapping[str, int] = field(default_factory=dict)
    #: unit words -> (dimension, factor)
    units: Units = field(default_factory=dict)
    #: currency words -> currency code
    currencies: Mapping[str, str] = field(default_factory=dict)
    #: words after a number that make it a share ("Prozent", "pour cent"), as "%" does
    percent: tuple[str, ...] = ()
    #: words for "free of charge" (a price of zero)
    free: frozenset[str] = frozenset()
    #: phrases that say a price must be paid ("muss bezahlen"); against :attr:`free` they conflict
    pay: frozenset[str] = frozenset()
    #: phrases for "immediately" ("sofort"); against :attr:`wait` they conflict
    immediate: frozenset[str] = frozenset()
    #: phrases for a waiting time ("Wartezeit", "erst nach")
    wait: frozenset[str] = frozenset()
    #: words joining a compound number ("und" in "fünfundzwanzig" is inside one word; "y" in
    #: "treinta y cinco")
    number_joiners: frozenset[str] = frozenset()
    #: words that, after a negation and before a number, make a bound ("nicht mehr als 20")
    bounds: frozenset[str] = frozenset()
    #: numbers are written "15.000" (fifteen thousand) and "2,25" (two and a quarter)
    decimal_comma: bool = False
    #: prepositions that deny the noun after them ("ohne", "sans", "sin"): "sin indemnización"
    #: is no compensation
    without: frozenset[str] = frozenset()
    #: phrases right before an amount that bound it: +1 at most ("höchstens"), -1 at least
    #: ("mindestens"); a negation just before reverses it ("nicht mehr als")
    bounds_before: Mapping[str, int] = field(default_factory=dict)
    #: phrases right after an amount that bound it ("oder mehr": -1)
    bounds_after: Mapping[str, int] = field(default_factory=dict)
    #: phrases right before a month's name that name its last day ("Ende": "Ende Juni" is
    #: the 30th of June)
    month_end: frozenset[str] = frozenset()
    #: indefinite articles: before a unit of time they count one of it ("un año" is a year;
    #: rates are said otherwise: "una vez al día")
    articles: frozenset[str] = frozenset()
    #: words that halve the unit of time after them ("medio año", "eine halbe Stunde")
    halves: frozenset[str] = frozenset()
    #: words that join two parts of a sentence, each with its own facts ("und", "oder",
    #: "während"): "A works on Mondays *and* B on Fridays"
    coordinators: frozenset[str] = frozenset()
    #: words that weigh little when verifying: adverbs of time that only strengthen a claim
    #: ("jederzeit", "immer"), so "can be removed at any time" still matches "cannot be removed"
    light: frozenset[str] = frozenset()
    #: Whether every noun is capitalized (German): a capitalized word is then a name only
    #: after one of :attr:`name_openers` (a preposition or conjunction: "in München"), never
    #: after an article or adjective ("das Blutungsrisiko") nor at a sentence's start.
    capitalized_nouns: bool = False
    name_openers: frozenset[str] = frozenset()
    #: Inflectional endings (longest first is not required): a word's root is the word without
    #: the longest of them that leaves :data:`ROOT_CHARS` letters, so "rilasciato" and
    #: "rilascia" (Italian), "decididos" and "decide" (Portuguese) share a root and match.
    endings: tuple[str, ...] = ()
    #: How an antonym mutation removes a negation: negation word -> its replacement ("" drops
    #: it: Spanish "no tome" -> "tome"; German "keine" -> "eine"; French drops "ne" and "pas").
    unnegate: Mapping[str, str] = field(default_factory=dict)
    #: Negation words that the rest of their negation follows (French "ne ... rien", "ne ...
    #: jamais"): after one of them the antonym also rewrites the next :attr:`unnegate` word
    #: ("ne coûte rien" -> "coûte quelque chose"; "ni" keeps going: "ne ... ni A ni B").
    #: Only for a language whose verifier reads the rewritten words as the opposite
    #: (Spanish "cuesta algo" is not yet read against "gratuito": Spanish leaves it empty).
    concord: frozenset[str] = frozenset()
    #: words right before an amount that make it approximate ("etwa", "environ", "casi"): an
    #: approximate amount agrees with one within a tenth of it
    approximate: frozenset[str] = frozenset()
    #: How a time of day is said in words (see :class:`Clock`)
    clock: Clock = field(default_factory=Clock)
    #: Elided words written before an apostrophe ("l'", "c'", "n'", "dell'"): a word read
    #: without them is the word itself ("c'est" is "est", "l'invitation" is "invitation").
    elided: frozenset[str] = frozenset()
    #: Pronouns joined after a hyphen ("donnez-lui", "appelez-le"): the word is read without.
    clitics: frozenset[str] = frozenset()
    #: Groups of general words of one meaning ("Gefahr", "Risiko"): the verifier matches any
    #: word of a group with any other. General vocabulary only, never a domain's terms.
    synonyms: tuple[tuple[str, ...], ...] = ()
    #: Whether nouns join into one written word (German, Dutch): a word then also matches a
    #: compound it is a part of ("Nase" / "Nasenschleimhaut"), and a compound a word that is
    #: one of its parts.
    compounds: bool = False
    #: Wrappers that keep a statement's meaning ("Es stimmt: {}"); the first two also affirm a
    #: rewrite. The mutations wrap in the statement's language, and the verifier reads them off.
    supportive_wraps: tuple[str, ...] = ()
    #: Wrappers that deny a statement ("Es stimmt nicht: {}").
    negating_wraps: tuple[str, ...] = ()
    #: Endings that make a compound mean "without" ("kostenlos", "gebührenfrei"): such a
    #: word is not matched with its first part.
    privative: tuple[str, ...] = ()

    def base_word(self, word: str) -> str:
        """``word`` (lower case) without an elided article or pronoun before an apostrophe and
        without a pronoun joined after a hyphen; unchanged when it has neither."""
        out = word
        cut = max(out.find("'"), out.find("’"))
        if cut > 0 and out[:cut] in self.elided and len(out) - cut > 2:
            out = out[cut + 1 :]
        while "-" in out:
            head, _, tail = out.rpartition("-")
            if tail not in self.clitics or len(head) < 2:
                break
            out = head[:-2] if head.endswith("-t") else head
        return out

    def compound_parts(self, word: str) -> frozenset[str]:
        """The pieces a compound may be made of (lower case; with their roots): its
        beginnings of at least :data:`ROOT_CHARS` letters and endings of at least
        :data:`HEAD_CHARS` that leave at least :data:`COMPOUND_REST` letters. Empty unless
        the language writes compounds."""
        if not self.compounds or len(word) < ROOT_CHARS + COMPOUND_REST:
            return frozenset()
        out: set[str] = set()
        for cut in range(COMPOUND_REST, len(word) - HEAD_CHARS + 1):
            tail = word[cut:]
            out.add(tail)
            out.add(self.root(tail))
        if word.endswith(self.privative):
            return frozenset(p for p in out if len(p) >= HEAD_CHARS)
        for cut in range(ROOT_CHARS, len(word) - COMPOUND_REST + 1):
            head = word[:cut]
            out.add(head)
            out.add(self.root(head))
        return frozenset(p for p in out if len(p) >= HEAD_CHARS)

    def root(self, word: str) -> str:
        """``word`` (lower case) without its longest inflectional ending; unchanged when it has
        none or is too short to lose one."""
        if len(word) <= ROOT_CHARS:
            return word
        for ending in self._endings_by_length:
            if word.endswith(ending) and len(word) - len(ending) >= ROOT_CHARS:
                return word[: -len(ending)]
        return word

    @property
    def _endings_by_length(self) -> tuple[str, ...]:
        return _by_length(self.endings)

    @property
    def bound_phrase_words(self) -> frozenset[str]:
        """The words of the phrases that bound an amount ("höchstens", "oder älter"): they say
        how a value is bounded, which the value check compares, so they weigh little when
        a statement's words are matched ("nicht mehr als sechs" / "höchstens sechs")."""
        phrases = [*self.bounds_before, *self.bounds_after, *self.bounds]
        return frozenset(w for p in phrases for w in p.split() if w not in self.stopwords)

    def lexicon_data(self) -> dict[str, object]:
        """This language's words in the offline judge's lexicon format (``lexicon.json``)."""
        return {
            "negations": sorted(self.negations),
            "stopwords": sorted(self.stopwords),
            "antonym_pairs": [list(p) for p in self.opposites],
            "polarity_scales": [
                {
                    "name": f"{self.code}:{i}",
                    "verdict": True,
                    "positive": list(p),
                    "negative": list(n),
                }
                for i, (p, n) in enumerate(self.verdicts)
            ],
            "number_words": {**self.numbers, **self.scales},
            "synonym_groups": [list(g) for g in self.synonyms],
            "bound_words": sorted(self.bounds),
            "decimal_comma": self.decimal_comma,
            "number_joiners": sorted(self.number_joiners),
            "coordinators": sorted(self.coordinators),
            "without_words": sorted(self.without),
            "light_words": sorted(self.light | self.bound_phrase_words),
            "framing_supportive": [lead(w) for w in self.supportive_wraps],
            "framing_negating": [lead(w) for w in self.negating_wraps],
        }


def lead(wrap: str) -> str:
    """The words a wrapper puts before the statement, lower case ("es stimmt:")."""
    return wrap.split("{}")[0].strip().lower()
