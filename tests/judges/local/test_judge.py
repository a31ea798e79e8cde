"""The LocalJudge protocol surface: name, dispatch, token counts, caching, errors."""

from __future__ import annotations

import json

import pytest

from guardrail.exceptions import ConfigError, JudgeRequestError
from guardrail.judges.base import Judge, JudgeRequest
from guardrail.judges.local import MODEL, LocalJudge
from guardrail.judges.local.verifiers import RulesVerifier, TrainedVerifier
from guardrail.judges.registry import make_judge

from .conftest import CURIE_CONTEXT


def test_is_a_judge_and_local_means_the_trained_verifier():
    """LocalJudge satisfies the Judge protocol; "local" is the trained verifier (the best
    offline one), "local:rules" the rule verifier."""
    judge = LocalJudge()
    assert isinstance(judge, Judge) and judge.name == "local-trained"
    assert isinstance(judge.verifier, TrainedVerifier)
    default = make_judge("local")
    assert isinstance(default, LocalJudge) and isinstance(default.verifier, TrainedVerifier)
    rules = make_judge("local:rules")
    assert isinstance(rules, LocalJudge) and rules.name == "local-rules"


def test_constructor_does_no_io():
    """The lexicon is read on first use, not in the constructor."""
    from guardrail.judges.local import lexicon

    for cached in (lexicon._english_data, lexicon._english, lexicon._for_language):
        cached.cache_clear()
    judge = LocalJudge(verifier="rules")
    assert lexicon._english_data.cache_info().currsize == 0
    judge.answer("decompose", {"text": "Paris is a city."})
    assert lexicon._english_data.cache_info().currsize == 1


def test_constructor_validates_settings():
    """Out-of-range thresholds or cache size are rejected."""
    with pytest.raises(ConfigError, match="thresholds"):
        LocalJudge(support_threshold=1.5)
    with pytest.raises(ConfigError, match="cache_size"):
        LocalJudge(cache_size=0)


async def test_complete_reports_model_and_whitespace_token_counts():
    """The response names the rules model and counts whitespace tokens of prompt and reply."""
    judge = LocalJudge(verifier="rules")
    request = JudgeRequest(
        task="verify",
        prompt="four words of prompt",
        inputs={"statement": "Curie discovered radium.", "context": CURIE_CONTEXT},
    )
    response = await judge.complete(request)
    assert response.model == MODEL == "local-rules-v1"
    assert response.prompt_tokens == 4
    assert response.completion_tokens == len(response.text.split()) > 0
    assert response.text.startswith("YES.")


@pytest.mark.parametrize(
    ("task", "first_word"),
    [("local_verify", "ENTAILED."), ("global_verify", "ENTAILED.")],
)
def test_rt4chart_verify_labels(task, first_word):
    """RT4CHART verification maps YES/NO/NOT SURE to ENTAILED/CONTRADICTED/BASELESS."""
    judge = LocalJudge(verifier="rules")
    answer = lambda claim: judge.answer(  # noqa: E731
        task, {"claim": claim, "context": CURIE_CONTEXT, "hint": ""}
    )
    assert answer("Curie discovered radium.").startswith(first_word)
    assert answer("Marie Curie was born in 1868.").startswith("CONTRADICTED.")
    assert answer("The moon is made of cheese.").startswith("BASELESS.")


def test_claims_task_matches_decompose():
    """RT4CHART's ``claims`` task returns the same JSON array as ``decompose``."""
    judge = LocalJudge(verifier="rules")
    text = "Ibuprofen is safe and effective."
    assert judge.answer("claims", {"text": text}) == judge.answer("decompose", {"text": text})
    assert json.loads(judge.answer("claims", {"text": text})) == [
        "Ibuprofen is safe.",
        "Ibuprofen is effective.",
    ]


async def test_unknown_task_is_a_request_error():
    """A task the judge does not know raises JudgeRequestError (not retryable)."""
    with pytest.raises(JudgeRequestError) as info:
        await LocalJudge(verifier="rules").complete(JudgeRequest(task="translate", prompt="p"))
    assert not info.value.retryable


def test_odd_input_values_are_treated_as_text():
    """Non-string and ``None`` values are text, not errors."""
    judge = LocalJudge(verifier="rules")
    assert judge.answer("decompose", {"text": 12345}) == "[]"
    assert judge.answer("decompose", {"text": None}) == "[]"
    assert len(judge.answer("antonym", {"factoid": None, "count": 2}).split("\n")) == 2
    assert judge.answer("verify", {"statement": "x", "passages": []}).startswith("NOT SURE.")


@pytest.mark.parametrize(
    ("task", "inputs", "missing"),
    [
        ("decompose", {}, "'text'"),
        ("synonym", {"count": 2}, "'factoid'"),
        ("verify", {"context": "Paris is in France."}, "'statement'"),
        ("verify", {"statment": "Paris is in France.", "context": "c"}, "'statement'"),
        ("verify", {"statement": "Paris is in France."}, "'context'"),
        ("local_verify", {"claim": "Paris is in France."}, "'context'"),
    ],
)
def test_a_missing_input_key_is_a_request_error(task, inputs, missing):
    """A misspelt or missing key raises instead of answering a silent NOT SURE."""
    with pytest.raises(JudgeRequestError, match=missing):
        LocalJudge(verifier="rules").answer(task, inputs)


def test_context_cache_is_bounded_lru_and_reused():
    """The same context is preprocessed once; old contexts are evicted beyond cache_size."""
    verifier = RulesVerifier(cache_size=2)
    first = verifier.prepare("Alpha is a letter.")
    assert verifier.prepare("Alpha is a letter.") is first
    verifier.prepare("Beta is a letter.")
    verifier.prepare("Alpha is a letter.")  # refresh Alpha: Beta is now the oldest
    verifier.prepare("Gamma is a letter.")
    assert len(verifier._cache) == 2
    assert verifier.prepare("Alpha is a letter.") is first


def test_deterministic_across_instances():
    """Two judges give byte-identical replies for every task."""
    a, b = LocalJudge(verifier="rules"), LocalJudge(verifier="rules")
    for task, inputs in [
        ("decompose", {"text": "Curie was born in Warsaw and moved to Paris."}),
        ("synonym", {"factoid": "Ibuprofen is safe.", "count": 3}),
        ("antonym", {"factoid": "Ibuprofen is safe.", "count": 3}),
        ("verify", {"statement": "Curie discovered radium.", "context": CURIE_CONTEXT}),
    ]:
        assert a.answer(task, inputs) == b.answer(task, inputs)
