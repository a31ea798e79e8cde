"""``guardrail proxy``: an OpenAI-compatible endpoint in front of a model server, guarded.

::

    guardrail proxy --upstream http://127.0.0.1:8080/v1 --policy policies/default.yaml \\
        [--host 127.0.0.1] [--port 8001] [--api-key-env GUARDRAIL_API_KEY] \\
        [--upstream-key-env OPENAI_API_KEY | --forward-api-key] [--upstream-timeout 120] \\
        [--db guardrail-review.sqlite3|postgresql://...] \\
        [--audit-log guardrail-audit.jsonl|postgresql://...] [--max-* N ...] \\
        [--max-stream-seconds 300] [--max-stream-chunks 50000] [--max-choices 4] \\
        [--max-reply-bytes 16000000]

Clients call ``POST /v1/chat/completions`` and ``GET /v1/models`` as they would the upstream
(see ``docs/proxy.md``). Escalations land in ``--db``, the review queue ``guardrail serve``
shows; every turn is appended to ``--audit-log``. Keys come from environment variables named
by options, never from the command line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guardrail.cli.commands import COMMANDS
from guardrail.cli.options import add_log_flag, configure_logs
from guardrail.cli.serve import build_checker
from guardrail.cli.serving import (
    add_limit_flags,
    env_value,
    recover_crashed_turns,
    request_limits,
    require_server_extra,
    upstream_limits,
)
from guardrail.exceptions import ConfigError
from guardrail.paths import DEFAULT_AUDIT_LOG, DEFAULT_REVIEW_DB
from guardrail.serving.limits import UpstreamLimits
from guardrail.storage import parse_target

if TYPE_CHECKING:  # pragma: no cover
    from starlette.applications import Starlette

DEFAULT_PORT = 8001


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("proxy", help=COMMANDS["proxy"].summary)
    p.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="the OpenAI-compatible server's base URL, e.g. http://127.0.0.1:8080/v1",
    )
    p.add_argument("--policy", type=Path, required=True, metavar="PATH", help="policy YAML")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT)
    p.add_argument("--api-key-env", metavar="VAR", help="env var holding the key clients must send")
    key = p.add_mutually_exclusive_group()
    key.add_argument(
        "--upstream-key-env", metavar="VAR", help="env var holding the key sent upstream"
    )
    key.add_argument(
        "--forward-api-key",
        action="store_true",
        help="send each client's own bearer key upstream (default: none is sent)",
    )
    p.add_argument(
        "--upstream-timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="per read from the upstream; past it the client gets 504 (default 120)",
    )
    p.add_argument(
        "--db",
        type=parse_target,
        default=Path(DEFAULT_REVIEW_DB),
        metavar="PATH|URL",
        help=f"review database for escalations (default {DEFAULT_REVIEW_DB})",
    )
    p.add_argument(
        "--audit-log",
        type=parse_target,
        default=Path(DEFAULT_AUDIT_LOG),
        metavar="PATH|URL",
        help=f"every turn is appended here (default {DEFAULT_AUDIT_LOG})",
    )
    add_limit_flags(p, "request limits, deadline, lanes and work budget (as for guardrail serve)")
    add_limit_flags(p, "bounds on what the upstream streams", UpstreamLimits)
    add_log_flag(p)
    p.set_defaults(func=_proxy)


def build_proxy_app(args: argparse.Namespace, guard: Any = None) -> Starlette:
    """Everything ``proxy`` does before uvicorn starts: validate options, build the app."""
    require_server_extra("proxy")
    from guardrail.proxy import Upstream, create_proxy_app

    if not args.upstream.startswith(("http://", "https://")):
        raise ConfigError(f"--upstream must be an http(s):// URL, got {args.upstream!r}")
    if args.upstream_timeout <= 0:
        raise ConfigError("--upstream-timeout must be > 0")
    limits = request_limits(args)
    bounds = upstream_limits(args)
    api_key = env_value(args.api_key_env, "--api-key-env") if args.api_key_env else None
    upstream_key = (
        env_value(args.upstream_key_env, "--upstream-key-env") if args.upstream_key_env else None
    )
    if guard is None:
        guard = build_checker(args.policy, db=args.db, audit_log=args.audit_log)
    upstream = Upstream(args.upstream, api_key=upstream_key, timeout_s=args.upstream_timeout)
    app: Starlette = create_proxy_app(
        guard=guard,
        upstream=upstream,
        api_key=api_key,
        forward_api_key=args.forward_api_key,
        limits=limits,
        upstream_limits=bounds,
    )
    return app


def _proxy(args: argparse.Namespace) -> int:
    app = build_proxy_app(args)
    recover_crashed_turns(args)
    configure_logs(args)  # only once it is going to serve: a refused start changes nothing
    import uvicorn

    from guardrail.server.app import tune_serving_process

    tune_serving_process()
    if args.api_key_env is None:
        print(
            f"guardrail: warning: the proxy at {args.host}:{args.port} is open to anyone who "
            "can reach it (set --api-key-env VAR to require a key)",
            file=sys.stderr,
        )
    print(
        f"guardrail: proxy for {args.upstream} at http://{args.host}:{args.port}/v1",
        file=sys.stderr,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return 0
