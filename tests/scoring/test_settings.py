"""Scorer settings: each field defined once, one error type per entry point, one factory."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from guardrail.exceptions import ConfigError, PolicyError
from guardrail.judges import RetryPolicy
from guardrail.judges.local import LocalJudge
from guardrail.policy import parse_policy
from guardrail.scoring import MetaRAG, RT4Chart, build_scorer
from guardrail.scoring.settings import (
    MetaRAGConfig,
    MetaRAGSettings,
    RT4ChartConfig,
    RT4ChartSettings,
    with_overrides,
)

SCHEMA = Path(__file__).resolve().parents[2] / "policies" / "policy.schema.json"
TOPICS = """
classifier: {default_topic: general}
topics:
  - {name: general, threshold: 0.5}
"""


def policy_with(scorer: str):
    return parse_policy(f"name: p\nscorer: {scorer}\n{TOPICS}")


@pytest.mark.parametrize(
    ("field", "bad"), [("timeout_s", 0.0), ("max_attempts", 0), ("max_concurrency", 0)]
)
def test_one_retry_bound_serves_python_and_policy(field: str, bad: float):
    """The same bound rejects the value as RetryPolicy(...) and as a policy's scorer key."""
    with pytest.raises(ConfigError, match=f"RetryPolicy: {field}: Input should be greater"):
        RetryPolicy(**{field: bad})
    with pytest.raises(PolicyError, match=f"scorer.{field}: Input should be greater"):
        policy_with(f"{{{field}: {bad}}}")
    for model in (MetaRAGSettings, RT4ChartSettings):
        assert repr(model.model_fields[field]) == repr(RetryPolicy.model_fields[field])


def test_method_knobs_are_the_configs_fields():
    """A scorer's config and its policy settings share their knob definitions."""
    for config, settings in ((MetaRAGConfig, MetaRAGSettings), (RT4ChartConfig, RT4ChartSettings)):
        shared = set(config.model_fields) - {"threshold"}
        assert shared and shared <= set(settings.model_fields)
        for name in shared:
            assert repr(settings.model_fields[name]) == repr(config.model_fields[name])


def test_rt4chart_knobs_reach_the_built_scorer():
    """Every RT4CHART knob set in a policy arrives in the scorer the guard builds."""
    policy = policy_with(
        "{method: rt4chart, window: 5, overlap: 2, baseless_score: 0.4, "
        "global_verification: false, refine_spans: false, localize: factoids, max_attempts: 2}"
    )
    scorer = build_scorer(policy.scorer, judge=LocalJudge())
    assert isinstance(scorer, RT4Chart)
    assert scorer.config == RT4ChartConfig(
        window=5, overlap=2, baseless_score=0.4, global_verification=False, refine_spans=False
    )
    assert scorer.localizer is None and scorer.runner.policy.max_attempts == 2


def test_metarag_knobs_reach_the_built_scorer():
    policy = policy_with(
        "{k: 3, temperature: 0.5, ensemble_rule: mean_penalty, min_alignment: 0.7, "
        "max_tokens: 256, judge: local, verifiers: [local, 'local:trained']}"
    )
    pool: dict = {}
    scorer = build_scorer(policy.scorer, judges=pool, threshold=0.3)
    assert isinstance(scorer, MetaRAG)
    assert scorer.config == MetaRAGConfig(
        k=3,
        temperature=0.5,
        ensemble_rule="mean_penalty",
        min_alignment=0.7,
        max_tokens=256,
        threshold=0.3,
    )
    assert sorted(pool) == ["local", "local:trained"]  # each spec built once
    assert [v.name for v in scorer.verifiers] == [pool["local"].name, pool["local:trained"].name]


@pytest.mark.parametrize(
    ("scorer", "key_path", "problem"),
    [
        ("{method: rt4chart, k: 2}", "scorer.k", "not a setting of method 'rt4chart'"),
        ("{window: 5}", "scorer.window", "not a setting of method 'metarag'"),
        ("{method: rt4chart, windw: 5}", "scorer.windw", "did you mean 'window'"),
        ("{method: rt4chart, window: 4, overlap: 4}", "scorer", "overlap must be smaller"),
        ("{method: rt4chart, baseless_score: 1.0}", "scorer.baseless_score", "less than 1"),
        ("{threshold: 0.3}", "scorer.threshold", "thresholds are set per topic"),
        ("{method: bert}", "scorer.method", "unknown scorer method 'bert'"),
    ],
)
def test_policy_scorer_errors_name_the_key(scorer: str, key_path: str, problem: str):
    with pytest.raises(PolicyError) as info:
        policy_with(scorer)
    assert info.value.key_path == key_path and problem in info.value.problem


def test_json_schema_tells_the_methods_apart():
    """The shipped schema accepts a block without method as MetaRAG, and no mixed keys."""
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    base = {"name": "p", "classifier": {"default_topic": "general"}}
    base["topics"] = [{"name": "general", "threshold": 0.5}]
    for block, ok in [
        ({"judge": "local"}, True),
        ({}, True),
        ({"method": "rt4chart", "window": 5}, True),
        ({"window": 5}, False),
        ({"method": "rt4chart", "k": 2}, False),
    ]:
        assert validator.is_valid({**base, "scorer": block}) is ok, block


def test_overrides_are_validated_and_name_the_flag():
    base = MetaRAGSettings(judge="local:trained", max_attempts=2)
    rt = with_overrides(base, {"method": ("--method", "rt4chart"), "window": ("--window", 12)})
    assert isinstance(rt, RT4ChartSettings)
    assert (rt.window, rt.overlap, rt.judge, rt.max_attempts) == (12, 10, "local:trained", 2)
    assert with_overrides(base, {"k": ("--k", None)}) == base  # None: flag not given
    with pytest.raises(ConfigError, match=r"^--k: Input should be greater than or equal to 1"):
        with_overrides(base, {"k": ("--k", 0)})
    with pytest.raises(ConfigError, match=r"^--window: not a setting of method 'metarag'"):
        with_overrides(base, {"window": ("--window", 5)})
    with pytest.raises(ConfigError, match=r"^--window, --overlap: overlap must be smaller"):
        with_overrides(rt, {"window": ("--window", 3), "overlap": ("--overlap", 3)})
    with pytest.raises(ConfigError, match=r"^--judge: .*unknown judge spec"):
        with_overrides(base, {"judge": ("--judge", "gpt-4")})


def _marked_copy(tmp_path: Path, package: str, name: str) -> Path:
    """A copy of a packaged model file whose ``meta`` carries a marker."""
    from importlib import resources

    data = json.loads(resources.files(package).joinpath(name).read_text(encoding="utf-8"))
    data["meta"] = {**data.get("meta", {}), "marker": str(tmp_path)}
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_a_policy_names_its_own_model_files(tmp_path: Path):
    """judge_model and localizer_model reach the scorer (the CLI's --judge-model and
    --localizer-model set the same settings)."""
    verifier = _marked_copy(tmp_path, "guardrail.judges.local", "verifier.json")
    localizer = _marked_copy(tmp_path, "guardrail.localize", "token_model.json")
    policy = policy_with(
        f"{{judge: 'local:trained', judge_model: '{verifier}', localizer_model: '{localizer}'}}"
    )
    scorer = build_scorer(policy.scorer)
    assert isinstance(scorer, MetaRAG)
    (verifier_judge,) = scorer.verifiers
    assert verifier_judge.verifier.fitted_model.meta["marker"] == str(tmp_path)  # type: ignore[attr-defined]
    assert scorer.localizer is not None
    assert scorer.localizer.meta["marker"] == str(tmp_path)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("scorer", "problem"),
    [
        (
            "{judge: local, judge_model: v.json}",
            "judge_model needs a local:trained or local:encoder judge",
        ),
        ("{localize: factoids, localizer_model: l.json}", "localizer_model needs localize: words"),
    ],
)
def test_model_files_without_a_use_are_refused(scorer: str, problem: str):
    with pytest.raises(PolicyError, match=problem):
        policy_with(scorer)


def test_a_missing_model_file_fails_when_the_scorer_is_built(tmp_path: Path):
    policy = policy_with(f"{{judge: 'local:trained', judge_model: '{tmp_path / 'nope.json'}'}}")
    with pytest.raises(ConfigError, match="cannot read"):
        build_scorer(policy.scorer)
