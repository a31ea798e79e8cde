"""Model files (verifier, word localizer) are read by one reader: plain JSON, clear errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from guardrail.exceptions import ConfigError
from guardrail.judges.local.trained import VerifierModel
from guardrail.localize.model import TokenLocalizer

LOADERS: list[Callable[[Path], Any]] = [VerifierModel.load, TokenLocalizer.load]


@pytest.mark.parametrize("load", LOADERS, ids=["verifier", "localizer"])
def test_unreadable_or_non_json_files_are_refused(tmp_path, load):
    """A missing file, broken JSON or a non-object is a ConfigError naming the problem."""
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load(bad)
    bad.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ConfigError, match="JSON object"):
        load(bad)
