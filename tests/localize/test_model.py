"""The word localizer: narrowing rules, the packaged model, and bad model files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from guardrail.exceptions import ConfigError
from guardrail.localize import TokenLocalizer, packaged_localizer
from guardrail.localize.features import FEATURE_NAMES
from guardrail.localize.model import LOCALIZER_FILE, LOCALIZER_FORMAT

CONTEXT = ["The office opens at 9:00 on weekdays. There are 40 parking spaces for staff."]


def model_data(**changes: Any) -> dict[str, Any]:
    """A hand-made model: a word is suspicious when it is absent from the context."""
    coef = [0.0] * len(FEATURE_NAMES)
    coef[FEATURE_NAMES.index("in_context")] = -6.0
    coef[FEATURE_NAMES.index("content")] = 3.0
    data = {
        "format": LOCALIZER_FORMAT,
        "feature_names": list(FEATURE_NAMES),
        "coef": coef,
        "intercept": -1.0,
        "threshold": 0.5,
    }
    return {**data, **changes}


def test_flagged_factoid_is_narrowed_to_its_unsupported_words():
    """Only the words the context lacks are kept, inside the factoid's own span."""
    answer = "The office opens at 9:00. The office has 400 parking spaces."
    region = [(26, len(answer) - 1)]
    [focus] = TokenLocalizer(model_data()).narrow(answer, "", CONTEXT, [region])
    assert [answer[s:e] for s, e in focus] == ["400"]


def test_fallback_points_at_a_negation_or_the_most_suspicious_word():
    """When no word reaches the threshold: negation + next word, else the top word."""
    loc = TokenLocalizer(model_data(threshold=0.99))
    answer = "The office does not open at 9:00."
    [focus] = loc.narrow(answer, "", CONTEXT, [[(0, len(answer))]])
    assert [answer[s:e] for s, e in focus] == ["not open"]
    answer = "Staff get 40 parking spaces."
    [focus] = loc.narrow(answer, "", CONTEXT, [[(0, len(answer))]])
    assert len(focus) == 1 and answer[focus[0][0] : focus[0][1]] == "get"  # only new word


def test_regions_are_kept_apart_and_a_wordless_region_passes_through():
    """One result per region; a region without words is returned unchanged."""
    answer = "Opens at 7:00 - staff have 90 spaces."
    regions = [[(0, 13)], [(14, 15)], [(16, len(answer))]]
    out = TokenLocalizer(model_data()).narrow(answer, "", CONTEXT, regions)
    assert len(out) == 3
    assert out[1] == [(14, 15)]
    for spans, region in zip(out, regions, strict=True):
        assert all(region[0][0] <= s < e <= region[0][1] for s, e in spans)


def test_packaged_model_loads_is_small_json_and_records_its_recipe():
    """The shipped model is plain JSON (< 5 MB) with its data recipe and chosen threshold."""
    path = Path(__import__("guardrail.localize", fromlist=["x"]).__file__).parent / LOCALIZER_FILE
    assert path.stat().st_size < 5_000_000
    data = json.loads(path.read_text(encoding="utf-8"))
    loc = packaged_localizer()
    assert loc.threshold == data["threshold"] and 0 < loc.threshold < 1
    assert data["meta"]["recipe"].startswith("scripts/train_localizer.py")
    assert data["meta"]["answers"] > 1000


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other/1"}, "expected format"),
        ({"feature_names": ["x"]}, "feature names"),
        ({"coef": [1.0]}, "'coef'"),
        ({"coef": [float("nan")] * len(FEATURE_NAMES)}, "'coef'"),
        ({"threshold": 1.5}, "threshold"),
        ({"intercept": "high"}, "'intercept'"),
    ],
)
def test_bad_model_data_is_refused_with_a_clear_error(change, message):
    with pytest.raises(ConfigError, match=message):
        TokenLocalizer(model_data(**change))
