"""Each topic says which text detected it, and a policy can keep passage keywords out."""

from __future__ import annotations

from pathlib import Path

from guardrail.policy import load_policy
from guardrail.render import topic_text
from guardrail.topics import TopicClassifier

ROOT = Path(__file__).resolve().parents[1]
VISA = "How many hours a week can I work on a student visa?"
PASSAGE = "Students may work 20 hours a week. Asylum seekers follow other rules."


def _classifier(context_keywords: bool | None = None) -> TopicClassifier:
    policy = load_policy(ROOT / "policies" / "default.yaml")
    if context_keywords is not None:
        topics = [
            t.model_copy(update={"context_keywords": context_keywords}) if t.name == "asylum" else t
            for t in policy.topics
        ]
        policy = policy.model_copy(update={"topics": topics})
    return TopicClassifier.from_policy(policy)


def test_a_passage_keyword_is_reported_as_such():
    labels = {t.label: t for t in _classifier().classify(VISA, [PASSAGE])}
    asylum = labels["asylum"]
    assert (asylum.source, asylum.found_in) == ("keyword", "context")
    assert topic_text(asylum) == "asylum 1.00 (keyword in passage)"


def test_a_question_keyword_is_reported_as_such():
    (first, *_) = _classifier().classify("Can asylum seekers work?", [PASSAGE])
    assert (first.label, first.source, first.found_in) == ("asylum", "keyword", "question")
    assert topic_text(first).endswith("(keyword in question)")


def test_a_policy_can_ignore_passage_keywords():
    labels = {t.label for t in _classifier(context_keywords=False).classify(VISA, [PASSAGE])}
    assert "asylum" not in labels
    asked = _classifier(context_keywords=False).classify("Can asylum seekers work?", [PASSAGE])
    assert asked[0].label == "asylum"  # the question's own keywords still count


def test_the_setting_is_in_the_policy_schema():
    policy = load_policy(ROOT / "policies" / "default.yaml")
    assert all(t.context_keywords for t in policy.topics)  # the default keeps them
