"""The cascade: the offline screen settles confident factoids, the rest go to the LLM judge."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from guardrail.cli import main
from guardrail.exceptions import ConfigError, PolicyError
from guardrail.judges import JudgeRequest, ScriptedJudge
from guardrail.models import TopicLabel
from guardrail.policy.engine import PolicyEngine
from guardrail.policy.loader import parse_policy
from guardrail.scoring import MetaRAG, MetaRAGConfig
from guardrail.scoring.cascade import packaged_calibration, resolve_cutoff
from guardrail.training.cascade import ScreenedFactoid, choose_cutoff, cross_validate

ROWS = Path(__file__).resolve().parents[1] / "data" / "eval_tiny.jsonl"
CONTEXT = ["The free trial lasts 14 days.\n\nSupport is by chat only."]
FACTOIDS = ["The trial lasts 14 days.", "The trial lasts 30 days.", "Support is not by chat."]


def _llm() -> ScriptedJudge:
    """An LLM stand-in: decomposes into FACTOIDS, answers every other task in format."""

    def reply(request: JudgeRequest) -> str:
        if request.task == "decompose":
            return json.dumps(FACTOIDS)
        if request.task == "mutate_all":
            return json.dumps(
                {
                    str(n): {"synonyms": [f, f], "antonyms": [f"Not {f}", f"Never {f}"]}
                    for n, f in enumerate(request.inputs["factoids"], start=1)
                }
            )
        if request.task == "verify_batch":
            return "\n".join(
                f"{n}. NO. wrong" for n in range(1, len(request.inputs["statements"]) + 1)
            )
        return "NO. wrong"

    return ScriptedJudge(reply)


def _score(**config):
    judge = _llm()
    scorer = MetaRAG(judge, config=MetaRAGConfig(protocol="answer", **config), localizer=None)
    report = scorer.score_sync("How long is the trial?", " ".join(FACTOIDS), CONTEXT)
    return report, judge


def test_without_the_cascade_every_factoid_goes_to_the_llm():
    report, judge = _score()
    assert not any(f.screened for f in report.factoids)
    assert len(judge.requests[-1].inputs["statements"]) == 4 * len(FACTOIDS)


def test_the_screen_settles_only_confident_supported_factoids():
    judge = _llm()
    scorer = MetaRAG(
        judge,
        config=MetaRAGConfig(protocol="answer", cascade=True, cascade_cutoff=0.1),
        localizer=None,
    )
    report = scorer.score_sync("How long is the trial?", " ".join(FACTOIDS), CONTEXT)
    settled = {f.text: f for f in report.factoids}
    supported, wrong_number, reversed_ = (settled[t] for t in FACTOIDS)
    assert supported.screened and supported.score == 0.0 and not supported.variants
    assert supported.screen_risk is not None and supported.screen_risk <= 0.1
    assert not wrong_number.screened and wrong_number.variants  # risk above the cut-off
    assert not reversed_.screened and reversed_.screen_risk == 1.0  # polarity: never settled
    mutate = next(r for r in judge.requests if r.task == "mutate_all")
    assert mutate.inputs["factoids"] == [FACTOIDS[1], FACTOIDS[2]]  # the LLM never saw it
    verify = next(r for r in judge.requests if r.task == "verify_batch")
    assert len(verify.inputs["statements"]) == 8
    assert report.settings["cascade_cutoff"] == 0.1
    assert [s.stage for s in report.usage.stages] == ["decompose", "screen", "mutate", "verify"]


def test_a_cut_off_of_one_still_never_settles_a_reversed_statement_or_a_conflicting_value():
    judge = _llm()
    scorer = MetaRAG(
        judge, config=MetaRAGConfig(protocol="answer", cascade=True, cascade_cutoff=1.0),
        localizer=None,
    )  # fmt: skip
    report = scorer.score_sync("q", " ".join(FACTOIDS), CONTEXT)
    # "lasts 30 days" states another value than the context's 14 days: risk 1.0, like a
    # reversed statement, so even the loosest cut-off leaves it to the LLM
    assert [f.screened for f in report.factoids] == [True, False, False]
    assert [f.screen_risk for f in report.factoids][1:] == [1.0, 1.0]


def test_when_everything_is_settled_only_the_decompose_call_is_made():
    judge = ScriptedJudge(lambda r: json.dumps(["The trial lasts 14 days."]))
    scorer = MetaRAG(judge, config=MetaRAGConfig(cascade=True, cascade_cutoff=0.2), localizer=None)
    report = scorer.score_sync("q", "The trial lasts 14 days.", CONTEXT)
    assert [r.task for r in judge.requests] == ["decompose"]
    assert report.score == 0.0 and report.factoids[0].screened
    assert sum(1 for s in report.usage.stages if s.calls) == 1


def test_a_per_call_choice_overrides_the_scorer_setting():
    judge = _llm()
    scorer = MetaRAG(judge, config=MetaRAGConfig(cascade=True, cascade_cutoff=0.2), localizer=None)
    off = asyncio.run(scorer.score("q", " ".join(FACTOIDS), CONTEXT, cascade=False))
    assert not any(f.screened for f in off.factoids)
    plain = MetaRAG(_llm(), config=MetaRAGConfig(), localizer=None)
    on = asyncio.run(plain.score("q", " ".join(FACTOIDS), CONTEXT, cascade=0.2))
    assert [f.screened for f in on.factoids] == [True, False, False]


def test_empty_context_is_never_screened():
    scorer = MetaRAG(_llm(), config=MetaRAGConfig(cascade=True, cascade_cutoff=1.0), localizer=None)
    report = scorer.score_sync("q", " ".join(FACTOIDS), [])
    assert report.status == "empty_context" and not any(f.screened for f in report.factoids)


def test_resolve_cutoff():
    packaged = packaged_calibration().cutoff
    assert resolve_cutoff(None, False, None) is None
    assert resolve_cutoff(False, True, 0.3) is None
    assert resolve_cutoff(None, True, None) == packaged
    assert resolve_cutoff(True, False, 0.3) == 0.3
    assert resolve_cutoff(0.05, False, 0.3) == 0.05
    with pytest.raises(ConfigError):
        resolve_cutoff(1.5, True, None)


def test_the_packaged_cut_off_was_cross_validated_under_five_percent_error():
    calibration = packaged_calibration()
    cv = calibration.meta["cross_validated"]
    assert 0.0 < calibration.cutoff < 1.0
    assert cv["overall"]["error_rate"] <= 0.05
    assert all(task["error_rate"] <= 0.05 for task in cv["tasks"].values())
    assert cv["overall"]["settled_share"] > 0.0


def _items(pairs: list[tuple[float | None, bool]], group: str = "g") -> list[ScreenedFactoid]:
    return [ScreenedFactoid(f"{group}{n % 7}", "qa", r, h) for n, (r, h) in enumerate(pairs)]


def test_choose_cutoff_takes_the_loosest_risk_within_the_target():
    items = _items([(0.01, False)] * 9 + [(0.02, True)] + [(0.5, True)] * 5 + [(None, False)])
    assert choose_cutoff(items, 0.10) == 0.02  # 1 error in 10 settled
    assert choose_cutoff(items, 0.05) == 0.01
    assert choose_cutoff(_items([(0.1, True)]), 0.05) == 0.0


def test_cross_validation_reports_held_out_figures():
    items = _items([(0.01 * (n % 10), n % 10 == 9) for n in range(200)])
    cv = cross_validate(items, fit_target=0.05, folds=5)
    overall = cv["overall"]
    assert overall["factoids"] == 200
    assert overall["error_rate"] == 0.0  # 0.09 is the only risk level with errors
    assert overall["settled_share"] == pytest.approx(0.9)


POLICY = """
name: p
scorer: {method: %s}
classifier: {default_topic: general}
topics:
  - {name: general, threshold: 0.5}
  - {name: pregnancy, threshold: 0.3, keywords: [pregnant], cascade: %s}
  - {name: loans, threshold: 0.5, keywords: [loan], cascade: 0.02}
"""


def test_topics_choose_the_cascade_strictest_wins():
    policy = parse_policy(POLICY % ("metarag", "false"))
    engine = PolicyEngine(policy)

    def labels(*names: str) -> list[TopicLabel]:
        return [TopicLabel(label=n, confidence=1.0, source="keyword") for n in names]

    assert engine.cascade_for(labels("general")) is None
    assert engine.cascade_for(labels("loans")) == 0.02
    assert engine.cascade_for(labels("loans", "pregnancy")) is False


def test_policy_rejects_a_cascade_the_scorer_cannot_run():
    with pytest.raises(PolicyError, match="only method metarag has a cascade"):
        parse_policy(POLICY % ("rt4chart", "true"))
    with pytest.raises(PolicyError, match=r"topics\[1\]\.cascade"):
        parse_policy(POLICY % ("metarag", "1.5"))


def test_eval_reports_what_the_screen_settled_and_its_error(tmp_path: Path):
    out = tmp_path / "e.json"
    assert (
        main(["eval", str(ROWS), "--protocol", "answer", "--cascade", "--json-out", str(out)]) == 0
    )
    cascade = json.loads(out.read_text())["cascade"]
    assert cascade["factoids"] > 0 and 0 < cascade["settled"] <= cascade["factoids"]
    assert "settled_error_rate" in cascade and cascade["settled_checked"] == cascade["settled"]


def test_cascade_flag_is_refused_for_rt4chart(capsys):
    assert main(["eval", str(ROWS), "--method", "rt4chart", "--cascade"]) == 2
    assert "--cascade" in capsys.readouterr().err
