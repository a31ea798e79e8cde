"""Whether a word is an ordinary word of a language, from simplemma's word lists.

The offline judge reads a capitalized word it does not know at the start of a sentence as a
name ("Dupont a signé ..."). Its own word lists are short outside English, so a sentence's
first verb or adverb ("Montrez ...", "Quédese ...", "Mejor ...") was read as a name the
passage never gives. simplemma (MIT, no dependencies, its lemma tables inside the wheel)
knows the inflected forms of tens of thousands of words per language: a word it knows is no
name. English keeps the judge's own tables (its readings on long English answers were
measured with them). Each language's table is read on first use and kept (0.4 s for French
or Italian, 1.6 s for German on a 2-core x86-64 machine).
"""

from __future__ import annotations

from functools import lru_cache

#: Languages whose dictionary is consulted (the offline judge's modules; English excluded).
DICTIONARY_LANGUAGES = frozenset({"de", "fr", "es", "it", "pt", "nl"})

#: Words remembered per process (a cache, not data).
_WORDS_KEPT = 65536


@lru_cache(maxsize=_WORDS_KEPT)
def knows(code: str, word: str) -> bool:
    """True when ``word`` (lowercase) is an ordinary word of ``code``; False for languages
    without a dictionary here."""
    if code not in DICTIONARY_LANGUAGES or not word:
        return False
    from simplemma import is_known  # imported on first use: its tables load lazily

    return bool(is_known(word, lang=code))
