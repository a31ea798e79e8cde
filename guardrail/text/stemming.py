"""Two stemmers of different strength, each applied to both sides of every comparison.

:func:`light_stem` only strips a possessive and one common suffix: it keys the words that span
alignment, citations, RT4CHART's evidence search and the word localizer compare.
:func:`stem` is the offline judge's stronger stemmer ("relational" -> "relate"). Both sides of
a comparison always go through the same one, so a stem only has to be consistent, not
linguistically right. They are kept apart because the packaged models and every published
figure were made with them as they are.
"""

from __future__ import annotations

from functools import lru_cache

#: Words whose stems each stemmer remembers (the judge stems the same words over and over).
STEMS_KEPT = 32768

_LIGHT_SUFFIXES = ("ingly", "edly", "ing", "ed", "es", "s", "ly")

_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ational", "ate"),
    ("ization", "ize"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("nesses", ""),
    ("ness", ""),
    ("ments", "ment"),
    ("ingly", ""),
    ("edly", ""),
    ("ings", ""),
    ("sses", "ss"),
    ("ies", "y"),
    ("ied", "y"),
    ("ying", "y"),
    ("ing", ""),
    ("ed", ""),
    ("es", ""),
    ("s", ""),
    ("ly", ""),
)


def _lower_without_possessive(word: str) -> str:
    w = word.lower().replace("’", "'")
    return w[:-2] if w.endswith("'s") else w


@lru_cache(maxsize=STEMS_KEPT)
def light_stem(word: str) -> str:
    """Lower-case, strip a possessive and one common suffix ("discovered" -> "discover")."""
    w = _lower_without_possessive(word)
    for suffix in _LIGHT_SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


@lru_cache(maxsize=STEMS_KEPT)
def stem(word: str) -> str:
    """The judge's stem: "discovered"/"discovers" -> "discover", "safe" -> "saf"."""
    w = _lower_without_possessive(word)
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith(("ss", "us", "is")) and not w.endswith(("sses",)):
        return w
    for suffix, repl in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + repl
            break
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1].isalpha():
        w = w[:-1]
    return w
