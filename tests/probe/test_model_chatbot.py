"""A model as the chatbot under test, through the official SDKs (a fake HTTP transport):
the system prompt and the prompt on the wire, failures that stop the run, failures that are
one question's error."""

from __future__ import annotations

import asyncio

import pytest

from guardrail.exceptions import ConfigError
from guardrail.probe.chatbot import ModelChatbot, is_model_spec, model_chatbot
from guardrail.probe.extract import OfflineExtractor, TripleExtractor
from guardrail.probe.facts import load_facts
from guardrail.probe.prompt import render
from guardrail.probe.run import Prober, plan
from tests.cli.test_probe_cli import EXAMPLE
from tests.judges.fakes import BACKENDS, FakeServer, error_response


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.id)
def test_the_prompt_goes_out_after_the_system_prompt(backend):
    server = FakeServer([backend.ok("No.\n1. Ibuprofen is an NSAID.")])
    judge = backend.judge(server)
    bot = ModelChatbot(judge, system_prompt="You are the X helpdesk.", max_tokens=99)
    reply = asyncio.run(bot(render("Is it true that a is b")))
    assert reply == "No.\n1. Ibuprofen is an NSAID."
    body = server.last.body
    assert body.get("max_tokens", body.get("max_completion_tokens")) == 99
    if backend.id == "anthropic":
        system = body["system"]
        text = system if isinstance(system, str) else " ".join(b["text"] for b in system)
        assert text == "You are the X helpdesk."
        assert "Is it true that a is b?" in str(body["messages"][-1]["content"])
    else:
        assert body["messages"][0] == {"role": "system", "content": "You are the X helpdesk."}
        assert "Is it true that a is b?" in body["messages"][-1]["content"]


@pytest.mark.parametrize("status", [401, 403, 404])
def test_a_model_that_cannot_be_used_stops_the_probe(status):
    """A 401/403/404 from the chatbot's server stops the run after one call, naming the
    status."""
    from tests.judges.fakes import OPENAI

    server = FakeServer([error_response(status, "no such model")])
    truth = load_facts(EXAMPLE)
    prober = Prober(
        ModelChatbot(OPENAI.judge(server)), TripleExtractor(OfflineExtractor(), truth.relations)
    )
    with pytest.raises(ConfigError, match=f"HTTP {status}") as stopped:
        asyncio.run(prober.run(plan(truth)[:3]))
    assert server.count == 1
    # the server's own error text is summarised, never copied (it may echo a key or prompt)
    assert "no such model" not in str(stopped.value)


def test_a_server_error_is_retried_then_recorded_as_that_questions_error():
    from tests.judges.fakes import OPENAI

    server = FakeServer(
        [error_response(500), error_response(503), OPENAI.ok("Yes."), OPENAI.ok("Yes.")]
    )
    truth = load_facts(EXAMPLE)
    bot = ModelChatbot(OPENAI.judge(server), max_attempts=2)
    bot.runner.policy = bot.runner.policy.model_copy(update={"backoff_max_s": 0.0})
    prober = Prober(bot, TripleExtractor(OfflineExtractor(), truth.relations))
    asked = [q for q in plan(truth) if q.expected == "yes"][:2]
    records = asyncio.run(prober.run(asked)).records
    assert [r.outcome for r in records] == ["error", "correct"]
    assert "503" in (records[0].error or "") and server.count == 3


def test_specs_and_options():
    assert is_model_spec("openai:gpt-4o-mini") and is_model_spec("anthropic:claude-x")
    assert is_model_spec("openai-compatible:m@http://127.0.0.1:8080/v1")
    assert not is_model_spec("examples.probe.chatbot:answer")
    assert not is_model_spec("local") and not is_model_spec("bots.py:answer")
    assert model_chatbot("openai-compatible:m@http://127.0.0.1:1/v1").name == (
        "openai-compatible:m"
    )
    with pytest.raises(ConfigError, match="openai-compatible:MODEL@URL"):
        model_chatbot("openai-compatible:no-url")
    with pytest.raises(ConfigError, match="--chatbot-max-tokens"):
        model_chatbot("openai:m", max_tokens=0)
    with pytest.raises(ConfigError, match="--chatbot-timeout"):
        model_chatbot("openai:m", timeout_s=0)


def test_an_unreachable_server_is_each_questions_error_not_a_crash():
    truth = load_facts(EXAMPLE)
    bot = model_chatbot("openai-compatible:m@http://127.0.0.1:9/v1", timeout_s=5)
    bot.runner.policy = bot.runner.policy.model_copy(update={"backoff_max_s": 0.0})
    prober = Prober(bot, TripleExtractor(OfflineExtractor(), truth.relations))
    records = asyncio.run(prober.run(plan(truth)[:1])).records
    assert records[0].outcome == "error" and "connection" in (records[0].error or "")
