"""Typed values a sentence asserts: amounts with units, money, percentages, times, dates, years,
weekdays, ordinals and names — each normalized so that two spellings of one value compare equal
("1,200" = "1200", "twenty-five days" = "25 days", "two weeks" = "14 days", "6 pm" = "18:00",
"15 March 2024" = "March 15, 2024", "$120" = "120 dollars", "20 per cent" = "20%").

:func:`extract` reads one text; the conflict check (:mod:`~guardrail.judges.local.conflict`)
compares a statement's values with those of the context sentence it is about.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from typing import NamedTuple

from guardrail.judges.local.times import last_day
from guardrail.lang.base import Clock
from guardrail.lang.context import current_language
from guardrail.lang.registry import language
from guardrail.text.tokens import STOPWORDS, comma_decimal

#: A value's kind: what it may be compared with.
KINDS = (
    "money",
    "percent",
    "time",
    "date",
    "year",
    "weekday",
    "ordinal",
    "quantity",
    "name",
)

_TOKEN = re.compile(
    r"\d+(?:st|nd|rd|th)\b|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?![\d.,:])|\d+(?:[.,:]\d+)*"
    r"|[^\W\d_]+(?:['’][^\W\d_]+)?|[$€£¥%]|[^\w\s]",
    re.UNICODE,
)  # "3 000 mg", "15 000 €": thousands grouped by spaces are one number

_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "dozen": 12, "pair": 2,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_SCALE_ABBR = {"k": 1_000, "m": 1_000_000, "bn": 1_000_000_000}
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "twentieth": 20, "thirtieth": 30, "hundredth": 100,
}  # fmt: skip
#: The ordinal of "last" ("letzte", "dernier"): a position counted from the end.
LAST = -1.0
_ORDINAL_SUFFIX = re.compile(r"^(\d+)(st|nd|rd|th)$")
_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for m in names
}  # fmt: skip
_WEEKDAYS = {
    d: i
    for i, names in enumerate(
        [
            ("monday", "mondays"), ("tuesday", "tuesdays"), ("wednesday", "wednesdays"),
            ("thursday", "thursdays"), ("friday", "fridays"), ("saturday", "saturdays"),
            ("sunday", "sundays"),
        ]
    )
    for d in names
}  # fmt: skip
_CURRENCY_SIGNS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy"}
_CURRENCY_WORDS = {
    "dollar": "usd", "dollars": "usd", "usd": "usd", "euro": "eur", "euros": "eur",
    "eur": "eur", "pound": "gbp", "pounds": "gbp", "gbp": "gbp", "yen": "jpy", "cents": "cent",
    "cent": "cent", "rupees": "inr", "rupee": "inr", "francs": "chf", "franc": "chf",
    "quid": "gbp",
}  # fmt: skip
_PERCENT_WORDS = ("percent", "per cent", "percentage points", "%")
#: unit -> (dimension, factor to the dimension's base unit)
_UNITS: dict[str, tuple[str, float]] = {}
_UNIT_TABLES: dict[str, dict[str, float]] = {
    "days": {"day": 1, "days": 1, "week": 7, "weeks": 7, "fortnight": 14, "fortnights": 14},
    "months": {"month": 1, "months": 1, "year": 12, "years": 12, "yr": 12, "yrs": 12},
    "minutes": {"hour": 60, "hours": 60, "hr": 60, "hrs": 60, "h": 60, "minute": 1,
                "minutes": 1, "min": 1, "mins": 1},
    "seconds": {"second": 1, "seconds": 1, "sec": 1, "secs": 1, "s": 1},
    "metres": {"m": 1, "metre": 1, "metres": 1, "meter": 1, "meters": 1, "km": 1000,
               "kilometre": 1000, "kilometres": 1000, "kilometer": 1000, "kilometers": 1000,
               "cm": 0.01, "centimetre": 0.01, "centimetres": 0.01, "centimeter": 0.01,
               "centimeters": 0.01, "mm": 0.001, "millimetre": 0.001, "millimetres": 0.001,
               "mile": 1609.344, "miles": 1609.344, "ft": 0.3048, "foot": 0.3048,
               "feet": 0.3048},
    "grams": {"g": 1, "gram": 1, "grams": 1, "kg": 1000, "kilogram": 1000, "kilograms": 1000,
              "kilo": 1000, "kilos": 1000, "mg": 0.001, "milligram": 0.001,
              "milligrams": 0.001, "tonne": 1e6, "tonnes": 1e6, "ton": 1e6, "tons": 1e6,
              "lb": 453.592, "lbs": 453.592, "pound": 453.592},
    "litres": {"l": 1, "litre": 1, "litres": 1, "liter": 1, "liters": 1, "ml": 0.001,
               "millilitre": 0.001, "millilitres": 0.001},
}  # fmt: skip
#: The dimensions whose units convert into each other ("two weeks" = "14 days").
DIMENSIONS = frozenset(_UNIT_TABLES)
for _dim, _table in _UNIT_TABLES.items():
    for _name, _factor in _table.items():
        _UNITS.setdefault(_name, (_dim, float(_factor)))
MINUTES_PER_DAY = 1440.0
#: Words that may sit between a number and its unit ("25 vacation days", "3 more weeks").
_UNIT_GAP = 2
_TIME_WORDS = {"noon": 12 * 60, "midday": 12 * 60, "midnight": 0}
#: Words that multiply what follows them ("*double* the normal rate", "*le double du* tarif"),
#: in every language, by how much; read as a multiple only before a definite determiner
#: (:data:`_MULTIPLIED`), so "twice a day" stays a frequency.
_MULTIPLIERS = {
    "double": 2.0, "twice": 2.0, "triple": 3.0, "treble": 3.0, "doppelt": 2.0,
    "doppelte": 2.0, "doppelten": 2.0, "dreifache": 3.0, "doble": 2.0, "doppio": 2.0,
    "triplo": 3.0, "dobro": 2.0, "dubbele": 2.0, "driedubbele": 3.0,
}  # fmt: skip
#: Words after a multiplier that make it one ("double *the* rate", "el doble *del* salario").
_MULTIPLIED = frozenset(
    "the your their its this that le la l' du des el lo del il della dello dei o do da "
    "der die das des dem den het van".split()
)
#: Words for "times" after a number ("1.5 times the rate", "deux fois le tarif"): a multiple
#: (or a count of times), one key in every language.
_TIMES = frozenset({"times", "fois", "veces", "volte", "vezes", "keer", "mal"})
#: Phrases right before an amount that bound it: +1 at most, -1 at least. A negation just
#: before the phrase reverses it ("not more than 20" is at most 20).
_BOUNDS_BEFORE: dict[str, int] = {
    "at most": 1, "up to": 1, "less than": 1, "fewer than": 1, "under": 1, "below": 1,
    "maximum": 1, "maximum of": 1, "max": 1, "no longer than": 1,
    "exceed": -1, "exceeds": -1, "exceeding": -1,
    "at least": -1, "more than": -1, "over": -1, "above": -1, "minimum": -1,
    "minimum of": -1, "longer than": -1, "shorter than": 1,
}  # fmt: skip
#: Phrases right after an amount (and its unit) that bound it.
_BOUNDS_AFTER: dict[str, int] = {
    "and over": -1, "or over": -1, "or more": -1, "and above": -1, "or older": -1,
    "and older": -1, "plus": -1, "or less": 1, "or fewer": 1, "or under": 1, "or younger": 1,
    "and under": 1, "or below": 1, "at most": 1, "at the most": 1, "at least": -1,
}  # fmt: skip
#: English articles that count one of the duration unit after them ("a week", "an hour").
_ARTICLES = frozenset({"a", "an"})
#: Phrases right before a month's name that name its last day ("by *the end of* June").
_MONTH_END = frozenset({"end of", "last day of"})
#: Words before a bare number that make it an age in years ("aged 16 and over").
_AGE_WORDS = frozenset({"aged", "age", "ages"})
#: Words before a lower bound that make the amount how long a denied state lasts ("must not
#: drive *for* at least four hours"): the negation then leaves the bound as it is.
_SPAN_WORDS = frozenset({"for"})
_AT_LEAST = frozenset({"at least", "minimum", "minimum of"})
#: Words of a bound phrase, at most.
_BOUND_WORDS = 3
#: Kinds of value a bound applies to.
_BOUNDED = frozenset({"quantity", "money", "percent"})
#: Words that may start a value (any other word is skipped at once).
_KEYWORDS = frozenset(
    [*_CURRENCY_SIGNS, *_TIME_WORDS, *_MONTHS, *_WEEKDAYS, *_ORDINALS, *_SMALL, *_SCALES]
)
_AMPM = re.compile(r"^(a|p)\.?m\.?$")
#: Titles before a person's name: in a language that capitalizes its nouns, a title starts a
#: name wherever it stands ("*Frau* Öztürk übernimmt ...").
_TITLES = frozenset({"frau", "herr", "dr", "prof"})
#: Capitalized words that start names but are not names themselves.
_NOT_NAMES = frozenset(
    "i the a an this that these those it its he she they we you his her their our my your "
    "in on at by for from to of and or but if when while after before during since until "
    "there here what which who whom whose where why how all some any each every no not "
    "mr mrs ms dr prof st".split()
)


#: English words right before an amount that make it approximate ("about 40", "just under").
_APPROXIMATE = frozenset("about around roughly approximately nearly almost some just".split())


@dataclass(frozen=True)
class _Tables:
    """The words values are read with in one language: English's, plus the language's own."""

    small: dict[str, float]
    scales: dict[str, float]
    ordinals: dict[str, float]
    months: dict[str, int]
    weekdays: dict[str, int]
    currency_words: dict[str, str]
    units: dict[str, tuple[str, float]]
    keywords: frozenset[str]
    free: frozenset[str]
    joiners: frozenset[str]
    #: capitalized words are names only after these (None: any capitalized word may be one)
    name_openers: frozenset[str] | None = None
    bounds_before: dict[str, int] = field(default_factory=dict)
    bounds_after: dict[str, int] = field(default_factory=dict)
    negations: frozenset[str] = frozenset()
    #: function words that end the search for a unit after a number ("6 tablets a day" counts
    #: tablets, not days)
    stopwords: frozenset[str] = STOPWORDS
    #: the language module's function words: capitalized ("Sie", "La" at a sentence's start),
    #: they still start no name
    function_words: frozenset[str] = frozenset()
    #: numbers are written "15.000" and "2,25"
    decimal_comma: bool = False
    #: articles that count one of the unit of time after them ("*a* week", "*an* hour"):
    #: English only ("a" is a preposition in Spanish, Italian and Portuguese)
    articles: frozenset[str] = frozenset()
    #: phrases right before a month's name that name its last day ("the end of June")
    month_end: frozenset[str] = frozenset()
    #: indefinite articles that always count one of the unit of time after them ("un año")
    indefinite: frozenset[str] = frozenset()
    #: words that halve the unit of time after them ("medio año", "half jaar")
    halves: frozenset[str] = frozenset()
    #: words written before an apostrophe ("d'", "un'"): read as words of their own
    elided: frozenset[str] = frozenset()
    #: the language's code, and whether it writes a number in words as one word
    code: str = "en"
    joined_numbers: bool = False
    #: the words for "per cent", each as its tokens ("%", "per cent", "pour cent")
    percent: tuple[tuple[str, ...], ...] = (("%",), ("percent",), ("per", "cent"))
    #: how a time of day is said in words
    clock: Clock = field(default_factory=Clock)
    #: words for "without": before a bound they reverse it as a negation does ("without
    #: exceeding 3" is at most 3)
    without: frozenset[str] = frozenset()
    #: words right before an amount that make it approximate ("about", "etwa")
    approximate: frozenset[str] = _APPROXIMATE


def _in_minutes(units: Mapping[str, tuple[str, float]]) -> dict[str, tuple[str, float]]:
    """``units`` with days and weeks counted in minutes, so "48 hours" is "two days"."""
    return {
        word: ("minutes", per * MINUTES_PER_DAY) if dim == "days" else (dim, per)
        for word, (dim, per) in units.items()
    }


def _english() -> _Tables:
    return _Tables(
        small={k: float(v) for k, v in _SMALL.items()},
        scales={k: float(v) for k, v in _SCALES.items()},
        ordinals={k: float(v) for k, v in _ORDINALS.items()},
        months=dict(_MONTHS),
        weekdays=dict(_WEEKDAYS),
        currency_words=dict(_CURRENCY_WORDS),
        units=_in_minutes(_UNITS),
        keywords=_KEYWORDS,
        free=frozenset(),
        joiners=frozenset({"-", "and"}),
        bounds_before=dict(_BOUNDS_BEFORE),
        bounds_after=dict(_BOUNDS_AFTER),
        negations=frozenset({"not", "no", "never", "don't", "doesn't", "mustn't", "cannot"}),
        without=frozenset({"without"}),
        articles=_ARTICLES,
        month_end=_MONTH_END,
        clock=_EN_CLOCK,
    )


#: "at nine", "nine o'clock"; "half past six" and "quarter to ten" are read by :func:`_past`.
_EN_CLOCK = Clock(
    before=frozenset({"at"}),
    hours=frozenset({"o'clock", "oclock"}),
    evening=frozenset({"afternoon", "evening", "night"}),
)
_EN = _english()


@cache
def tables(code: str) -> _Tables:
    """The value words of language ``code``: English's, extended by its language module."""
    lang = language(code)
    if lang is None:
        return _EN
    # an English number word that is a function word of the language is no number there
    # (Dutch "ten minste", "ten laatste")
    english = {k: v for k, v in _EN.small.items() if k not in lang.stopwords}
    small = {**english, **{k: float(v) for k, v in lang.numbers.items()}}
    scales = {**_EN.scales, **{k: float(v) for k, v in lang.scales.items()}}
    ordinals = {
        **_EN.ordinals,
        **{k: float(v) for k, v in lang.ordinals.items()},
        **{k: LAST for k in lang.last},
    }
    months = {**_EN.months, **lang.months}
    weekdays = {**_EN.weekdays, **lang.weekdays}
    currency = {**_EN.currency_words, **lang.currencies}
    units = {**_EN.units, **_in_minutes(lang.units)}
    keywords = frozenset(
        [*_EN.keywords, *small, *scales, *ordinals, *months, *weekdays, *lang.free]
    )
    joiners = _EN.joiners | lang.number_joiners
    openers = lang.name_openers if lang.capitalized_nouns else None
    return _Tables(
        small,
        scales,
        ordinals,
        months,
        weekdays,
        currency,
        units,
        keywords,
        lang.free,
        joiners,
        openers,
        {**_EN.bounds_before, **lang.bounds_before},
        {**_EN.bounds_after, **lang.bounds_after},
        (_EN.negations - lang.stopwords) | lang.negations,
        STOPWORDS | lang.stopwords,
        lang.stopwords | lang.negations,
        lang.decimal_comma,
        month_end=_EN.month_end | lang.month_end,
        without=_EN.without | lang.without,
        indefinite=lang.articles,
        halves=lang.halves,
        elided=lang.elided,
        code=code,
        joined_numbers=code in JOINED_NUMBERS,
        percent=(*_EN.percent, *(tuple(_TOKEN.findall(p.lower())) for p in lang.percent)),
        clock=lang.clock,
        approximate=_APPROXIMATE | lang.approximate,
    )


@dataclass(frozen=True)
class Value:
    """One value: its ``kind``, a normalized ``key`` (the dimension or currency it is in) and
    ``amount`` (numbers) or ``text`` (names, weekdays), with its character span."""

    kind: str
    key: str
    amount: float | None
    text: str
    start: int
    end: int
    surface: str
    #: A bound the text puts on the amount: +1 at most ("up to 20", "under 16"), -1 at least
    #: ("at least 20", "16 and over"), 0 none.
    bound: int = 0
    #: For a count of things with no known unit, the words naming what is counted ("12
    #: paracetamol tablets": paracetamol, tablet; "8 tablets of paracetamol": tablet,
    #: paracetamol), so the two counts compare though their first words differ.
    nouns: frozenset[str] = frozenset()
    #: Said as approximate ("about 40", "etwa 200 mg", "just under 40%").
    approx: bool = False

    def same(self, other: Value) -> bool:
        """The same value (kinds and keys must already agree); "at most 20" and "at least
        20" are not the same. An approximate amount is the same as one within
        :data:`APPROXIMATE_SHARE` of it ("just under 40%" and "39.9%")."""
        if self.bound and other.bound and self.bound != other.bound:
            return False
        if self.amount is not None and other.amount is not None:
            if self.key == "clock" and EITHER_HALF in (self.text, other.text):
                return abs(self.amount - other.amount) % _HALF_DAY < 1e-9  # "half past two"
            gap = abs(self.amount - other.amount)
            if (self.approx or other.approx) and self.kind in _BOUNDED:
                return gap <= APPROXIMATE_SHARE * max(abs(self.amount), abs(other.amount))
            return gap <= 1e-9 * max(1.0, abs(self.amount))
        return self.text == other.text

    def comparable(self, other: Value) -> bool:
        """Values of one kind and dimension: if they differ, they disagree. Two counts of
        things compare when they name one thing counted (:func:`counted_alike`)."""
        if self.kind != other.kind:
            return False
        return self.key == other.key or counted_alike(self.nouns, other.nouns)


#: The label of a time of day said without a.m., p.m. or a part of the day, in English
#: ("half past two", "at 2:30"): it agrees with the same time in either half of the day
#: ("14:30"). A time written with a leading zero ("08:00") is on the 24-hour clock.
EITHER_HALF = "either half of the day"
_HALF_DAY = 12 * 60
#: Minutes after midnight before which a time said in words may be in either half of the day.
_NOON_HOUR = 13 * 60
#: How far apart an approximate amount and another may be and still agree.
APPROXIMATE_SHARE = 0.1


def bound_against(a: Value, b: Value) -> bool:
    """The same amount bound the other way ("more than 8" / "not more than 8 tablets")."""
    return a.kind == b.kind and a.amount == b.amount and a.bound * b.bound < 0


#: Shortest word that, ending a compound, names what the compound counts ("Tabletten" in
#: "Ibuprofentabletten").
_HEAD_CHARS = 5


def counted_alike(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two counts name one thing counted: a word in common, or a compound of one ending in a
    word of the other ("ibuprofentabletten" / "tabletten")."""
    if not a or not b:
        return False
    if a & b:
        return True
    return any(x != y and len(y) >= _HEAD_CHARS and x.endswith(y) for x in a for y in b) or any(
        x != y and len(x) >= _HEAD_CHARS and y.endswith(x) for x in a for y in b
    )


class _Tok(NamedTuple):
    text: str
    low: str
    start: int
    end: int
    digit: bool


def _tokens(text: str, elided: frozenset[str] = frozenset()) -> list[_Tok]:
    """The tokens of ``text``; a word joined to an ``elided`` one by an apostrophe ("d'un",
    "un'ora") is two tokens, the elided word without its apostrophe and the word itself."""
    out = []
    make = tuple.__new__  # what _Tok(...) calls, without its Python-level __new__
    for m in _TOKEN.finditer(text):
        word = m.group()
        start, end = m.span()
        if elided:
            cut = max(word.find("'"), word.find("’"))
            if cut > 0 and word[:cut].lower() in elided:
                head = word[:cut]
                out.append(make(_Tok, (head, head.lower(), start, start + cut, False)))
                word, start = word[cut + 1 :], start + cut + 1
        out.append(make(_Tok, (word, word.lower(), start, end, word[:1].isdigit())))
    return out


#: Spaces that group thousands ("3 000", with a no-break or narrow no-break space too).
_GROUP_SPACES = str.maketrans("", "", " \u00a0\u202f")


def _number(tok: _Tok, decimal_comma: bool = False) -> float | None:
    raw = tok.text.translate(_GROUP_SPACES)
    if decimal_comma and (value := comma_decimal(raw)) is not None:
        return value
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw):
        raw = raw.replace(",", "")
    elif "," in raw or ":" in raw:
        return None
    try:
        return float(raw)
    except ValueError:
        return None


def _word_number(toks: list[_Tok], i: int, t: _Tables) -> tuple[float, int] | None:
    """A number written in words from ``toks[i]`` ("twenty-five", "two hundred", and in one
    word "vierundzwanzig", "duecentocinquanta"): value and the index after it."""
    low = toks[i].low
    if t.joined_numbers and low not in t.small and (joined := joined_number(t.code, low)):
        return joined, i + 1
    total = 0.0
    current = 0.0
    j = i
    seen = False
    while j < len(toks):
        low = toks[j].low
        if low in t.small:
            if low in _TIMES_TWENTY and current == 4 and t.code == "fr":
                current = 80.0  # "quatre-vingt-dix": four twenties and ten
            else:
                current += t.small[low]
            seen = True
        elif low in t.scales and (seen or (j == i and t.code != "en")):
            # "mil doscientos", "cent vingt": a scale word alone is one of it, but in English
            current = max(current, 1.0) * t.scales[low]
            seen = True
            if t.scales[low] >= 1000:
                total += current
                current = 0.0
        elif low in t.joiners and seen and j + 1 < len(toks) and toks[j + 1].low in t.small:
            if low != "-" and not _joins(current, total, t.small[toks[j + 1].low]):
                break  # "cuatro y seis semanas", "four and six": two numbers
        else:
            break
        j += 1
    if not seen:
        return None
    return total + current, j


#: French twenties counted by the number before them ("quatre-vingts").
_TIMES_TWENTY = frozenset({"vingt", "vingts"})


def _joins(current: float, total: float, following: float) -> bool:
    """A word joiner continues a number: after tens ("sesenta y nueve", "soixante et
    onze"), hundreds ("two hundred and five", "cento e venti") or thousands ("mil e
    quinhentos"), with a smaller number after it."""
    if current >= 20 and current % 100 and current % 10 == 0:
        return following < 20
    if current >= 100 and current % 100 == 0:
        return following < 100
    return current == 0 and total > 0 and following < 1000


#: Languages that write a number in words as one word, read by text2num (French joins its
#: words with hyphens: "quarante-huit").
JOINED_NUMBERS = frozenset({"de", "it", "es", "nl", "fr"})
#: Plural scale words that count no exact number ("cientos de personas", "miles").
_VAGUE = frozenset({"cientos", "miles"})
#: Shortest word tried as a number written in one word ("sechzehn"; "zwölf" is in the tables).
_JOINED_CHARS = 6


@lru_cache(maxsize=16384)
def joined_number(code: str, low: str) -> float | None:
    """The number ``low`` writes in one word in language ``code`` ("vierundzwanzig": 24,
    "duecentocinquanta": 250), read by text2num (MIT; a compiled parser, no data files);
    ``None`` for any other word."""
    if len(low) < _JOINED_CHARS or not low.replace("-", "").isalpha() or low in _VAGUE:
        return None
    from text_to_num import text2num  # imported on first use

    try:
        return float(text2num(low, code))
    except ValueError:
        return None


def _scale(toks: list[_Tok], j: int, t: _Tables) -> tuple[float, int]:
    """A scale word after a number ("1.5 million", "3bn"): factor and the index after it."""
    if j < len(toks) and toks[j].low in t.scales:
        return float(t.scales[toks[j].low]), j + 1
    if j < len(toks) and toks[j].low in _SCALE_ABBR and toks[j].start == toks[j - 1].end:
        return float(_SCALE_ABBR[toks[j].low]), j + 1
    return 1.0, j


def _is_year(tok: _Tok, value: float) -> bool:
    return len(tok.text) == 4 and tok.text.isdigit() and 1000 <= value <= 2100


def bound_words(code: str) -> frozenset[str]:
    """The words of language ``code``'s bound phrases ("at", "most", "up", "to", "least"…)
    and its negations ("not more than"): words that bound a value rather than name it."""
    t = tables(code)
    phrases = [*t.bounds_before, *t.bounds_after]
    return frozenset(w for p in phrases for w in p.split()) | t.negations


def extract(text: str, common: Callable[[str], bool] | None = None) -> list[Value]:
    """Every value ``text`` asserts, left to right. ``common(word)`` says whether a lowercase
    word is an ordinary word (so a capitalized first word is not a name)."""
    t = tables(current_language())
    toks = _tokens(text, t.elided)
    out: list[Value] = []
    i = 0
    n = len(toks)

    periods: set[int] = set()  # indices in ``out`` of one-unit durations after "in", "per"

    def add(kind: str, key: str, amount: float | None, label: str, a: int, b: int) -> None:
        start, end = toks[a].start, toks[b - 1].end
        out.append(Value(kind, key, amount, label, start, end, text[start:end]))

    while i < n:
        tok = toks[i]
        low = tok.low
        if low in t.articles and (one := _article_duration(toks, i, t)) is not None:
            length, a, key = one  # "within a week", "half an hour": one of the unit
            length, end = _and_a_half(toks, i + 2, t, length)  # "a month and a half"
            if a and toks[a - 1].low in _PERIOD_BEFORE:
                periods.add(len(out))
            add("quantity", key, length, "", a, end)
            i = end
            continue
        if (low in t.indefinite or _half(low, t)) and (got := _one_unit(toks, i, t)) is not None:
            length, key, after = got  # "un año", "eine halbe Stunde", "mezz'ora"
            if not _half(low, t):
                length, after = _and_a_half(toks, after, t, length)  # "un mes y medio"
            if i and toks[i - 1].low in _PERIOD_BEFORE:
                periods.add(len(out))
            add("quantity", key, length, "", i, after)
            i = after
            continue
        if low in _MULTIPLIERS and i + 1 < n and toks[i + 1].low in _MULTIPLIED:
            add("quantity", "time", _MULTIPLIERS[low], "", i, i + 1)  # "double the rate"
            i += 1
            continue
        if low == "time" and [x.low for x in toks[i + 1 : i + 4]] == ["and", "a", "half"]:
            add("quantity", "time", 1.5, "", i, i + 4)  # "time and a half"
            i += 4
            continue
        if (said := _half_hour(toks, i, t)) is not None:
            minutes, j = said  # "half tien", "halb zehn", "half past six", "quarter to ten"
            either = (
                t.code == "en"
                and minutes < _NOON_HOUR
                and not _ampm(toks, j)[0]
                and not {x.low for x in toks[i:j]} & _NAMED_HOURS.keys()
            )
            add("time", "clock", minutes, EITHER_HALF if either else "", i, j)
            i = j
            continue
        if (
            not tok.digit
            and low not in t.keywords
            and not (t.joined_numbers and joined_number(t.code, low) is not None)
        ):
            i += 1  # most words: nothing to read here (names are read after the loop)
            continue
        # money with a sign before the number: "$120", "€2.50", "£5,000", "$3 million"
        if low in _CURRENCY_SIGNS and i + 1 < n and toks[i + 1].digit:
            cash = _number(toks[i + 1], t.decimal_comma)
            if cash is not None:
                factor, j = _scale(toks, i + 2, t)
                add("money", _CURRENCY_SIGNS[low], cash * factor, "", i, j)
                i = j
                continue
        # a day in words before its month: "el cinco de noviembre", "the seventh of June"
        if not tok.digit and (day_word := _word_day(toks, i, t)) is not None:
            day, j = day_word
            add("date", "day", float(t.months[toks[j - 1].low] * 100 + day), "", i, j)
            if j < n and toks[j].digit and _is_year(toks[j], float(toks[j].text)):
                add("year", "year", float(toks[j].text), "", j, j + 1)
                j += 1
            i = j
            continue
        # dates in figures, day first: "14.10.", "30.06.2026", "30/04", "31/03/2026"
        if tok.digit and (numeric := _numeric_date(toks, i)) is not None:
            when, year, j = numeric
            add("date", "day", when, "", i, j)
            if year is not None:
                add("year", "year", year, "", i, j)
            i = j
            continue
        # times: "18:00", "6:30 pm", "6 pm", "noon"
        if low in _TIME_WORDS:
            add("time", "clock", float(_TIME_WORDS[low]), "", i, i + 1)
            i += 1
            continue
        clock = re.fullmatch(r"(\d{1,2})[:.](\d{2})", tok.text) if tok.digit else None
        ampm, after = _ampm(toks, i + 1) if tok.digit else _day_part(toks, i, t)
        worded = not tok.digit and ampm is not None  # "ten in the morning", "eleven at night"
        if clock or worded or (tok.digit and ampm and re.fullmatch(r"\d{1,2}", tok.text)):
            hour = int(clock.group(1)) if clock else int(t.small[low]) if worded else int(tok.text)
            minute = int(clock.group(2)) if clock else 0
            if hour <= 24 and minute < 60 and (clock or 1 <= hour <= 12):
                if ampm == "n":
                    ampm = "p" if 6 <= hour < 12 else "a"
                if ampm == "p" and hour < 12:
                    hour += 12
                elif ampm == "a" and hour == 12:
                    hour = 0
                either = (
                    t.code == "en" and clock is not None and not ampm
                    and not tok.text.startswith("0") and 1 <= hour <= 12
                )  # fmt: skip
                label = EITHER_HALF if either else ""  # "at 2:30": 2:30 or 14:30
                add("time", "clock", float(hour * 60 + minute), label, i, after if ampm else i + 1)
                i = after if ampm else i + 1
                continue
        # dates: "15 March 2024", "March 15, 2024", "March 15"; a month alone is a date too
        if low in t.months and _ends_month(toks, i, t):
            i = _month_end(toks, i, out, text, t)
            continue
        if low in t.months and tok.text[0].isupper() and low != "may":
            i = _date(toks, i, out, text, t)
            continue
        if (
            low == "may"
            and tok.text[0].isupper()
            and 0 < i < n - 1
            and (toks[i + 1].digit or toks[i - 1].digit)
        ):
            i = _date(toks, i, out, text, t)
            continue
        # "15 March", and "15. März" / "15. maart" (a day with a dot before the month), and
        # "1er juin", "1° marzo", "1 de marzo", "1º de junho" (a day marker or "de" between)
        dot = _day_gap(toks, i, t) if tok.digit else 0
        if (
            tok.digit
            and i + 1 + dot < n
            and toks[i + 1 + dot].low in t.months
            and re.fullmatch(r"\d{1,2}", tok.text)
        ):
            day = int(tok.text)
            month = t.months[toks[i + 1 + dot].low]
            j = i + 2 + dot
            if 1 <= day <= 31:
                add("date", "day", float(month * 100 + day), "", i, j)
                if j + 1 < n and toks[j].low in _DAY_JOINERS and toks[j + 1].digit:
                    j += 1  # "1 de marzo de 2024"
                if j < n and toks[j].digit and _is_year(toks[j], float(toks[j].text)):
                    add("year", "year", float(toks[j].text), "", j, j + 1)
                    j += 1
                i = j
                continue
        if low in t.weekdays:
            add("weekday", "weekday", float(t.weekdays[low]), "", i, i + 1)
            i += 1
            continue
        if low in t.ordinals or _ORDINAL_SUFFIX.match(low):
            m = _ORDINAL_SUFFIX.match(low)
            value = float(m.group(1)) if m else float(t.ordinals[low])
            k = i + 2 if i + 2 < n and toks[i + 1].low == "of" else i + 1
            if m and 1 <= value <= 31 and k < n and toks[k].low in t.months:
                # "15th Jan 2027", "the 1st of March": a day of a month
                add("date", "day", float(t.months[toks[k].low] * 100 + value), "", i, k + 1)
                j = k + 1
                if j < n and toks[j].digit and _is_year(toks[j], float(toks[j].text)):
                    add("year", "year", float(toks[j].text), "", j, j + 1)
                    j += 1
                i = j
                continue
            add("ordinal", "ordinal", value, "", i, i + 1)
            i += 1
            continue
        # numbers: digits or words, then a scale, then a currency / percent / unit
        amount: float | None = None
        j = i
        if tok.digit:
            amount = _number(tok, t.decimal_comma)
            j = i + 1
        else:
            words = _word_number(toks, i, t)
            if words is not None and not (
                low == "one"
                and not _unit_follows(toks, words[1], t)
                and not _times_after(toks, words[1], t)
                and _range_unit(toks, words[1], t) not in t.units  # "one or two weeks"
            ):
                amount, j = words
        if amount is None:
            i += 1
            continue
        if (said := _spoken_clock(toks, i, amount, j, t)) is not None:
            minutes, j = said  # "a las nueve y media", "um 9 Uhr", "à 9h30"
            either = (
                t.code == "en"
                and minutes < _NOON_HOUR
                and not _ampm(toks, j)[0]
                and not {x.low for x in toks[i:j]} & _DAY_PART_WORDS
            )  # "two o'clock": 2:00 or 14:00
            add("time", "clock", minutes, EITHER_HALF if either else "", i, j)
            i = j
            continue
        if tok.digit and _is_year(tok, amount) and not _unit_follows(toks, j, t):
            add("year", "year", amount, "", i, j)
            i = j
            continue
        factor, j = _scale(toks, j, t)
        amount *= factor
        share = _share_words(toks, j, t) if j < n else 0
        if share:
            end = j + share
            add("percent", "percent", amount, "", i, end)
            i = end
            continue
        if j < n and toks[j].low in t.currency_words:
            cents, end = _cents(toks, j + 1, t) if amount == int(amount) else (0.0, j + 1)
            add("money", t.currency_words[toks[j].low], amount + cents, "", i, end)
            i = end  # "six euros quatre-vingts", "due euro e cinquanta (centesimi)"
            continue
        if j < n and toks[j].low in _CURRENCY_SIGNS:  # "15.000 €", "2,25 €": a sign after
            add("money", _CURRENCY_SIGNS[toks[j].low], amount, "", i, j + 1)
            i = j + 1
            continue
        if (half := _and_half(toks, j, t)) is not None and (
            _unit(toks, half[1], t)[0] in t.units or (half[1] < n and toks[half[1]].low in _TIMES)
        ):
            amount, j = amount + half[0], half[1]  # "two and a half days", "... times"
        if j < n and toks[j].low in _TIMES:
            add("quantity", "time", amount, "", i, j + 1)  # "1.5 times", "deux fois"
            i = j + 1
            continue
        unit, end = _unit(toks, j, t)
        if unit in t.units and (half := _and_half(toks, end, t)) is not None:
            amount, end = amount + half[0], half[1]  # "deux jours et demi", "dos horas y media"
        if unit is not None:
            dim, per = t.units.get(unit, (unit, 1.0))
            if amount == 1 and not tok.digit and i and toks[i - 1].low in _PERIOD_BEFORE:
                periods.add(len(out))  # "in un anno", "en un año": maybe a rate's period
            add("quantity", dim, amount * per, "", i, end)
            if unit not in t.units:
                out[-1] = replace(out[-1], nouns=_counted(toks, j))
        elif (ranged := _range_unit(toks, j, t)) is not None:
            dim, per = t.units.get(ranged, (ranged, 1.0))
            add("quantity", dim, amount * per, "", i, j)  # "12 to 15 minutes": 12 minutes
        else:
            add("quantity", "", amount, "", i, j)
        i = max(j, i + 1)
    if periods:
        out = _without_periods(out, periods)
    if out:
        out = _with_bounds(out, toks, t)
    out.extend(_names(text, toks, common, t))
    return out


#: Words before "a week", "un anno" that may make it the period of a rate ("*in* a week you
#: can work at most 48 hours", "*in* un anno ... 250 ore").
_PERIOD_BEFORE = frozenset("in per each every pro je par por en em ogni".split())


def _without_periods(values: list[Value], periods: set[int]) -> list[Value]:
    """``values`` without the one-unit durations at ``periods`` (after a word of
    :data:`_PERIOD_BEFORE`) when another duration of the same dimension is said too: "in a
    week ... 48 hours" counts hours per week, and the week is no amount of its own (nor is
    "un anno" in "in un anno ... 250 ore")."""
    out = []
    for k, v in enumerate(values):
        if k in periods and any(
            o.kind == v.kind and o.key in DURATION_DIMS and j not in periods
            for j, o in enumerate(values)
        ):
            continue
        out.append(v)
    return out


#: Words for the hundredth part of a currency, in every language.
_CENT_WORDS = frozenset(
    "cent cents centime centimes céntimo céntimos centimo centimos centesimo centesimi "
    "centavo centavos cêntimo cêntimos penny pence".split()
)
#: Words between a currency and its cents ("due euro *e* cinquanta", "cuatro euros *con*
#: veinte").
_CENT_JOINERS = frozenset("and et e y und en con".split())


def _cents(toks: list[_Tok], j: int, t: _Tables) -> tuple[float, int]:
    """The cents said after a currency word at ``toks[j]`` ("euros *quatre-vingts*", "euro *e
    cinquanta centesimi*", "pounds *fifty*"): (amount in the currency, index after them);
    (0.0, j) when none. A number followed by a unit or another currency is no cents ("ten
    euros 30 days later")."""
    k = j + 1 if j < len(toks) and toks[j].low in _CENT_JOINERS else j
    if k >= len(toks):
        return 0.0, j
    if toks[k].digit:
        value, after = _number(toks[k], t.decimal_comma), k + 1
    elif (words := _word_number(toks, k, t)) is not None:
        value, after = words
    else:
        return 0.0, j
    if value is None or not 0 < value < 100 or value != int(value):
        return 0.0, j
    if after < len(toks) and toks[after].low in _CENT_WORDS:
        return value / 100, after + 1
    if after < len(toks) and (
        toks[after].low in t.units or toks[after].low in t.currency_words or toks[after].digit
    ):
        return 0.0, j
    return value / 100, after


def _times_after(toks: list[_Tok], j: int, t: _Tables) -> bool:
    """ "and a half times" at ``toks[j]`` ("one and a half times the rate")."""
    half = _and_half(toks, j, t)
    return half is not None and half[1] < len(toks) and toks[half[1]].low in _TIMES


#: Words after "half"/"quarter" that count from the hour after them ("half past six").
_PAST = {"past": 1, "after": 1, "to": -1, "before": -1}
#: Tokens read after a time of day for whether it is after noon.
_EVENING_WORDS = 3


def _hour_at(toks: list[_Tok], k: int, t: _Tables) -> tuple[int, int] | None:
    """An hour of the clock (1 to 12) at ``toks[k]``, in figures or words, and the index
    after it."""
    if k >= len(toks):
        return None
    if toks[k].digit:
        hour, after = _number(toks[k], t.decimal_comma), k + 1
    else:
        words = _word_number(toks, k, t)
        hour, after = words if words is not None else (None, k)
    if hour is None or hour != int(hour) or not 1 <= hour <= 12:
        return None
    return int(hour), after


def _half_hour(toks: list[_Tok], i: int, t: _Tables) -> tuple[float, int] | None:
    """A time said before its hour: "half tien" and "halb zehn" (9:30, in a language whose
    :attr:`Clock.half_before` is set), "half past six", "quarter to ten"; in English also the
    British "half five" (5:30) and minutes past or to an hour (:func:`_minutes_past`)."""
    low = toks[i].low
    if low in t.halves and t.clock.half_before and (hour := _hour_at(toks, i + 1, t)):
        return _evening(toks, hour[1], (hour[0] - 1) * 60 + 30, t)  # "halb sieben abends"
    if low in ("half", "quarter") and i + 1 < len(toks) and toks[i + 1].low in _PAST:
        if i + 2 < len(toks) and toks[i + 2].low in _NAMED_HOURS:  # "half past midnight"
            past = 30 if low == "half" else 15 * _PAST[toks[i + 1].low]
            return (_NAMED_HOURS[toks[i + 2].low] * 60 + past) % (24 * 60), i + 3
        if (hour := _hour_at(toks, i + 2, t)) is None:
            return None
        past = 30 if low == "half" else 15 * _PAST[toks[i + 1].low]
        minutes = (hour[0] * 60 + past) % (24 * 60)
        return _evening(toks, hour[1], minutes, t)
    if t.code != "en":
        return None
    if low == "half" and (hour := _hour_at(toks, i + 1, t)) is not None:
        if hour[1] < len(toks) and (toks[hour[1]].low in t.units or toks[hour[1]].low in _A):
            return None  # "half two days", "half an hour": no time of day
        return _evening(toks, hour[1], hour[0] * 60 + 30, t)  # British "half five": 5:30
    return _minutes_past(toks, i, t)


#: Hours said by name ("half past *midnight*", "quarter to *noon*").
_NAMED_HOURS = {"midnight": 0, "noon": 12, "midday": 12}
#: Articles after "half" that make it a length ("half an hour").
_A = frozenset({"a", "an"})
#: Minutes said before "past"/"to" without the word "minutes" ("twenty past two").
_SPOKEN_MINUTES = frozenset({5, 10, 20, 25})
#: Words that may follow a time of day said in minutes past an hour ("ten to six *in* the
#: evening"); any other word makes "five to ten" a range ("five to ten tablets").
_AFTER_TIME = frozenset(
    "am pm a.m. p.m. in at on tonight this every each then so but before after until till "
    "for when if or and o'clock".split()
)
#: Words for "minutes" between a count of minutes and "past"/"to".
_MINUTE_WORDS = frozenset({"minutes", "minute", "mins", "min"})


def _minutes_past(toks: list[_Tok], i: int, t: _Tables) -> tuple[float, int] | None:
    """A time of day said in minutes past or to an hour ("twenty past two", "ten to six",
    "25 minutes past 4"): minutes after midnight and the index after it."""
    if toks[i].digit:
        got: tuple[float, int] | None = (_number(toks[i], t.decimal_comma) or 0.0, i + 1)
    else:
        got = _word_number(toks, i, t)
    if got is None or not 1 <= got[0] <= 59 or got[0] != int(got[0]):
        return None
    count, k = int(got[0]), got[1]
    said = k < len(toks) and toks[k].low in _MINUTE_WORDS
    if said:
        k += 1
    elif count not in _SPOKEN_MINUTES:
        return None  # "two to three days": a range, not a time
    if k >= len(toks) or toks[k].low not in ("past", "to"):
        return None
    if (hour := _hour_at(toks, k + 1, t)) is None:
        return None
    after = toks[hour[1]].low if hour[1] < len(toks) else ""
    if after[:1].isalpha() and after not in _AFTER_TIME:
        return None  # "five to ten tablets": a range of a count
    minutes = (hour[0] * 60 + count * _PAST[toks[k].low]) % (24 * 60)
    return _evening(toks, hour[1], minutes, t)


def _spoken_clock(
    toks: list[_Tok], i: int, hour: float, j: int, t: _Tables
) -> tuple[float, int] | None:
    """A time of day said around the number ``hour`` read at ``toks[i:j]``: after a word
    that makes it one ("a las nueve", "om 9 uur") or before one ("9 Uhr", "9h30", "nine
    o'clock"), with its minutes ("9 Uhr 30"), a half or a quarter after a joiner ("y media",
    "et quart"), and the part of the day after it ("de la tarde"). (minutes after midnight,
    the index after it); None for any other number."""
    if (
        hour != int(hour)
        or not 0 <= hour <= 24
        or toks[i].text.count(".")
        or (toks[i].digit and not re.fullmatch(r"\d{1,2}", toks[i].text))
    ):
        return None
    clock, n, k = t.clock, len(toks), j
    led = _led(toks, i, clock)
    said = False
    if k < n and toks[k].low in clock.hours:
        said, k = True, k + 1  # "9 Uhr", "9h", "nine o'clock"
    elif led and k < n and t.units.get(toks[k].low, ("", 0.0)) == ("minutes", 60.0):
        said, k = True, k + 1  # "à neuf heures", "om negen uur"
    minutes = 0
    if said and k < n and re.fullmatch(r"\d{2}", toks[k].text) and int(toks[k].text) < 60:
        minutes, k = int(toks[k].text), k + 1  # "9 Uhr 30", "9h30"
    elif (said or led) and (half := _and_half(toks, k, t, clock.quarters)) is not None:
        if half[1] < n and toks[half[1]].low in _TIMES:
            return None  # "at one and a half times the rate": a multiple, not half past one
        minutes, k, said = round(60 * half[0]), half[1], True
    if not (said or (led and hour <= 24 and _evening_at(toks, k, t))):
        return None
    return _evening(toks, k, int(hour) * 60 + minutes, t)


def _and_half(
    toks: list[_Tok], k: int, t: _Tables, quarters: frozenset[str] = frozenset()
) -> tuple[float, int] | None:
    """A half (or, with ``quarters``, a quarter) joined at ``toks[k]`` ("and a half", "et
    demie", "y cuarto", "en een half"): the fraction and the index after it."""
    n = len(toks)
    if k + 1 >= n or toks[k].low not in t.joiners - {"-"}:
        return None
    after = k + 1
    if toks[after].low in t.indefinite | {"a"} and after + 1 < n:
        after += 1
    if toks[after].low in t.halves | {"half"}:
        return 0.5, after + 1
    if toks[after].low in quarters:
        return 0.25, after + 1
    return None


def _and_a_half(toks: list[_Tok], k: int, t: _Tables, length: float) -> tuple[float, int]:
    """One unit (``length`` long) and, when a half follows at ``toks[k]`` ("un mois *et
    demi*", "a month *and a half*"), half of it more: the length and the index after it."""
    half = _and_half(toks, k, t)
    return (length * (1 + half[0]), half[1]) if half is not None else (length, k)


def _led(toks: list[_Tok], i: int, clock: Clock) -> bool:
    """One of the clock's words (one or two words) comes right before ``toks[i]``, and the
    number is neither a range's far end ("de 2 à 3 heures") nor a limit."""
    if i == 0:
        return False
    if i > 1 and (toks[i - 2].digit or toks[i - 2].low in clock.until):
        return False
    two = f"{toks[i - 2].low} {toks[i - 1].low}" if i > 1 else ""
    return toks[i - 1].low in clock.before or two in clock.before


def _evening_at(toks: list[_Tok], k: int, t: _Tables) -> bool:
    return any(tok.low in t.clock.evening for tok in toks[k : k + _EVENING_WORDS])


def _evening(toks: list[_Tok], k: int, minutes: int, t: _Tables) -> tuple[float, int]:
    """``minutes`` after noon when a word for the afternoon or evening follows ("de la
    tarde", "'s avonds") and the hour is before noon; the index after the time."""
    if minutes < 12 * 60 and _evening_at(toks, k, t):
        minutes += 12 * 60
    return float(minutes), k


#: Dimensions of a length of time (days and weeks are counted in minutes).
DURATION_DIMS = frozenset({"months", "minutes"})
#: Words before "a"/"an" that make it a duration ("within a week", "for an hour", "about a
#: month", "lasts a year"); after any other word ("one tablet a day", "twice a week") it is a
#: rate.
_DURATION_LEAD = frozenset(
    "within for in after about around roughly approximately over under than least most nearly "
    "almost to just only last lasts lasted take takes took wait waits waited needs need "
    "until till before by".split()
)


def _article_duration(toks: list[_Tok], i: int, t: _Tables) -> tuple[float, int, str] | None:
    """The duration "a"/"an" at ``toks[i]`` and the unit after it make ("within a week" is 7
    days, "half an hour" 30 minutes): (amount, first token, dimension); None for a rate ("one
    tablet a day", "twice a week", "€5 a month") or no unit of time."""
    unit = _possessed(toks[i + 1].low) if i + 1 < len(toks) else ""
    if unit not in t.units:
        return None
    dim, per = t.units[unit]
    if dim not in DURATION_DIMS or unit.endswith("s"):
        return None
    before = toks[i - 1] if i else None
    if before is not None and before.low == "half":
        return per / 2, i - 1, dim
    after = toks[i + 2].low if i + 2 < len(toks) else ""
    if before is not None and before.low in _RATE_IN and i >= 2 and _ends_an_amount(toks[i - 2], t):
        return None  # "eight hours *in a day*", "three times per week": a rate
    if before is None or not before.low[:1].isalnum() or before.low in _DURATION_LEAD:
        return per, i, dim
    if after in _DURATION_AFTER or unit != toks[i + 1].low:  # "an hour before", "a week's notice"
        return per, i, dim
    return None  # "one tablet a day", "twice a week", "€5 a month": a rate


#: Words that make "a day" after an amount a rate ("eight hours *in* a day").
_RATE_IN = frozenset({"in", "per"})
#: Words for how many of something: "three times in a week", "two doses per day" are rates.
_COUNTS = _TIMES | frozenset({"time", "doses", "dose", "tablets", "tablet", "shifts"})


def _ends_an_amount(tok: _Tok, t: _Tables) -> bool:
    """``tok`` ends an amount: a unit of time ("hours"), a count ("times", "tablets"), or a
    number itself."""
    return tok.digit or tok.low in t.units or tok.low in _COUNTS or tok.low in t.small


def _half(low: str, t: _Tables) -> bool:
    """A word that halves a unit of time, written alone or elided onto it ("mezz'ora")."""
    return low in t.halves or (low.split("'")[0] in t.halves and "'" in low)


def _one_unit(toks: list[_Tok], i: int, t: _Tables) -> tuple[float, str, int] | None:
    """A unit of time counted by an indefinite article and/or halved, from ``toks[i]`` ("un
    año", "ein halbes Jahr", "une demi-heure", "mezz'ora"): (amount, dimension, the index
    after it); None when no unit of time follows."""
    k, amount = i, 1.0
    low = toks[k].low
    if "'" in low and low.split("'")[0] in t.halves:
        unit = low.split("'", 1)[1]
        return _timed(0.5, unit, k + 1, t)
    if low in t.indefinite:
        k += 1
    if k < len(toks) and toks[k].low in t.halves:
        amount, k = 0.5, k + 1
        if k < len(toks) and toks[k].low == "-":
            k += 1
    if k == i or k >= len(toks):
        return None
    return _timed(amount, toks[k].low, k + 1, t)


def _timed(amount: float, unit: str, after: int, t: _Tables) -> tuple[float, str, int] | None:
    if unit not in t.units:
        return None
    dim, per = t.units[unit]
    return (amount * per, dim, after) if dim in DURATION_DIMS else None


#: Words after "a week" / "an hour" that make it a duration wherever it stands ("an hour
#: *before* a meal", "a year *later*").
_DURATION_AFTER = frozenset("before after later earlier ago beforehand afterwards long".split())


#: Words between the two ends of a range ("12 to 15 minutes", "10 bis 12 Tage", "dai 16 *ai*
#: 23 anni", "dos 16 *aos* 23 anos") or of a choice ("120 *ou* 150 dias", "8 *oder* 10 Tage").
_RANGE_WORDS = frozenset(
    {"to", "-", "–", "or", "and", "bis", "à", "a", "tot", "y", "e", "und", "et", "en", "ai",
     "agli", "aos", "às", "ou", "o", "oder", "of"}
)  # fmt: skip
#: Words a range word may bring before the far end ("tot *en met* 23 jaar", "tra i 16 e *i* 23
#: anni", "entre los 16 y *los* 23 años").
_RANGE_LINKS = frozenset({"en", "met", "i", "gli", "le", "los", "las", "os", "as", "les"})


def _range_unit(toks: list[_Tok], j: int, t: _Tables) -> str | None:
    """The unit of a range's far end when ``toks[j:]`` continue a bare number as a range
    ("to 15 minutes", "- to 16-year-olds"): the near end is in the same unit."""
    if j + 2 < len(toks) and toks[j].low in ("-", "–") and toks[j + 1].low in _RANGE_WORDS:
        j += 1  # "5- to 16-year-olds": the near end's hyphen hangs
    if j + 1 < len(toks) and toks[j].low in _RANGE_WORDS:
        k = j + 1
        while k < min(len(toks) - 1, j + 3) and toks[k].low in _RANGE_LINKS:
            k += 1  # "tot en met 23 jaar"
        if toks[k].digit:
            unit, _ = _unit(toks, k + 1, t)
            if k == j + 1 or unit in t.units:
                return unit
    if j + 1 < len(toks) and toks[j].low in _RANGE_WORDS:
        far = _word_number(toks, j + 1, t)  # "de cincuenta a sesenta y nueve años"
        if far is not None:
            unit, _ = _unit(toks, far[1], t)
            return unit if unit in t.units else None
    return None


def _phrase(toks: list[_Tok], a: int, b: int) -> str:
    return " ".join(tok.low for tok in toks[a:b])


def _with_bounds(values: list[Value], toks: list[_Tok], t: _Tables) -> list[Value]:
    """``values`` with the bound each amount's neighbouring words put on it."""
    first = {tok.start: k for k, tok in enumerate(toks)}
    last = {tok.end: k for k, tok in enumerate(toks)}
    out: list[Value] = []
    aged = -1  # the token index after the last amount read as an age ("aged 5 to 16")
    for v in values:
        a, b = first.get(v.start), last.get(v.end)
        if v.kind not in _BOUNDED or a is None or b is None:
            out.append(v)
            continue
        if (
            v.kind == "quantity"
            and not v.key
            and aged >= 0
            and 0 < a - aged <= 2
            and all(tok.low in _RANGE_WORDS for tok in toks[aged:a])
        ):  # the far end of an age range is an age too
            v = replace(v, key="months", amount=(v.amount or 0.0) * 12)
            aged = b + 1
        bound = 0
        for size in range(_BOUND_WORDS, 0, -1):
            if a - size < 0:
                continue
            found = t.bounds_before.get(_phrase(toks, a - size, a))
            if found:
                start = a - size
                negated = _negated_before(toks, start, t)
                spans = start > 0 and toks[start - 1].low in _SPAN_WORDS
                if spans and _phrase(toks, start, a) in _AT_LEAST:
                    negated = False  # "must not drive for at least 4 hours": the ban lasts 4+
                bound = -found if negated else found
                break
        if not bound:
            for size in range(_BOUND_WORDS, 0, -1):
                found = t.bounds_after.get(_phrase(toks, b + 1, b + 1 + size))
                if found and b + size < len(toks):
                    bound = found
                    break
        if v.kind == "quantity" and not v.key and a > 0 and toks[a - 1].low in _AGE_WORDS:
            v = replace(v, key="months", amount=(v.amount or 0.0) * 12)  # "aged 16": years
            aged = b + 1
        if any(tok.low in t.approximate for tok in toks[max(0, a - _BOUND_WORDS) : a]):
            v = replace(v, approx=True)  # "about 40", "just under 40%", "etwa 200 mg"
        out.append(replace(v, bound=bound) if bound else v)
    return out


#: Words before a bound phrase searched for a negation that reverses it ("will not be
#: scheduled for *more than* 9 hours" is at most 9 hours).
_NEGATION_REACH = 5


def _negated_before(toks: list[_Tok], start: int, t: _Tables) -> bool:
    """A negation (or "without") among the :data:`_NEGATION_REACH` words before ``start``,
    in the same clause (a punctuation mark ends the search)."""
    for k in range(start - 1, max(0, start - _NEGATION_REACH) - 1, -1):
        low = toks[k].low
        if not low[:1].isalnum():
            return False
        if low in t.negations or low in t.without:
            return True
    return False


#: Words that put an English time in one half of the day ("ten *in the morning*").
_DAY_PART_WORDS = frozenset({"morning", "afternoon", "evening", "night", "tonight"})
#: Parts of the day after a bare hour, and the half of the day they put it in.
_DAY_PARTS = (
    (("in", "the", "morning"), "a"),
    (("in", "the", "afternoon"), "p"),
    (("in", "the", "evening"), "p"),
    (("at", "night"), "n"),  # pm from 6 to 11, am after midnight ("2 at night")
)


#: Words after which an hour in words is a time of day ("*at* ten in the morning"); at the
#: start of a text it is one too ("Ten in the morning.").
_BEFORE_WORDED_HOUR = frozenset("at until till by from before after around about to".split())


def _day_part(toks: list[_Tok], i: int, t: _Tables) -> tuple[str | None, int]:
    """A part of the day after an hour in words at ``toks[i]`` ("ten *in the morning*",
    "eleven *at night*"): its half of the day and the index after it; (None, i + 1) when
    ``toks[i]`` is no such hour."""
    hour = t.small.get(toks[i].low)
    if hour is None or not 1 <= hour <= 12 or hour != int(hour):
        return None, i + 1
    if i and toks[i - 1].low not in _BEFORE_WORDED_HOUR:
        return None, i + 1  # "take *two* in the morning": a count, not a time
    return _part_of_day(toks, i + 1)


def _part_of_day(toks: list[_Tok], j: int) -> tuple[str | None, int]:
    """A part of the day at ``toks[j]`` ("in the morning", "at night"): its half of the day
    and the index after it; (None, j) when none."""
    for words, half in _DAY_PARTS:
        if tuple(x.low for x in toks[j : j + len(words)]) == words:
            return half, j + len(words)
    return None, j


def _ampm(toks: list[_Tok], j: int) -> tuple[str | None, int]:
    """ "am"/"pm" (also "a.m.", "p.m.", "in the morning") at ``toks[j]``: the letter and the
    index after it."""
    if j >= len(toks):
        return None, j
    low = toks[j].low
    if low in ("am", "pm"):
        return low[0], j + 1
    half, after = _part_of_day(toks, j)  # "8 in the morning", "4 in the afternoon", "11 at night"
    if half is not None:
        return half, after
    if low in ("a", "p") and j + 3 < len(toks) + 1:
        parts = "".join(t.low for t in toks[j : j + 4])
        m = re.match(r"^(a|p)\.m\.?", parts)
        if m:
            used = 4 if parts.startswith(f"{low}.m.") else 3
            return low, j + used
    return None, j


def _share_words(toks: list[_Tok], j: int, t: _Tables) -> int:
    """How many tokens from ``toks[j]`` say "per cent" ("%", "percent", "per cent", "pour
    cent", "Prozent"); 0 when they do not."""
    for phrase in t.percent:
        k = j
        for word in phrase:
            if k >= len(toks) or toks[k].low != word:
                break
            k += 1
        else:
            return k - j
    return 0


_DOTTED_DATE = re.compile(r"(\d{1,2})\.(\d{1,2})(?:\.(\d{4}))?")


def _numeric_date(toks: list[_Tok], i: int) -> tuple[float, float | None, int] | None:
    """A date in figures, day first, at ``toks[i]``: (month * 100 + day, the year or None,
    the index after it). "14.10." needs its closing dot (or a year) to be no decimal and no
    clock time; "30/04" and "31/03/2026" are dates as written."""
    n = len(toks)
    m = _DOTTED_DATE.fullmatch(toks[i].text)
    if m is not None:
        if m.group(3) is None and not (i + 1 < n and toks[i + 1].text == "."):
            return None  # "14.10 Euro", "um 9.30 Uhr"
        day, month = int(m.group(1)), int(m.group(2))
        year = float(m.group(3)) if m.group(3) else None
        end = i + 1 if m.group(3) else i + 2
    elif (
        i + 2 < n
        and toks[i + 1].text == "/"
        and toks[i + 2].digit
        and re.fullmatch(r"\d{1,2}", toks[i].text)
        and re.fullmatch(r"\d{1,2}", toks[i + 2].text)
    ):
        day, month = int(toks[i].text), int(toks[i + 2].text)
        end, year = i + 3, None
        if end + 1 < n and toks[end].text == "/" and re.fullmatch(r"\d{4}", toks[end + 1].text):
            year, end = float(toks[end + 1].text), end + 2
        elif len(toks[i].text) + len(toks[i + 2].text) < 3:
            return None  # "3/4 full", "1/2 tablet": a fraction
    else:
        return None
    if not (1 <= day <= 31 and 1 <= month <= 12):
        return None
    return float(month * 100 + day), year, end


def _possessed(low: str) -> str:
    """A word without its possessive ending ("month's" -> "month", "weeks'" -> "weeks")."""
    for mark in ("'s", "’s", "'", "’"):
        if low.endswith(mark) and len(low) > len(mark):
            return low[: -len(mark)]
    return low


def _unit_follows(toks: list[_Tok], j: int, t: _Tables) -> bool:
    return _unit(toks, j, t)[0] is not None


def _unit(toks: list[_Tok], j: int, t: _Tables) -> tuple[str | None, int]:
    """The unit after a number: a known unit within :data:`_UNIT_GAP` words ("25 vacation days",
    "2-year"), else the next noun-like word ("8 books" -> "book"), else none."""
    k = j
    if k < len(toks) and toks[k].low == "-":
        k += 1
    for step in range(_UNIT_GAP + 1):
        if k + step >= len(toks):
            break
        tok = toks[k + step]
        word = _possessed(tok.low)
        if not word.isalpha():
            break
        if word in t.units:
            return word, k + step + 1  # "24 hours", "one month's notice"
        if tok.low in t.stopwords or tok.low in _RATE_WORDS:
            break  # "6 tablets a day": the unit is what comes before "a"; "20 vakantiedagen
            # per jaar": 20 of a thing each year, not 20 years
    if (
        k < len(toks)
        and toks[k].low.isalpha()
        and toks[k].low not in STOPWORDS
        and toks[k].low not in _RANGE_WORDS  # "12 bis 18 Monate": a range, not "12 bis"
        and toks[k].low not in _RATE_WORDS  # "quatre-vingts par jour": no unit "par"
    ):
        word = toks[k].low
        if len(word) > 2 and word not in t.months and word not in t.weekdays:
            stem = word[:-1] if word.endswith("s") and not word.endswith("ss") else word
            return stem, k + 1
    return None, j


#: Words that make a rate of the unit after them ("per", "pro", "par", "por"): no unit of
#: the amount before them.
_RATE_WORDS = frozenset("per pro par por".split())
#: Words before a unit of time that make it a rate's period ("per day", "al día", "ao dia",
#: "am Tag").
_PER_ONE = _RATE_WORDS | frozenset("al ao am".split())


def rate_periods(text: str) -> tuple[Value, ...]:
    """The periods of the rates ``text`` gives ("6 cápsulas *al día*", "20 Stunden *pro
    Woche*"): one of the unit each, a length of time, what "in one day" or "a week" states.
    They are not among :func:`extract`'s values (a rate's period is no fact of its own to
    mutate or to set against another)."""
    return _rate_periods(current_language(), text)


@lru_cache(maxsize=4096)
def _rate_periods(code: str, text: str) -> tuple[Value, ...]:
    t = tables(code)
    toks = _tokens(text, t.elided)
    out: list[Value] = []
    for i in range(len(toks) - 1):
        per = toks[i].low in _PER_ONE or (
            # "8 tablets a day", "eight hours in a day": the article of a rate
            toks[i].low in t.articles and i > 0 and _article_duration(toks, i, t) is None
        )
        if per and (got := _timed(1.0, toks[i + 1].low, i + 2, t)):
            start, end = toks[i].start, toks[i + 1].end
            out.append(Value("quantity", got[1], got[0], "", start, end, text[start:end]))
    return tuple(out)


#: Words that join a counted thing to what it is made of ("tablets of paracetamol").
_LINKERS = frozenset("of de du des di del della da do dos das van von".split())
#: Words after an amount read for what it counts.
_COUNTED_WORDS = 3


def _counted(toks: list[_Tok], j: int) -> frozenset[str]:
    """The words after an amount that name what it counts: up to :data:`_COUNTED_WORDS`
    words, over joining words ("of"), up to the first other function word or sign."""
    out: set[str] = set()
    for tok in toks[j : j + _COUNTED_WORDS]:
        low = tok.low
        if low in _LINKERS:
            continue
        if not low.isalpha() or low in STOPWORDS or len(low) <= 2:
            break
        out.add(low[:-1] if low.endswith("s") and not low.endswith("ss") else low)
    return frozenset(out)


#: What may stand between a day and its month: a dot ("15. März"), an ordinal marker ("1er",
#: "1°", "1º") and the word joining them ("1 de marzo", "1° di marzo").
_DAY_MARKS = frozenset({".", "er", "°", "º", "ª"})
_DAY_JOINERS = frozenset({"de", "di", "del", "of"})


def _word_day(toks: list[_Tok], i: int, t: _Tables) -> tuple[int, int] | None:
    """A day of the month in words at ``toks[i]`` with its month after it ("cinco de
    noviembre", "trois mars", "seventh of June"): (the day, the index after the month)."""
    low = toks[i].low
    found = t.small.get(low, t.ordinals.get(low))
    if found is None or not 1 <= found <= 31 or found != int(found):
        return None
    k = i + 1 + _day_gap(toks, i, t)
    if k >= len(toks) or toks[k].low not in t.months:
        return None
    if toks[k].low == "may" and not toks[k].text[0].isupper():
        return None  # "two may apply"
    return int(found), k + 1


def _day_gap(toks: list[_Tok], i: int, t: _Tables) -> int:
    """How many tokens after the day at ``toks[i]`` stand before its month name (0 when the
    month follows at once or no month follows)."""
    k = i + 1
    if k < len(toks) and toks[k].low in _DAY_MARKS:
        k += 1
    if k < len(toks) and toks[k].low in _DAY_JOINERS:
        k += 1
    return k - (i + 1) if k < len(toks) and toks[k].low in t.months else 0


def _ends_month(toks: list[_Tok], i: int, t: _Tables) -> bool:
    """Whether a phrase of ``t.month_end`` stands right before the month at ``toks[i]``."""
    return any(
        " ".join(tok.low for tok in toks[i - size : i]) in t.month_end
        for size in range(1, 4)
        if i - size >= 0
    )


def _month_end(toks: list[_Tok], i: int, out: list[Value], text: str, t: _Tables) -> int:
    """ "the end of June (2021)": the month's last day (and the year after it); a February
    of no given year stays the month."""
    month = t.months[toks[i].low]
    j = i + 1
    year = None
    if j < len(toks) and toks[j].digit and _is_year(toks[j], float(toks[j].text)):
        year = int(toks[j].text)
    last = last_day(month, year)
    s, e = toks[i].start, toks[i].end
    if last is None:
        out.append(Value("date", "month", float(month), "", s, e, text[s:e]))
    else:
        out.append(Value("date", "day", float(month * 100 + last), "", s, e, text[s:e]))
    if year is not None:
        ys, ye = toks[j].start, toks[j].end
        out.append(Value("year", "year", float(year), "", ys, ye, text[ys:ye]))
        j += 1
    return j


def _date(toks: list[_Tok], i: int, out: list[Value], text: str, t: _Tables) -> int:
    """A date starting at a month name ("March 15, 2024", "March 2024", "March")."""
    n = len(toks)
    month = t.months[toks[i].low]
    j = i + 1
    day = None
    if j < n and toks[j].digit and re.fullmatch(r"\d{1,2}", toks[j].text):
        day = int(toks[j].text)
        j += 1
    elif j < n and _ORDINAL_SUFFIX.match(toks[j].low):
        day = int(_ORDINAL_SUFFIX.match(toks[j].low).group(1))  # type: ignore[union-attr]
        j += 1
    start, end = toks[i].start, toks[j - 1].end
    if day is not None and 1 <= day <= 31:
        out.append(Value("date", "day", float(month * 100 + day), "", start, end, text[start:end]))
    else:
        out.append(Value("date", "month", float(month), "", start, end, text[start:end]))
    k = j + 1 if j < n and toks[j].low == "," else j
    if k < n and toks[k].digit and _is_year(toks[k], float(toks[k].text)):
        s, e = toks[k].start, toks[k].end
        out.append(Value("year", "year", float(toks[k].text), "", s, e, text[s:e]))
        j = k + 1
    return j


def _names(
    text: str, toks: list[_Tok], common: Callable[[str], bool] | None, t: _Tables
) -> list[Value]:
    """Runs of capitalized words that are not a sentence's first common word ("Marie Curie",
    "World Health Organization", "Black Sea"): one name each."""
    out: list[Value] = []
    run: list[_Tok] = []

    def close() -> None:
        words = [t for t in run if t.low not in _NOT_NAMES]
        if words:
            s, e = words[0].start, words[-1].end
            label = " ".join(t.low for t in words)
            out.append(Value("name", "name", None, label, s, e, text[s:e]))
        run.clear()

    for k, tok in enumerate(toks):
        head = tok.text[:1]
        capital = head.isalpha() and head.isupper()
        if capital and tok.low in t.function_words and not tok.text.isupper():
            capital = False  # "Sie", a sentence's "La": a function word, not a name
        if capital and not (
            tok.low in t.months
            or tok.low in t.weekdays
            or tok.low in t.currency_words
            or tok.low in t.units
            or tok.low in t.small
        ):
            first = k == 0 or toks[k - 1].text in '.!?:;"“(' or toks[k - 1].low == "-"
            # nouns are capitalized: only a word after a preposition may start a name
            if (
                t.name_openers is not None
                and not run
                and (first or toks[k - 1].low not in t.name_openers)
                and tok.low not in _TITLES  # "Frau Öztürk", "Herr Dr. Brandt"
            ):
                continue
            if (
                first
                and not run
                and tok.low not in _TITLES  # "Frau Öztürk ..." opens a sentence with a name
                and (tok.low in _NOT_NAMES or (common and common(tok.low)))
            ):
                continue
            run.append(tok)
        elif (
            run
            and tok.low in ("of", "de", "van", "von", "da", "del", "la")
            and k + 1 < len(toks)
            and toks[k + 1].text[:1].isupper()
        ):
            run.append(tok)
        elif run:
            close()
    close()
    return out
