"""What ``guardrail serve`` and ``guardrail proxy`` share on the command line.

The request-limit flags are declared once here (from :class:`~guardrail.serving.limits.
RequestLimits`, which needs no web framework) and both commands apply every one of them through
the serving core; the proxy's bounds on what its upstream streams
(:class:`~guardrail.serving.limits.UpstreamLimits`) are declared here the same way.
``--help`` works without the ``server`` extra; running either command without
it ends in one line naming the install command (exit 2).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import TypeVar

from guardrail.exceptions import ConfigError
from guardrail.serving.limits import RequestLimits, UpstreamLimits
from guardrail.validation import Settings

__all__ = [
    "SERVER_EXTRA_HINT",
    "add_limit_flags",
    "env_value",
    "recover_crashed_turns",
    "request_limits",
    "require_server_extra",
    "upstream_limits",
]

_S = TypeVar("_S", bound=Settings)

#: How to install what serving needs.
SERVER_EXTRA_HINT = "pip install 'guardrail-rag[server]' (in a clone: pip install -e '.[server]')"
#: The modules the server extra provides, checked before a serving command starts.
_SERVER_MODULES = ("fastapi", "starlette", "uvicorn", "jinja2", "prometheus_client")


def require_server_extra(command: str) -> None:
    """``ConfigError`` (one line, exit 2) when a module of the server extra is missing."""
    for name in _SERVER_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            raise ConfigError(
                f"guardrail {command} needs the server extra ({name} is missing): "
                f"{SERVER_EXTRA_HINT}"
            ) from None


def _limit_flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_limit_flags(
    p: argparse.ArgumentParser, title: str, limits: type[Settings] = RequestLimits
) -> None:
    """The ``--max-*`` flags, one per field of ``limits`` (:class:`RequestLimits`, or
    :class:`UpstreamLimits` for the proxy's upstream)."""
    group = p.add_argument_group(title)
    for name, field in limits.model_fields.items():
        group.add_argument(
            _limit_flag(name),
            type=int,
            default=None,
            metavar="N",
            help=f"{field.description or name.replace('_', ' ')} (default {field.default})",
        )


def _limits_from(args: argparse.Namespace, limits: type[_S]) -> _S:
    """``limits`` from the flags (validated, naming the flag)."""
    from pydantic import ValidationError

    from guardrail.validation import error_line

    fields = limits.model_fields
    given = {n: getattr(args, n) for n in fields if getattr(args, n, None) is not None}
    try:
        return limits.model_validate(given)
    except ValidationError as exc:
        raise ConfigError(error_line(exc, {n: _limit_flag(n) for n in fields})) from None


def request_limits(args: argparse.Namespace) -> RequestLimits:
    """``RequestLimits`` from the flags (validated, naming the flag)."""
    return _limits_from(args, RequestLimits)


def upstream_limits(args: argparse.Namespace) -> UpstreamLimits:
    """``UpstreamLimits`` from the proxy's flags (validated, naming the flag)."""
    return _limits_from(args, UpstreamLimits)


def env_value(var: str, what: str) -> str:
    """The value of environment variable ``var`` (named by option ``what``); never empty."""
    value = os.environ.get(var, "")
    if not value.strip():
        raise ConfigError(f"{what}: environment variable {var} is not set or empty")
    return value.strip()


def recover_crashed_turns(args: argparse.Namespace) -> None:
    """Once, before serving: turn records a crash left out (see audit/recover.py)."""
    from guardrail.audit.recover import recover_turns
    from guardrail.audit.trail import open_audit_log
    from guardrail.queues.review_queue import ReviewQueue

    log = open_audit_log(args.audit_log)
    try:
        recovered = recover_turns(log, ReviewQueue(args.db))
    finally:
        log.close()
    if recovered:
        print(
            f"guardrail: recovered {len(recovered)} turn record(s) a crash left out of "
            f"{args.audit_log}",
            file=sys.stderr,
        )
