"""make_judge builds the SDK judges from spec strings, and rejects bad specs clearly."""

from __future__ import annotations

import pytest

from guardrail.exceptions import ConfigError
from guardrail.judges import registry
from guardrail.judges.anthropic import AnthropicJudge
from guardrail.judges.base import JudgeRequest
from guardrail.judges.openai import OpenAIJudge
from guardrail.judges.registry import JudgeSpec, make_judge, parse_spec, register_judge, spec_help
from guardrail.testing import TestJudge

from .fakes import ANTHROPIC, OPENAI, FakeServer


@pytest.mark.parametrize(
    ("spec", "cls", "name"),
    [
        ("openai:gpt-4.1-mini", OpenAIJudge, "openai:gpt-4.1-mini"),
        ("OpenAI:gpt-4.1-mini", OpenAIJudge, "openai:gpt-4.1-mini"),
        ("  anthropic:claude-haiku-4-5  ", AnthropicJudge, "anthropic:claude-haiku-4-5"),
        (
            "openai-compatible:llama3.1:8b@http://localhost:11434/v1",
            OpenAIJudge,
            "openai-compatible:llama3.1:8b",
        ),
    ],
)
def test_specs_build_the_named_backend(spec: str, cls: type, name: str):
    """Each spec form yields its backend and audit name, with no I/O and no key needed."""
    judge = make_judge(spec)
    assert isinstance(judge, cls)
    assert judge.name == name


async def test_openai_compatible_spec_sends_requests_to_its_url_without_a_key():
    """The URL in the spec is where requests go; a local server needs no OPENAI_API_KEY."""
    server = FakeServer([OPENAI.ok("YES. from ollama")])
    judge = make_judge(
        "openai-compatible:llama3.1:8b@http://localhost:11434/v1",
        http_client=server.http_client(),
    )
    response = await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert response.text == "YES. from ollama"
    assert server.last.url == "http://localhost:11434/v1/chat/completions"
    assert server.last.body["model"] == "llama3.1:8b"


@pytest.mark.parametrize(("spec", "backend"), [("openai:m1", OPENAI), ("anthropic:m1", ANTHROPIC)])
async def test_options_reach_the_backend_constructor(spec: str, backend):
    """Keyword options (key, limits) pass through make_judge to the request."""
    server = FakeServer([backend.ok()])
    judge = make_judge(spec, api_key="sk-opt", max_tokens=77, http_client=server.http_client())
    await judge.complete(JudgeRequest(task="verify", prompt="p"))
    assert server.last.headers["authorization"] == "Bearer sk-opt"
    assert server.last.body["model"] == "m1"
    assert 77 in (server.last.body.get("max_tokens"), server.last.body.get("max_completion_tokens"))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "unknown judge spec"),
        ("gpt-4", "unknown judge spec"),
        ("openai:", "unknown judge spec"),
        ("anthropic:", "unknown judge spec"),
        ("mistral:large", "unknown judge spec"),
        ("openai-compatible:llama3", "expected openai-compatible:MODEL@URL"),
        ("openai-compatible:llama3@", "expected openai-compatible:MODEL@URL"),
        ("openai-compatible:@http://localhost:11434/v1", "expected openai-compatible:MODEL@URL"),
        ("openai-compatible:llama3@localhost:11434/v1", "expected an http:// or https:// URL"),
    ],
)
def test_bad_specs_raise_config_error(spec: str, message: str):
    """A malformed spec is a ConfigError (CLI exit 2) that says what was expected."""
    with pytest.raises(ConfigError, match=message):
        make_judge(spec)


def test_a_judge_instance_passes_through():
    judge = TestJudge()
    assert make_judge(judge) is judge
    with pytest.raises(ConfigError, match="a judge instance takes none"):
        make_judge(judge, api_key="x")
    with pytest.raises(ConfigError, match="expected a judge spec or a Judge"):
        make_judge(42)  # type: ignore[arg-type]


def test_the_undocumented_offline_alias_is_gone():
    with pytest.raises(ConfigError, match="unknown judge spec 'offline'"):
        parse_spec("offline")


def test_a_registered_prefix_builds_its_judge_and_checks_its_argument(monkeypatch):
    """register_judge: factory(argument, **options); check() refuses bad arguments early;
    the prefix is listed in the help text; registering it twice needs replace=True."""
    monkeypatch.setattr(registry.JUDGES, "_entries", dict(registry.JUDGES._entries))

    def check(argument: str) -> None:
        if not argument.isdigit():
            raise ConfigError("acme: the argument is a version number")

    def factory(argument: str, **options: object) -> TestJudge:
        return TestJudge(judge_name=f"acme-v{argument}", **options)  # type: ignore[arg-type]

    register_judge("acme", factory, check=check, usage="acme:VERSION")
    assert make_judge("acme:2", latency_s=0.0).name == "acme-v2"
    assert parse_spec("ACME:2") == JudgeSpec("acme", "2")
    assert "acme:VERSION" in spec_help()
    with pytest.raises(ConfigError, match="version number"):
        parse_spec("acme:x")
    with pytest.raises(ConfigError, match="already registered"):
        register_judge("acme", factory)
    register_judge("acme", factory, replace=True)
    with pytest.raises(ConfigError, match="one word without ':'"):
        register_judge("a:b", factory)
