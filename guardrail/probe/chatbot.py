"""The system under test: an answer function named ``module:function`` (or ``file.py:function``),
or a model named by a judge-style spec.

An answer function is the same kind of function :meth:`guardrail.Guard.wrap` takes: called
with the question (here the Table 2 prompt) and returning the answer in any shape
:func:`~guardrail.actions.answers.normalize_answer` accepts — ``(answer, contexts)``, a dict, an
object with ``.answer`` — or a plain string. Sync or async.

A model spec (``openai:MODEL``, ``openai-compatible:MODEL@URL``, ``anthropic:MODEL``: the
``--judge`` syntax, :mod:`guardrail.judges.registry`) makes :class:`ModelChatbot`: each prompt
goes to the model as the user message, after an optional system prompt (the deployed bot's own),
with the judge runner's timeout and retries. A model that cannot be used at all (no API key,
authentication refused, unknown model) stops the run with a ``ConfigError``; any other failed
call is that question's error record.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from guardrail.actions.answers import normalize_answer
from guardrail.exceptions import ConfigError, JudgeRequestError
from guardrail.judges.base import ClosableJudge, Judge, JudgeRequest

#: HTTP statuses after which no question can succeed: stop the run.
_FATAL = frozenset({401, 403, 404})


def is_model_spec(spec: str) -> bool:
    """Whether ``spec`` names a model (``openai:...``, ``openai-compatible:...``,
    ``anthropic:...``) rather than an answer function."""
    from guardrail.judges.registry import JUDGES

    kind, colon, _ = (spec or "").strip().partition(":")
    entry = JUDGES.find(kind.lower()) if colon else None
    return entry is not None and entry.capabilities.chat_model


class ModelChatbot:
    """A chat model as the chatbot under test (see the module docstring)."""

    def __init__(
        self,
        judge: Judge,
        *,
        system_prompt: str | None = None,
        max_tokens: int = 256,
        timeout_s: float = 120.0,
        max_attempts: int = 2,
    ) -> None:
        from guardrail.judges.runner import JudgeRunner, RetryPolicy

        if max_tokens < 1:
            raise ConfigError(f"--chatbot-max-tokens must be >= 1, got {max_tokens}")
        if not timeout_s > 0:
            raise ConfigError(f"--chatbot-timeout must be > 0, got {timeout_s}")
        self.judge = judge
        self.system_prompt = system_prompt or None
        self.max_tokens = max_tokens
        policy = RetryPolicy(timeout_s=timeout_s, max_attempts=max_attempts, backoff_max_s=4.0)
        self.runner = JudgeRunner(judge, policy)

    @property
    def name(self) -> str:
        return self.judge.name

    async def __call__(self, prompt: str) -> str:
        from guardrail.judges.runner import JudgeCallError

        request = JudgeRequest(
            task="chat", prompt=prompt, system=self.system_prompt, max_tokens=self.max_tokens
        )
        try:
            response, _call = await self.runner.call("chat", request)
        except JudgeCallError as exc:
            cause = exc.cause
            if isinstance(cause, JudgeRequestError) and (
                cause.status_code is None or cause.status_code in _FATAL
            ):
                raise ConfigError(f"--chatbot {self.name}: {cause}") from None
            raise
        return response.text

    async def aclose(self) -> None:
        if isinstance(self.judge, ClosableJudge):
            await self.judge.aclose()


def model_chatbot(
    spec: str,
    *,
    system_prompt: str | None = None,
    max_tokens: int = 256,
    timeout_s: float = 120.0,
) -> ModelChatbot:
    """The model ``spec`` names as a chatbot; ``ConfigError`` for a malformed spec."""
    from guardrail.judges.registry import make_judge

    judge = make_judge(spec)
    return ModelChatbot(
        judge, system_prompt=system_prompt, max_tokens=max_tokens, timeout_s=timeout_s
    )


def load_chatbot(spec: str) -> Callable[..., Any]:
    """Import the answer function ``spec`` names; ``ConfigError`` (one line) when it cannot."""
    target, colon, attr = (spec or "").rpartition(":")
    if not colon or not target or not attr.isidentifier():
        raise ConfigError(f"--chatbot {spec!r}: expected module:function or path/file.py:function")
    try:
        if target.endswith(".py"):
            module = _module_from_file(Path(target))
        else:
            if "" not in sys.path and str(Path.cwd()) not in sys.path:
                sys.path.insert(0, str(Path.cwd()))  # like `python -m`: the working directory
            module = importlib.import_module(target)
    except ConfigError:
        raise
    except Exception as exc:  # the user's module failed to import: say so in one line
        raise ConfigError(
            f"--chatbot {spec!r}: cannot import {target!r} ({type(exc).__name__}: {exc})"
        ) from None
    fn = getattr(module, attr, None)
    if fn is None:
        raise ConfigError(f"--chatbot {spec!r}: {target!r} has no attribute {attr!r}")
    if not callable(fn):
        raise ConfigError(f"--chatbot {spec!r}: {attr!r} is a {type(fn).__name__}, not callable")
    return fn  # type: ignore[no-any-return]


def _module_from_file(path: Path) -> Any:
    if not path.is_file():
        raise ConfigError(f"--chatbot: no such file {str(path)!r}")
    name = f"_guardrail_probe_chatbot_{path.stem}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ConfigError(f"--chatbot: cannot load {str(path)!r} as a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    module_spec.loader.exec_module(module)
    return module


def reply_text(result: Any) -> str:
    """The answer text of an answer function's return value (the ``Guard.wrap`` shapes, or a
    plain string); ``ConfigError`` for any other shape."""
    if isinstance(result, str):
        return result
    answer, _contexts = normalize_answer(result)
    return answer


async def ask(fn: Callable[..., Any], prompt: str, *, in_thread: bool) -> str:
    """Call the answer function with ``prompt`` and return its answer text.

    A sync function runs in a worker thread when ``in_thread`` (several questions at once).
    """
    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - an object with an async __call__
    ):
        result = await fn(prompt)
    elif in_thread:
        result = await asyncio.to_thread(fn, prompt)
    else:
        result = fn(prompt)
        if inspect.isawaitable(result):
            result = await result
    return reply_text(result)
