"""The language modules the offline judge can read, by code (adding a language is one module
plus one line here, plus its suite)."""

from __future__ import annotations

from functools import cache
from importlib import import_module

from guardrail.lang.base import Language

#: code -> module defining ``LANGUAGE``. English is the judge's base tables and has no module.
MODULES: dict[str, str] = {
    "de": "guardrail.lang.de",
    "fr": "guardrail.lang.fr",
    "es": "guardrail.lang.es",
    "it": "guardrail.lang.it",
    "pt": "guardrail.lang.pt",
    "nl": "guardrail.lang.nl",
}


@cache
def language(code: str) -> Language | None:
    """The language module of ``code``; ``None`` for English and for languages without one."""
    name = MODULES.get(code)
    if name is None:
        return None
    found: Language = import_module(name).LANGUAGE
    return found


def has_tables(code: str) -> bool:
    """Whether the offline judge has words for ``code`` (English always)."""
    return code == "en" or code in MODULES
