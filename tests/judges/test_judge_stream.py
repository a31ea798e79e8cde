"""Which judges stream: the ``judge_stream`` setting (``--judge-stream``) as the scorer
factory applies it to judges built from specs."""

from __future__ import annotations

import argparse

import pytest

from guardrail.cli.options import add_scorer_flags, scorer_settings
from guardrail.judges.openai import OpenAIJudge
from guardrail.scoring.factory import judge_for, judge_options
from guardrail.scoring.settings import MetaRAGSettings

LOCAL_SERVER = "openai-compatible:llama3@http://127.0.0.1:8080/v1"


@pytest.mark.parametrize(
    ("choice", "spec", "stream"),
    [
        ("auto", LOCAL_SERVER, True),
        ("auto", "openai:gpt-4.1-mini", False),
        ("on", "openai:gpt-4.1-mini", True),
        ("off", LOCAL_SERVER, False),
    ],
)
def test_auto_streams_for_openai_compatible_servers(choice: str, spec: str, stream: bool) -> None:
    settings = MetaRAGSettings(judge=spec, judge_stream=choice)  # type: ignore[arg-type]
    judge = judge_for(settings)
    assert isinstance(judge, OpenAIJudge) and judge.stream is stream


def test_other_judges_get_no_stream_option() -> None:
    settings = MetaRAGSettings(judge="local", judge_stream="on")
    assert judge_options(settings, "local") == {}
    assert judge_options(settings, "anthropic:claude-sonnet-4-5") == {}


def test_the_flag_overrides_the_setting() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--policy", default=None)
    add_scorer_flags(parser)
    args = parser.parse_args(["--judge", LOCAL_SERVER, "--judge-stream", "off"])
    settings = scorer_settings(args)
    assert settings.judge_stream == "off"
    judge = judge_for(settings)
    assert isinstance(judge, OpenAIJudge) and judge.stream is False
    with pytest.raises(SystemExit):
        parser.parse_args(["--judge-stream", "sometimes"])
