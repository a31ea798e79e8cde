"""Shared fixtures for the offline judge's tests."""

from __future__ import annotations

import pytest

from guardrail.judges.local import LocalJudge

VIGNETTE_QUESTION = "Can pregnant women take ibuprofen for back pain?"
VIGNETTE_CONTEXT = (
    "Ibuprofen is contraindicated in the third trimester of pregnancy. "
    "Paracetamol is generally considered the first choice for pain relief during pregnancy. "
    "Pregnant women should consult a doctor before taking any painkiller."
)
CURIE_CONTEXT = (
    "Marie Curie was born in Warsaw in 1867. She discovered polonium and radium with Pierre "
    "Curie. In 1903 she shared the Nobel Prize in Physics. The Eiffel Tower is 330 metres tall "
    "and was completed in 1889. Birds do not have a diaphragm; instead, air moves through "
    "pressure changes in the air sacs."
)


@pytest.fixture
def judge() -> LocalJudge:
    return LocalJudge(verifier="rules")
