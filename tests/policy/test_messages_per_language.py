"""Abstention and holding messages in the user's language: the question's, from the policy's
``messages`` or the built-in defaults' translations, falling back to the message as written."""

from __future__ import annotations

import pytest

from guardrail.actions.settings import DEFAULT_ABSTAIN_MESSAGE, DEFAULT_ABSTAIN_MESSAGES
from guardrail.actions.table import user_language
from guardrail.guard import Guard
from guardrail.lang import OFFLINE_JUDGE_LANGUAGES
from guardrail.models import TurnLanguages
from guardrail.policy import PolicyEngine, load_policy, parse_policy
from tests.policy.factories import BASE_YAML, DEFAULT_POLICY, label, report

ASYLUM_DE = (
    "Wann dürfen Asylbewerber eine Arbeitserlaubnis beantragen?",
    "Asylbewerber können nach zwei Monaten eine Arbeitserlaubnis beantragen.",
    ["Asylbewerber dürfen nach sechs Monaten Aufenthalt eine Arbeitserlaubnis beantragen."],
)


def test_default_policy_has_every_message_in_every_language_it_reads() -> None:
    policy = load_policy(DEFAULT_POLICY)
    for rule in policy.topics:
        seen = {rule.abstain_message_in(code) for code in OFFLINE_JUDGE_LANGUAGES}
        assert len(seen) == len(OFFLINE_JUDGE_LANGUAGES), rule.name
        if rule.on_flag.escalate is not None:
            held = {rule.on_flag.escalate.in_language(c) for c in OFFLINE_JUDGE_LANGUAGES}
            assert len(held) == len(OFFLINE_JUDGE_LANGUAGES), rule.name
            assert rule.on_flag.escalate.in_language("en") == rule.on_flag.escalate.message


def test_a_language_without_a_message_gets_the_message_as_written() -> None:
    policy = load_policy(DEFAULT_POLICY)
    asylum = policy.topic("asylum")
    assert asylum.on_flag.escalate is not None
    assert asylum.on_flag.escalate.in_language("pl") == asylum.on_flag.escalate.message
    assert asylum.on_flag.escalate.in_language(None) == asylum.on_flag.escalate.message
    assert policy.topic("general").abstain_message_in("pl") == DEFAULT_ABSTAIN_MESSAGE


def test_an_own_message_without_translations_is_not_replaced_by_the_built_in_ones() -> None:
    text = BASE_YAML.replace(
        "  - name: general\n    threshold: 0.5\n",
        "  - name: general\n    threshold: 0.5\n    on_flag:\n      abstain:\n"
        "        message: Please ask the front desk.\n"
        "        messages: {fr: Demandez à l'accueil.}\n",
    )
    rule = parse_policy(text).topic("general")
    assert rule.abstain_message_in("fr") == "Demandez à l'accueil."
    assert rule.abstain_message_in("de") == "Please ask the front desk."
    assert DEFAULT_ABSTAIN_MESSAGES["de"] != DEFAULT_ABSTAIN_MESSAGE


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [("de", "de", "de"), ("und", "fr", "fr"), ("und", "und", None)],
)
def test_the_user_language_is_the_questions_else_the_answers(
    question: str, answer: str, expected: str | None
) -> None:
    languages = TurnLanguages(question=question, answer=answer, contexts=[answer])
    engine = PolicyEngine(load_policy(DEFAULT_POLICY))
    decision = engine.decide(report(0.0), [label("general")], languages=languages)
    assert user_language(decision) == expected


def test_a_german_turn_is_escalated_with_the_german_holding_message() -> None:
    policy = load_policy(DEFAULT_POLICY)
    with Guard(policy) as guard:
        result = guard.check(*ASYLUM_DE)
    asylum = policy.topic("asylum")
    assert asylum.on_flag.escalate is not None
    assert result.decision.action == "escalate"
    assert result.answer == asylum.on_flag.escalate.messages["de"]
