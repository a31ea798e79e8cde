"""Tokens with character offsets, and the stop words.

One :class:`Token` type; :func:`tokenize` has two named modes because two kinds of reader need
different cuts (and the packaged models were trained on them):

``"align"``
    A word is letters and digits joined by ``'``, ``’`` or ``-`` ("COVID-19", "it's"); every
    other non-space character is a token of its own. Offsets cover every visible character,
    which span alignment, citations and the word localizer rely on.
``"lexical"``
    Numbers stay whole with their separators and a trailing percent ("1,000", "3.5%"); a word
    is letters joined by ``-``, ``'`` or ``’``; punctuation marks are single tokens;
    underscores are dropped. The offline judge compares claims to evidence with these.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Generic, Literal, TypeVar, overload

from guardrail.text.stemming import light_stem

TokenMode = Literal["align", "lexical"]
_T = TypeVar("_T")


class _computed_once(Generic[_T]):  # a decorator, named like cached_property
    """An attribute computed on first read and then stored on the instance.

    Like :func:`functools.cached_property` without its lock (Python 3.11 takes one on every
    first read): tokens are made by the thousand and most attributes are read once.
    """

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> _computed_once[_T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = self.compute(instance)
        instance.__dict__[self.name] = value  # later reads find it there, not here
        return value


_PATTERNS: dict[str, re.Pattern[str]] = {
    "align": re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*|\S", re.UNICODE),
    "lexical": re.compile(
        r"\d+(?:[.,]\d+)*%?|[^\W\d_]+(?:[-'’][^\W\d_]+)*|[^\w\s]",
        re.UNICODE,
    ),
}

STOPWORDS = frozenset(
    (
        "a an the and or but nor so yet of in on at to for from by with without into onto upon "
        "about above below over under between among through during before after since until "
        "than as is are was were be been being am do does did done has have had having can "
        "could may might must shall should will would it its it's this that these those there "
        "here he she they them his her their theirs we us our you your i me my mine who whom "
        "whose which what when where why how also very just only not no yes too then thus "
        "however therefore such own same other each any all both either neither some more most "
        "much many few"
    ).split()
)
#: Negations and quantifiers carry meaning: never treated as droppable function words.
MEANINGFUL = frozenset({"not", "no", "never", "all", "only", "none", "without", "nor"})


@dataclass(frozen=True)
class Token:
    """A token and its offsets: ``source[start:end] == text``."""

    text: str
    start: int
    end: int

    @_computed_once
    def lower(self) -> str:
        """Lower case, with the typographic apostrophe made plain."""
        return self.text.lower().replace("’", "'")

    @property
    def is_word(self) -> bool:
        """Starts with a letter."""
        return self.text[:1].isalpha()

    @property
    def is_number(self) -> bool:
        """Starts with a digit."""
        return self.text[:1].isdigit()

    @property
    def is_alnum(self) -> bool:
        """Starts with a letter or any numeric character (not punctuation)."""
        return self.text[:1].isalnum()

    @property
    def is_capitalized(self) -> bool:
        return self.text[:1].isupper()

    @_computed_once
    def key(self) -> str:
        """The alignment key: :func:`~guardrail.text.stemming.light_stem` of the text."""
        return light_stem(self.text)

    @_computed_once
    def content(self) -> bool:
        """A word or number that is not a function word (negations and quantifiers count)."""
        low = self.text.lower()
        return self.is_alnum and (low not in STOPWORDS or low in MEANINGFUL)


#: Texts whose tokens are remembered (a statement is read again by several steps), and the
#: longest text remembered: at most a few MB of tokens are kept.
TEXTS_KEPT = 256
_KEPT_CHARS = 1000


def tokenize(text: str, mode: TokenMode) -> list[Token]:
    """The tokens of ``text`` with their offsets (see the module docstring for ``mode``)."""
    if len(text) <= _KEPT_CHARS:
        return list(_remembered(text, mode))
    return _tokenize(text, mode)


def _tokenize(text: str, mode: TokenMode) -> list[Token]:
    return [Token(m.group(0), m.start(), m.end()) for m in _PATTERNS[mode].finditer(text)]


@lru_cache(maxsize=TEXTS_KEPT)
def _remembered(text: str, mode: TokenMode) -> tuple[Token, ...]:
    """Tokens are immutable, so one text's tokens (and what they compute) can be shared."""
    return tuple(_tokenize(text, mode))


def words(text: str) -> list[str]:
    """Lower-cased word and number tokens of the lexical mode (punctuation dropped)."""
    return [t.lower for t in tokenize(text, "lexical") if t.is_word or t.is_number]


def content_keys(text: str) -> set[str]:
    """Alignment keys of the content words of ``text``."""
    return {t.key for t in tokenize(text, "align") if t.content}


#: A number written with a comma before its decimals and dots between thousands.
_COMMA_DECIMAL = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+,\d+")


def comma_decimal(raw: str) -> float | None:
    """The value of ``raw`` written as German, French, Spanish, Italian, Portuguese and Dutch
    write numbers ("15.000" fifteen thousand, "2,25" two and a quarter); None when it is not
    written so."""
    if _COMMA_DECIMAL.fullmatch(raw):
        return float(raw.replace(".", "").replace(",", "."))
    return None


def parse_number(token: str, *, decimal_comma: bool = False) -> float | None:
    """The numeric value of a digit token ("1,000" -> 1000, "3.5%" -> 3.5), else None.
    ``decimal_comma``: the text's language writes "15.000" for fifteen thousand and "2,25" for
    two and a quarter (German, French, Spanish, Italian, Portuguese, Dutch)."""
    raw = token.rstrip("%")
    if not raw or not raw[0].isdigit():
        return None
    if decimal_comma and (value := comma_decimal(raw)) is not None:
        return value
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw):
        raw = raw.replace(",", "")
    elif "," in raw:
        raw = raw.replace(",", ".", 1) if raw.count(",") == 1 and "." not in raw else raw
    try:
        return float(raw)
    except ValueError:
        return None
