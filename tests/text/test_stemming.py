"""The two stemmers: light alignment keys and the judge's stronger stems."""

from __future__ import annotations

from guardrail.text.stemming import light_stem, stem


def test_stem_conflates_inflections():
    """Inflected forms share a stem, so "discovered" matches "discovers"."""
    assert stem("discovered") == stem("discovers") == stem("discover")
    assert stem("increases") == stem("increase") == stem("increased")
    assert stem("relational") == stem("relate") == "relat"
    assert stem("pregnancy") == "pregnancy"
    assert stem("is") == "is"


def test_light_stem_strips_one_suffix_and_possessives():
    assert light_stem("Einstein’s") == light_stem("Einstein's") == "einstein"
    assert light_stem("discovered") == "discover"
    assert light_stem("relational") == "relational"  # only the short suffixes
    assert light_stem("is") == "is"
