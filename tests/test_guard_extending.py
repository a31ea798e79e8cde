"""Swapping and extending a guard's parts: Guard.override, the scorer's cascade check on every
assignment, custom actions from the action table, the scorer registry's rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from guardrail.actions import Turn, custom
from guardrail.actions.custom import register_action
from guardrail.audit import AuditLog
from guardrail.exceptions import ConfigError, PolicyError
from guardrail.guard import Guard
from guardrail.models import Label
from guardrail.policy import parse_policy
from guardrail.scoring.registry import register_scorer, scorer_entry
from guardrail.scoring.settings import MetaRAGSettings, ScorerWiring
from guardrail.testing import TestJudge

from .evaluation.fakes import FakeScorer

CONTEXT = ["The library opens on Saturdays."]
SUPPORTED = "The library opens on Saturdays."
UNSUPPORTED = "The library opens on Sundays."
POLICY = """
name: t
topics:
  - name: general
    threshold: 0.5
    on_flag: {highlight: true, custom: %s}
"""
CASCADE_POLICY = """
name: t
topics:
  - {name: general, threshold: 0.5}
  - {name: loans, threshold: 0.3, keywords: [loan], cascade: true}
"""


def no(statement: str, context: str) -> Label:
    return Label.NO


@pytest.fixture
def actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registrations made by a test stay in it."""
    monkeypatch.setattr(custom.ACTIONS, "_entries", dict(custom.ACTIONS._entries))


def test_override_swaps_the_scorer_for_a_block_and_restores_it():
    guard = Guard(parse_policy(POLICY % "[]"), judge=TestJudge())
    original = guard.scorer
    assert not guard.check("Q?", SUPPORTED, CONTEXT).decision.flagged
    with guard.override(judge=TestJudge(no)) as same:
        assert same is guard and guard.scorer is not original
        assert guard.check("Q?", SUPPORTED, CONTEXT).report.score == 1.0  # type: ignore[union-attr]
    assert guard.scorer is original
    fake = FakeScorer(outputs={SUPPORTED: (0.9, [])})
    with guard.override(scorer=fake):
        assert guard.check("Q?", SUPPORTED, CONTEXT).decision.flagged
    assert fake.calls == [SUPPORTED]
    with pytest.raises(ConfigError, match="not both"), guard.override(scorer=fake, judge="test"):
        pass
    guard.close()


def test_override_takes_a_judge_spec():
    guard = Guard(parse_policy(POLICY % "[]"), judge=TestJudge(no))
    with guard.override(judge="test"):
        assert not guard.check("Q?", SUPPORTED, CONTEXT).decision.flagged
    guard.close()


def test_a_scorer_without_cascade_is_refused_by_override_and_by_assignment():
    """The policy's per-topic cascade needs a scorer that declares supports_cascade."""
    guard = Guard(parse_policy(CASCADE_POLICY), judge=TestJudge())
    assert guard.scorer.supports_cascade  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="has no cascade"), guard.override(scorer=FakeScorer()):
        pass
    with pytest.raises(ConfigError, match="has no cascade"):
        guard.scorer = FakeScorer()
    assert guard.scorer.supports_cascade  # type: ignore[attr-defined]
    guard.close()


def test_a_custom_action_replaces_the_answer_shown(actions: None):
    def note(turn: Turn) -> str:
        return f"{turn.final} [checked: {turn.report.score:.1f}]"  # type: ignore[union-attr]

    async def shout(turn: Turn) -> str | None:
        return turn.final.upper()

    register_action("note", note)
    register_action("shout", shout)
    guard = Guard(parse_policy(POLICY % "[note, shout]"), judge=TestJudge())
    flagged = guard.check("Q?", UNSUPPORTED, CONTEXT)
    assert flagged.decision.actions == ["highlight", "custom"]
    assert flagged.decision.action == "custom"
    assert "custom (note, shout)" in flagged.decision.reason
    assert flagged.answer == f"{UNSUPPORTED} [checked: 0.5]".upper()
    passed = guard.check("Q?", SUPPORTED, CONTEXT)
    assert passed.answer == SUPPORTED and passed.decision.actions == []
    guard.close()


def test_a_policy_naming_an_unregistered_action_does_not_load(actions: None):
    with pytest.raises(PolicyError, match="unknown action 'nope'"):
        parse_policy(POLICY % "[nope]")
    with pytest.raises(ConfigError, match="already registered"):
        register_action("x", print)
        register_action("x", print)
    with pytest.raises(ConfigError, match="lower-case"):
        register_action("Bad Name", print)


def test_a_failing_custom_action_fails_the_turn_and_is_audited(actions: None, tmp_path: Path):
    def broken(turn: Turn) -> Any:
        raise RuntimeError("redaction service down")

    register_action("broken", broken)
    audit = AuditLog(tmp_path / "audit.jsonl")
    guard = Guard(parse_policy(POLICY % "[broken]"), judge=TestJudge(), audit=audit)
    with pytest.raises(RuntimeError, match="redaction service down"):
        guard.check("Q?", UNSUPPORTED, CONTEXT)
    (record,) = [json.loads(line) for line in audit.path.read_text().splitlines()]
    assert record["event_name"] == "turn_failed" and "redaction service down" in record["error"]
    guard.close()


def test_the_scorer_registry_refuses_a_model_without_its_method():
    class Unnamed(ScorerWiring):
        pass

    with pytest.raises(ConfigError, match=r"must declare method: Literal\['x'\]"):
        register_scorer("x", Unnamed, "nowhere:nothing")
    with pytest.raises(ConfigError, match="already registered"):
        register_scorer("metarag", MetaRAGSettings, "nowhere:nothing")
    with pytest.raises(ConfigError, match="unknown scorer method 'nope'"):
        scorer_entry("nope")
