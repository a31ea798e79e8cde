"""The LLM protocols keep the answer's language: decomposition and mutation prompts say so for
an answer not in English, verification prompts say the statement and the context may be in
different languages, and an English turn gets the prompts exactly as published."""

from __future__ import annotations

import pytest

from guardrail.judges import JudgeRequest
from guardrail.judges.testkit import TestJudge
from guardrail.scoring import MetaRAG, MetaRAGConfig, metarag
from guardrail.scoring.templates import (
    CROSS_LANGUAGE_TASKS,
    KEEP_LANGUAGE_TASKS,
    PromptSet,
    language_note,
    language_scope,
)

EN = (
    "When can asylum seekers apply for a work permit?",
    "Asylum seekers may apply for a work permit after six months.",
    ["Asylum seekers may apply for a work permit after waiting six months for a decision."],
)
DE_ANSWER = "Asylbewerber können nach sechs Monaten eine Arbeitserlaubnis beantragen."
DE_CONTEXT = ["Asylbewerber dürfen nach sechs Monaten Aufenthalt eine Arbeitserlaubnis beantragen."]


def _requests(protocol: str, prompts: PromptSet | None, question: str, answer: str,
              contexts: list[str]) -> list[JudgeRequest]:  # fmt: skip
    judge = TestJudge()
    MetaRAG(judge, config=MetaRAGConfig(protocol=protocol), prompts=prompts).score_sync(
        question, answer, contexts
    )
    return judge.requests


@pytest.mark.parametrize("protocol", ["paper", "factoid", "answer"])
def test_a_german_answer_keeps_its_language_in_every_writing_prompt(protocol: str) -> None:
    requests = _requests(protocol, None, EN[0], DE_ANSWER, DE_CONTEXT)
    writing = [r for r in requests if r.task in KEEP_LANGUAGE_TASKS]
    assert writing
    assert all("(German); do not translate it" in r.prompt for r in writing)
    verifying = [r for r in requests if r.task in CROSS_LANGUAGE_TASKS]
    assert verifying and not any("Compare their meaning" in r.prompt for r in verifying)


def test_an_answer_in_another_language_than_its_passages_is_verified_across_them() -> None:
    requests = _requests("paper", None, EN[0], DE_ANSWER, EN[2])
    verifying = [r for r in requests if r.task in CROSS_LANGUAGE_TASKS]
    assert verifying
    for request in verifying:
        assert "written in German and the context in English" in request.prompt


@pytest.mark.parametrize("protocol", ["paper", "factoid", "answer"])
def test_english_turns_get_the_published_prompts_unchanged(
    protocol: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the paper's prompt text, every prompt of an English turn is exactly what the
    scorer renders with no language handling at all."""
    paper = PromptSet.builtin("metarag_v1")
    sent = [r.prompt for r in _requests(protocol, paper, *EN)]
    monkeypatch.setattr(metarag, "language_note", lambda task: "")
    plain = [r.prompt for r in _requests(protocol, paper, *EN)]
    assert sent == plain and len(sent) >= 3


def test_the_note_is_empty_outside_a_scope_and_for_text_without_letters() -> None:
    assert language_note("decompose") == ""
    with language_scope("und", ["de"]):
        assert language_note("decompose") == "" and language_note("verify") == ""
    with language_scope("fr", ["fr"]):
        assert "French" in language_note("synonym") and language_note("verify") == ""
