"""The probe's tests need clingo (the `probe` and `dev` extras); without it they skip, and
under CI=true they fail (CI installs it)."""

from __future__ import annotations

import importlib.util

import pytest

from tests.needs import unavailable


@pytest.fixture(autouse=True)
def _needs_clingo() -> None:
    if importlib.util.find_spec("clingo") is None:
        unavailable("clingo", "clingo is not installed (pip install -e '.[probe]')")
