"""The system under test: an answer function named ``module:function`` (or ``file.py:function``).

It is the same kind of function :meth:`guardrail.Guard.wrap` takes: called with the question
(here the Table 2 prompt) and returning the answer in any shape
:func:`~guardrail.actions.answers.normalize_answer` accepts — ``(answer, contexts)``, a dict, an
object with ``.answer`` — or a plain string. Sync or async.
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
from guardrail.exceptions import ConfigError


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
    if inspect.iscoroutinefunction(fn):
        result = await fn(prompt)
    elif in_thread:
        result = await asyncio.to_thread(fn, prompt)
    else:
        result = fn(prompt)
        if inspect.isawaitable(result):
            result = await result
    return reply_text(result)
