"""The policy's languages rule: what a turn the judge cannot read gets (guardrail.policy)."""

from __future__ import annotations

import pytest

from guardrail.exceptions import PolicyError
from guardrail.lang import OFFLINE_JUDGE_LANGUAGES
from guardrail.models import TurnLanguages
from guardrail.policy import PolicyEngine, load_policy, parse_policy
from guardrail.policy.languages import judge_reads
from tests.policy.factories import BASE_YAML, DEFAULT_POLICY, label, report


def turn(answer: str, contexts: list[str] | None = None, question: str = "en") -> TurnLanguages:
    return TurnLanguages(question=question, answer=answer, contexts=contexts or [answer])


@pytest.fixture
def engine() -> PolicyEngine:
    return PolicyEngine(parse_policy(BASE_YAML))


def test_offline_judge_reads_its_declared_languages_only(engine: PolicyEngine) -> None:
    """With the offline judge and no languages block, the judge reads exactly the offline
    judge's declared languages and does not compare across languages."""
    assert judge_reads(engine.policy) == (list(OFFLINE_JUDGE_LANGUAGES), False)


def test_llm_judge_reads_english_unless_the_policy_names_its_languages() -> None:
    """An LLM judge is taken to read English only until the policy names its languages;
    then it reads those and compares across them."""
    llm = BASE_YAML.replace("topics:", "scorer: {judge: 'openai:gpt-4.1-mini'}\ntopics:", 1)
    assert judge_reads(parse_policy(llm)) == (["en"], True)
    named = llm.replace("topics:", "languages: {judge_languages: [en, de, ar]}\ntopics:", 1)
    assert judge_reads(parse_policy(named)) == (["en", "de", "ar"], True)


@pytest.mark.parametrize("topic", ["pregnancy", "asylum", "labour"])
@pytest.mark.parametrize("score", [0.0, 0.9])
def test_unread_answer_never_passes_on_a_sensitive_topic(
    engine: PolicyEngine, topic: str, score: float
) -> None:
    """An answer in a language the judge does not read is escalated (or abstained when the
    topic has no queue) on every sensitive topic, whatever it scored."""
    decision = engine.decide(report(score, 0.3), [label(topic)], languages=turn("pl"))
    rule = engine.policy.topic(topic)
    expected = "escalate" if rule.on_flag.escalate else "abstain"
    assert decision.action == expected
    assert decision.actions == [expected]
    assert decision.languages is not None and decision.languages.verifiable is False
    assert "'pl'" in decision.reason and "fail closed" in decision.reason
    if expected == "escalate":
        assert decision.queue == rule.on_flag.escalate.queue  # type: ignore[union-attr]


@pytest.mark.parametrize("score", [0.0, 0.9])
def test_unread_answer_on_a_normal_topic_fails_closed_too(
    engine: PolicyEngine, score: float
) -> None:
    """By default a normal topic fails closed as well: an answer the judge cannot read is
    abstained (the general topic has no review queue), whatever it scored."""
    decision = engine.decide(report(score), [label("general")], languages=turn("pl"))
    assert decision.action == "abstain"
    assert decision.languages is not None and decision.languages.verifiable is False
    assert "'pl'" in decision.reason and "fail closed" in decision.reason


def test_a_topic_that_says_score_decides_on_the_score_and_says_so() -> None:
    """``on_unverified_language: score`` decides on the score as usual, and the reason says
    the judge could not read the answer's language."""
    text = BASE_YAML.replace(
        "  - name: general\n    threshold: 0.5\n",
        "  - name: general\n    threshold: 0.5\n    on_unverified_language: score\n",
    )
    engine = PolicyEngine(parse_policy(text))
    decision = engine.decide(report(0.1), [label("general")], languages=turn("pl"))
    assert (decision.action, decision.flagged) == ("pass", False)
    assert "not verified: the answer is in 'pl'" in decision.reason


def test_read_language_is_recorded_and_changes_nothing(engine: PolicyEngine) -> None:
    """An answer and passages the judge reads get the decision the score gives, with the
    languages recorded as verifiable."""
    plain = engine.decide(report(0.1, 0.3), [label("asylum")])
    checked = engine.decide(report(0.1, 0.3), [label("asylum")], languages=turn("en"))
    assert checked.model_copy(update={"languages": None}) == plain
    assert checked.languages == TurnLanguages(
        question="en",
        answer="en",
        contexts=["en"],
        judge_languages=list(OFFLINE_JUDGE_LANGUAGES),
        verifiable=True,
    )


def test_passage_in_an_unread_language_makes_the_turn_unverifiable(engine: PolicyEngine) -> None:
    """An English answer checked against a Polish passage cannot be verified by a judge that
    does not read Polish."""
    decision = engine.decide(report(0.0, 0.3), [label("asylum")], languages=turn("en", ["pl"]))
    assert decision.action == "escalate"
    assert "a passage is in 'pl'" in decision.reason


def test_cross_language_turn_needs_a_cross_lingual_judge() -> None:
    """Answer and passages in two languages the judge reads: unverifiable unless the judge
    compares across languages."""
    both = BASE_YAML.replace("topics:", "languages: {judge_languages: [en, de]}\ntopics:", 1)
    strict = PolicyEngine(parse_policy(both))
    mixed = turn("de", ["en"])
    decision = strict.decide(report(0.0, 0.3), [label("asylum")], languages=mixed)
    assert decision.action == "escalate"
    assert "cannot compare across languages" in decision.reason
    cross = both.replace(
        "judge_languages: [en, de]", "judge_languages: [en, de], cross_lingual: true"
    )
    decision = PolicyEngine(parse_policy(cross)).decide(
        report(0.0, 0.3), [label("asylum")], languages=mixed
    )
    assert decision.action == "pass" and decision.languages is not None
    assert decision.languages.verifiable is True


def test_text_without_letters_never_makes_a_turn_unverifiable(engine: PolicyEngine) -> None:
    """A bare number as the answer, or a passage of numbers, is in no language: no problem."""
    decision = engine.decide(
        report(0.0, 0.3), [label("asylum")], languages=turn("und", ["en", "und"])
    )
    assert decision.action == "pass"


def test_topic_can_choose_what_an_unread_turn_gets() -> None:
    """on_unverified_language overrides the default per topic (abstain on a normal topic,
    score on a sensitive one)."""
    text = BASE_YAML.replace(
        "  - name: general\n    threshold: 0.5\n",
        "  - name: general\n    threshold: 0.5\n    on_unverified_language: abstain\n",
    ).replace(
        "  - name: labour\n    sensitivity: sensitive\n",
        "  - name: labour\n    sensitivity: sensitive\n    on_unverified_language: score\n",
    )
    engine = PolicyEngine(parse_policy(text))
    assert engine.decide(report(0.0), [label("general")], languages=turn("tr")).action == "abstain"
    assert engine.decide(report(0.0, 0.3), [label("labour")], languages=turn("tr")).action == "pass"


def test_escalating_an_unread_turn_needs_a_queue() -> None:
    """on_unverified_language: escalate on a topic without an escalation queue is a policy
    error naming the key."""
    text = BASE_YAML.replace(
        "  - name: general\n    threshold: 0.5\n",
        "  - name: general\n    threshold: 0.5\n    on_unverified_language: escalate\n",
    )
    with pytest.raises(PolicyError, match=r"topics\[0\]\.on_unverified_language"):
        parse_policy(text)


def test_shipped_default_policy_fails_closed_on_every_topic() -> None:
    """Under the shipped default policy, an unread answer never passes, on any topic."""
    engine = PolicyEngine(load_policy(DEFAULT_POLICY))
    for rule in engine.policy.topics:
        decision = engine.decide(
            report(0.0, rule.threshold), [label(rule.name)], languages=turn("ar", ["ar"])
        )
        assert decision.action in ("abstain", "escalate"), rule.name
        assert "fail closed" in decision.reason
