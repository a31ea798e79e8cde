"""English inflection for the handful of operations the mutators need.

Negating "Marie Curie discovered polonium" means "did not discover"; un-negating "does not
cause" means "causes"; swapping "increases" for its antonym means "decreases". These helpers
inflect a base form and recognize the inflected forms of known verbs, using the verb lists in
``lexicon.json`` plus regular spelling rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

Form = str  # "" (base), "s" (3rd person), "ed" (past), "en" (past participle), "ing"

_VOWELS = frozenset("aeiou")
_DOUBLING = frozenset(
    [
        "occur",
        "refer",
        "prefer",
        "admit",
        "commit",
        "permit",
        "control",
        "regret",
        "submit",
        "transfer",
        "compel",
        "expel",
        "forbid",
        "omit",
        "equip",
        "patrol",
        "propel",
        "rebel",
    ]
)


def _is_cvc(word: str) -> bool:
    """Short consonant-vowel-consonant endings double their last letter (stop -> stopped)."""
    if len(word) < 3:
        return False
    a, b, c = word[-3], word[-2], word[-1]
    return (
        a not in _VOWELS
        and b in _VOWELS
        and c not in _VOWELS
        and c not in "wxy"
        and (len(word) <= 4 or word in _DOUBLING)
    )


def regular_inflect(base: str, form: Form) -> str:
    """Inflect a regular word by spelling rules only."""
    if form == "":
        return base
    if form == "s":
        if base.endswith(("s", "x", "z", "ch", "sh", "o")):
            return base + "es"
        if len(base) > 1 and base.endswith("y") and base[-2] not in _VOWELS:
            return base[:-1] + "ies"
        return base + "s"
    if form in ("ed", "en"):
        if base.endswith("e"):
            return base + "d"
        if len(base) > 1 and base.endswith("y") and base[-2] not in _VOWELS:
            return base[:-1] + "ied"
        if _is_cvc(base):
            return base + base[-1] + "ed"
        return base + "ed"
    if form == "ing":
        if base.endswith("ie"):
            return base[:-2] + "ying"
        if base.endswith("e") and not base.endswith(("ee", "ye", "oe")) and len(base) > 2:
            return base[:-1] + "ing"
        if _is_cvc(base):
            return base + base[-1] + "ing"
        return base + "ing"
    return base


class Morphology:
    """Inflects and recognizes verb forms; built once per lexicon."""

    def __init__(self, irregular: Mapping[str, Iterable[str]], regular: Iterable[str]) -> None:
        self._irregular: dict[str, tuple[str, str]] = {}
        for base, forms in irregular.items():
            past, participle = list(forms)[:2]
            self._irregular[base] = (past, participle)
        self.bases: frozenset[str] = frozenset(regular) | frozenset(self._irregular)
        self._surface: dict[str, tuple[str, Form]] = {}
        for base in sorted(self.bases):
            for form in ("s", "ing", "en", "ed", ""):
                self._surface.setdefault(self.inflect(base, form), (base, form))
        special = {"is": ("be", "s"), "are": ("be", ""), "am": ("be", ""), "were": ("be", "ed")}
        special.update({"has": ("have", "s"), "does": ("do", "s"), "goes": ("go", "s")})
        self._surface.update(special)

    def inflect(self, base: str, form: Form) -> str:
        """``inflect("discover", "ed") == "discovered"``; irregular verbs looked up."""
        if base in self._irregular and form in ("ed", "en"):
            past, participle = self._irregular[base]
            return past if form == "ed" else participle
        if form == "s" and base in ("have", "do", "go", "be"):
            return {"have": "has", "do": "does", "go": "goes", "be": "is"}[base]
        return regular_inflect(base, form)

    def analyze(self, word: str) -> tuple[str, Form] | None:
        """``("discover", "ed")`` for "discovered" when the verb is known, else None."""
        return self._surface.get(word.lower())

    def is_known_verb_form(self, word: str) -> bool:
        return word.lower() in self._surface

    def past(self, base: str) -> str:
        return self.inflect(base, "ed")

    def guess_base(self, word: str) -> tuple[str, Form] | None:
        """Known-verb analysis, else a spelling-rule guess for "-ed" words (unknown verbs)."""
        known = self.analyze(word)
        if known is not None:
            return known
        w = word.lower()
        if len(w) >= 5 and w.endswith("ied"):
            return w[:-3] + "y", "ed"
        if len(w) >= 5 and w.endswith("ed") and w[:-2].isalpha():
            stem = w[:-2]
            if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                return stem[:-1], "ed"
            if stem.endswith(("at", "iz", "is", "ur", "ag", "ul", "ov", "ss", "rv", "uc", "ic")):
                return stem + "e", "ed"
            if stem[-1] in "cgsvzu":
                return stem + "e", "ed"
            return stem, "ed"
        return None
