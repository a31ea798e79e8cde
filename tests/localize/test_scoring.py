"""The localizer inside both scorers, the policy switch, and guardrail eval's span figures."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from guardrail.evaluation.runner import RowOutcome
from guardrail.judges.local import LocalJudge
from guardrail.models import Span
from guardrail.policy import load_policy
from guardrail.scoring import MetaRAG, build_scorer
from guardrail.scoring.rt4chart import RT4Chart

QUESTION = "When does the office open, and how much parking is there?"
ANSWER = "The office opens at 9:00. The office has 400 parking spaces."
CONTEXT = ["The office opens at 9:00 on weekdays. There are 40 parking spaces for staff."]


class Broken:
    name = "broken"

    def narrow(
        self, answer: str, question: str, contexts: Sequence[str], regions: Sequence[Sequence[Span]]
    ) -> list[list[Span]]:
        raise RuntimeError("boom")


@pytest.mark.parametrize("scorer_cls", [MetaRAG, RT4Chart])
async def test_flagged_spans_are_the_focus_inside_the_flagged_factoids(scorer_cls):
    """Narrowed spans sit inside their factoid; flag and score equal the unnarrowed run."""
    judge = LocalJudge()
    narrowed = await scorer_cls(judge).score(QUESTION, ANSWER, CONTEXT)
    whole = await scorer_cls(judge, localizer=None).score(QUESTION, ANSWER, CONTEXT)
    assert narrowed.flagged and whole.flagged and narrowed.score == whole.score
    assert [f.spans for f in narrowed.factoids] == [f.spans for f in whole.factoids]
    assert all(not f.focus for f in whole.factoids)
    assert narrowed.settings["localizer"] and whole.settings["localizer"] is None
    flagged = [f for f in narrowed.factoids if f.flagged]
    assert flagged and all(f.focus for f in flagged)
    for f in flagged:
        for s, e in f.focus:
            assert any(a <= s < e <= b for a, b in f.spans)
    covered = sum(e - s for s, e in narrowed.flagged_spans)
    assert 0 < covered < sum(e - s for s, e in whole.flagged_spans)
    assert "400" in " ".join(narrowed.flagged_text(ANSWER))


async def test_a_failing_localizer_keeps_the_report_and_says_so():
    """Narrowing is a refinement: a crash keeps whole-factoid spans and notes the failure."""
    report = await MetaRAG(LocalJudge(), localizer=Broken()).score(QUESTION, ANSWER, CONTEXT)
    assert report.flagged and report.flagged_spans
    assert report.settings["localizer"] == "broken (failed: RuntimeError)"
    assert all(not f.focus for f in report.factoids)


async def test_no_context_means_nothing_to_narrow():
    report = await MetaRAG(LocalJudge()).score(QUESTION, ANSWER, [])
    assert all(not f.focus for f in report.factoids)


def test_an_object_without_narrow_is_refused():
    from guardrail.exceptions import ConfigError

    with pytest.raises(ConfigError, match="narrow"):
        MetaRAG(LocalJudge(), localizer=object())  # type: ignore[arg-type]


def test_policy_switch_selects_word_or_factoid_spans():
    """``scorer.localize: factoids`` turns the localizer off; the default turns it on."""
    base = load_policy(Path(__file__).resolve().parents[2] / "policies" / "default.yaml")
    assert base.scorer.localize == "words"
    assert build_scorer(base.scorer).localizer is not None
    off = base.model_copy(
        update={"scorer": base.scorer.model_copy(update={"localize": "factoids"})}
    )
    assert build_scorer(off.scorer).localizer is None


async def test_eval_span_figures_use_the_focus_at_any_threshold():
    """``RowOutcome.spans_at`` (guardrail eval's span metric) reads each factoid's focus."""
    report = await MetaRAG(LocalJudge()).score(QUESTION, ANSWER, CONTEXT)
    outcome = RowOutcome.from_report("r1", report, 0.0)
    assert outcome.spans_at(report.threshold) == report.flagged_spans
    assert outcome.spans_at(1.01) == []
