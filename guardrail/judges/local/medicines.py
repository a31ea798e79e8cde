"""Medicine names, in any language, and the rule that a medicine the context never names is
never supported.

An answer that swaps one medicine for another ("the GP usually prescribes *ciprofloxacin*"
against a passage about nitrofurantoin) shares every other word with the passage, and a
lower-case drug name is no capitalized entity, so word coverage alone would support it. A
medicine's name is read here by the international nonproprietary name stems WHO assigns
(:data:`STEMS`: "-oxacin", "-azole", "-profen", "-statin" ...), which every language keeps
with small spelling changes ("ciprofloxacine", "ciprofloxacino", "atorvastatina"), and by a
short list of common names older than the stem system (:data:`COMMON`). Names are compared by
their first :data:`PREFIX` letters, accents removed, so "ibuprofène" is "ibuprofen".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["COMMON", "STEMS", "is_medicine", "named", "unnamed_medicine"]

#: International nonproprietary name stems (suffixes) without a final vowel: each language
#: adds its own ending ("-azole", "-azol", "-azolo"; see ``_ENDINGS``).
STEMS = (
    "cillin", "oxacin", "mycin", "cyclin", "azol", "prazol", "vir", "olol", "pril", "sartan",
    "statin", "dipin", "tidin", "setron", "triptan", "profen", "coxib", "thiazid", "parin",
    "xaban", "gatran", "gliptin", "glitazon", "lukast", "terol", "sonid", "olon", "thason",
    "tylin", "oxetin", "azepam", "azolam", "cain", "dronat", "fibrat", "formin", "grel",
    "peridol", "semid", "tinib", "mab", "zosin", "tadin", "izin", "afil", "pramin",
    "barbital", "furantoin",
)  # fmt: skip
#: Common names older than the stem system (first letters, as :func:`key` gives them).
COMMON = frozenset(
    "aspiri paracetamol acetaminophen morphi codein insuli heparin warfarin digoxin "
    "lithium metformin diazepam tramadol naproxen diclofenac levothyroxin thyroxin "
    "penicillin prednisolon hydrocortison cortison adrenalin epinephrin nitroglycerin "
    "folic".split()
)
#: Letters compared between two names (enough to tell medicines apart, few enough to match
#: across languages: "ciprof" for "ciprofloxacin" / "ciprofloxacine" / "ciprofloxacino").
PREFIX = 6
#: Shortest word read as a medicine's name.
_SHORTEST = 6
_ENDINGS = ("", "e", "o", "a", "um", "es", "os", "as", "s")
_STEM_RE = re.compile(
    "(?:"
    + "|".join(sorted(STEMS, key=len, reverse=True))
    + ")(?:"
    + "|".join(e for e in _ENDINGS if e)
    + ")?$"
)
#: Words that end like a stem but name no medicine.
_NOT_MEDICINES = frozenset(
    "survivor reservoir devoir pouvoir savoir avoir voir recevoir prévoir boudoir".split()
)


def key(word: str) -> str:
    """``word`` lower-cased without accents ("ibuprofène" -> "ibuprofene")."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=16384)
def is_medicine(word: str) -> bool:
    """Whether ``word`` is a medicine's name: an international stem or a common name
    (remembered: every variant of a factoid asks about the same words)."""
    low = key(word)
    if len(low) < _SHORTEST or not low.isalpha() or low in _NOT_MEDICINES:
        return False
    if any(low.startswith(name[:PREFIX]) for name in COMMON):
        return True
    if low.startswith("cef"):  # cephalosporins carry their stem in front ("cefalexin")
        return len(low) > _SHORTEST + 1
    return _STEM_RE.search(low) is not None


def named(context: str) -> frozenset[str]:
    """The first :data:`PREFIX` letters of every word of ``context`` (see
    :func:`unnamed_medicine`)."""
    return frozenset(key(w)[:PREFIX] for w in re.findall(r"\w+", context))


def unnamed_medicine(words: Iterable[str], context_names: frozenset[str]) -> str | None:
    """The first medicine among ``words`` that no word of the context names (its first
    :data:`PREFIX` letters, from :func:`named`); None when every medicine is the context's."""
    for word in words:
        if is_medicine(word) and key(word)[:PREFIX] not in context_names:
            return word
    return None
