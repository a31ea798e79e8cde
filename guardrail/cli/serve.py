"""``guardrail serve``: the HTTP API (``POST /v1/check``), metrics and the review web page.

::

    guardrail serve --policy policies/default.yaml --tokens-file reviewers.txt \\
        [--host 127.0.0.1] [--port 8000] [--db guardrail-review.sqlite3|postgresql://...] \\
        [--audit-log guardrail-audit.jsonl|postgresql://...] \\
        [--api-key-env GUARDRAIL_API_KEY] [--tokens-env VAR] [--session-secret-env VAR]

Several replicas (on one host or several) share one review queue, outbox, session table and
audit trail when ``--db`` and ``--audit-log`` name the same ``postgresql://`` database; give
them the same ``--session-secret-env`` value so a reviewer's cookie works on every replica.

Secrets never appear on the command line: the API key, reviewer tokens and session secret are
read from a file or from environment variables *named* by options (a database password belongs
in ``~/.pgpass`` or ``PGPASSWORD``, not in the URL). Reviewer tokens are
``reviewer:token`` entries, one per line (``#`` comments allowed) or comma-separated in an
environment variable. The review UI does not start without at least one token.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guardrail.cli.commands import COMMANDS
from guardrail.cli.options import add_log_flag, configure_logs
from guardrail.cli.serving import (
    add_limit_flags,
    env_value,
    recover_crashed_turns,
    request_limits,
    require_server_extra,
)
from guardrail.exceptions import ConfigError
from guardrail.paths import DEFAULT_AUDIT_LOG, DEFAULT_FALLBACK, DEFAULT_REVIEW_DB, fallback_beside
from guardrail.storage import Target, is_postgres_url, parse_target

if TYPE_CHECKING:  # pragma: no cover
    from fastapi import FastAPI

    from guardrail.server.app import Checker

MIN_TOKEN_LENGTH = 16
MAX_WORKERS = 256
_TOKEN_HELP = (
    "configure reviewers with --tokens-file PATH (lines 'reviewer:token') or --tokens-env VAR"
    " (entries 'reviewer:token' separated by commas); make a token with"
    ' python -c "import secrets; print(secrets.token_urlsafe(24))"'
    " — or pass --no-review-ui to serve only the API"
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help=COMMANDS["serve"].summary)
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument("--policy", type=Path, metavar="PATH", help="policy YAML for the guard")
    p.add_argument(
        "--db",
        type=parse_target,
        default=Path(DEFAULT_REVIEW_DB),
        metavar="PATH|URL",
        help=f"review database: a file or postgresql://... (default {DEFAULT_REVIEW_DB})",
    )
    p.add_argument(
        "--audit-log",
        type=parse_target,
        default=Path(DEFAULT_AUDIT_LOG),
        metavar="PATH|URL",
        help="turns and resolutions are appended here: a file or postgresql://... "
        f"(default {DEFAULT_AUDIT_LOG})",
    )
    p.add_argument("--api-key-env", metavar="VAR", help="env var holding the API key for /v1/*")
    p.add_argument("--tokens-file", type=Path, metavar="PATH", help="reviewer tokens file")
    p.add_argument("--tokens-env", metavar="VAR", help="env var holding reviewer tokens")
    p.add_argument(
        "--session-secret-env",
        metavar="VAR",
        help="env var with the cookie-signing secret (default: random, sessions end on restart)",
    )
    p.add_argument("--secure-cookies", action="store_true", help="HTTPS-only session cookie")
    p.add_argument(
        "--forwarded-allow-ips",
        metavar="IPS",
        default=None,
        help="comma-separated addresses of reverse proxies whose X-Forwarded-For/-Proto are"
        " trusted (default: none; the socket peer is the client address)",
    )
    p.add_argument(
        "--public-metrics",
        action="store_true",
        help="serve /metrics without the API key (default: /metrics needs it when one is set)",
    )
    p.add_argument("--no-review-ui", action="store_true", help="serve only the API and metrics")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="server processes sharing the review database and the audit log (default 1)",
    )
    p.add_argument(
        "--otlp-endpoint",
        metavar="URL",
        help="export OpenTelemetry spans and metrics over OTLP/HTTP, e.g. http://127.0.0.1:4318 "
        "(the otel extra; docs/telemetry.md)",
    )
    add_limit_flags(p, "request limits (see the HTTP service guide)")
    add_log_flag(p)
    p.set_defaults(func=_serve)


def parse_tokens(text: str, source: str) -> dict[str, str]:
    """``reviewer:token`` entries -> ``{token: reviewer}``; errors name the entry, not the
    token, so a secret never ends up in a log."""
    tokens: dict[str, str] = {}
    entries = [e for line in text.splitlines() for e in line.split(",")]
    for n, raw in enumerate(entries, start=1):
        entry = raw.strip()
        if not entry or entry.startswith("#"):
            continue
        name, sep, token = entry.partition(":")
        name, token = name.strip(), token.strip()
        if not sep or not name or not token:
            raise ConfigError(f"{source}: entry {n} is not 'reviewer:token'")
        if len(token) < MIN_TOKEN_LENGTH:
            raise ConfigError(
                f"{source}: token of reviewer {name!r} is shorter than"
                f" {MIN_TOKEN_LENGTH} characters"
            )
        if token in tokens:
            raise ConfigError(f"{source}: reviewer {name!r} reuses another reviewer's token")
        tokens[token] = name
    return tokens


def load_tokens(args: argparse.Namespace) -> dict[str, str]:
    """Reviewer tokens from ``--tokens-file`` and/or ``--tokens-env``."""
    tokens: dict[str, str] = {}
    if args.tokens_file is not None:
        try:
            text = args.tokens_file.read_text(encoding="utf-8")
        except OSError as exc:
            msg = f"cannot read tokens file {args.tokens_file}: {exc.strerror}"
            raise ConfigError(msg) from exc
        tokens.update(parse_tokens(text, str(args.tokens_file)))
    if args.tokens_env:
        tokens.update(
            parse_tokens(env_value(args.tokens_env, "--tokens-env"), f"${args.tokens_env}")
        )
    return tokens


def fallback_for(db: Target) -> Path:
    """Where escalations go when the review database fails: a JSON Lines file beside an SQLite
    database, or ``guardrail-escalations.jsonl`` in the working directory for PostgreSQL."""
    return Path(DEFAULT_FALLBACK) if is_postgres_url(db) else fallback_beside(db)


def build_checker(
    policy_path: Path | None,
    *,
    db: Target = Path(DEFAULT_REVIEW_DB),
    audit_log: Target = Path(DEFAULT_AUDIT_LOG),
) -> Checker:
    """The guard that answers ``POST /v1/check`` (imported lazily: ``guardrail.guard.Guard``)."""
    if policy_path is None:
        raise ConfigError("pass --policy PATH (a policy YAML file) to build the guard")
    try:
        guard_module = importlib.import_module("guardrail.guard")
    except ImportError as exc:
        raise ConfigError(f"the guard is not available in this installation: {exc}") from exc
    # The guard's escalations must land in the same database the review page reads.
    checker: Checker = guard_module.Guard.from_yaml(
        policy_path,
        review_db=db,
        audit_log=audit_log,
        fallback_log=fallback_for(db),
    )
    return checker


def _server_module() -> Any:
    require_server_extra("serve")
    return importlib.import_module("guardrail.server")


def build_app(args: argparse.Namespace, checker: Checker | None = None) -> FastAPI:
    """Everything ``serve`` does before uvicorn starts: validate options, then ``create_app``."""
    server = _server_module()
    limits = request_limits(args)
    providers = None
    if getattr(args, "otlp_endpoint", None):
        from guardrail.telemetry import configure_otlp

        providers = configure_otlp(endpoint=args.otlp_endpoint)
    review_ui = not args.no_review_ui
    tokens = load_tokens(args) if review_ui else {}
    if review_ui and not tokens:
        raise ConfigError(f"the review UI needs at least one reviewer token: {_TOKEN_HELP}")
    api_key = env_value(args.api_key_env, "--api-key-env") if args.api_key_env else None
    secret = (
        env_value(args.session_secret_env, "--session-secret-env")
        if args.session_secret_env
        else None
    )
    from guardrail.audit.review import record_resolutions
    from guardrail.audit.trail import open_audit_log
    from guardrail.queues.review_queue import ReviewQueue

    audit_log = args.audit_log
    queue = ReviewQueue(args.db, on_resolve=record_resolutions(open_audit_log(audit_log)))
    app: FastAPI = server.create_app(
        checker=checker
        if checker is not None
        else build_checker(args.policy, db=args.db, audit_log=audit_log),
        queue=queue,
        api_key=api_key,
        reviewer_tokens=tokens,
        session_secret=secret,
        secure_cookies=args.secure_cookies,
        review_ui=review_ui,
        limits=limits,
        metrics_public=bool(getattr(args, "public_metrics", False)),
    )
    if providers is not None:
        from guardrail.telemetry.otlp import shutdown_with

        shutdown_with(app, providers)
    return app


#: Where ``--workers`` hands the command line to its worker processes (no secrets: those are
#: read from the environment variables the options name, in each worker).
ARGS_ENV = "GUARDRAIL_SERVE_ARGV"


def app_from_env() -> FastAPI:
    """The app factory each ``--workers`` process runs (``uvicorn ... --factory``)."""
    import json

    argv = json.loads(os.environ[ARGS_ENV])
    from guardrail.cli import build_parser

    args = build_parser(argv).parse_args(argv)
    app = build_app(args)
    configure_logs(args)
    from guardrail.server.app import tune_serving_process

    tune_serving_process()
    return app


def _serve(args: argparse.Namespace) -> int:
    if not 1 <= args.workers <= MAX_WORKERS:
        raise ConfigError(f"--workers must be between 1 and {MAX_WORKERS}, got {args.workers}")
    if args.workers > 1 and not args.no_review_ui and not args.session_secret_env:
        raise ConfigError(
            "--workers > 1 with the review UI needs --session-secret-env VAR: every worker must "
            "sign session cookies with the same secret"
        )
    app = build_app(args)  # validates everything (and fails early) before forking workers
    recover_crashed_turns(args)
    configure_logs(args)  # only once it is going to serve: a refused start changes nothing
    import uvicorn

    from guardrail.server.app import tune_serving_process

    tune_serving_process()

    if args.api_key_env is None:
        print(
            "guardrail: warning: POST /v1/check is open to anyone who can reach"
            f" {args.host}:{args.port} (set --api-key-env VAR to require a key)",
            file=sys.stderr,
        )
    if not args.no_review_ui:
        print(f"guardrail: review page at http://{args.host}:{args.port}/review", file=sys.stderr)
    proxy = uvicorn_proxy_options(args)
    if args.workers == 1:
        uvicorn.run(app, host=args.host, port=args.port, log_level="info", **proxy)
        return 0
    import json

    os.environ[ARGS_ENV] = json.dumps(args.argv)
    uvicorn.run(
        "guardrail.cli.serve:app_from_env",
        factory=True,
        workers=args.workers,
        host=args.host,
        port=args.port,
        log_level="info",
        **proxy,
    )
    return 0


def uvicorn_proxy_options(args: argparse.Namespace) -> dict[str, Any]:
    """uvicorn trusts ``X-Forwarded-For`` from 127.0.0.1 by default, which would let any local
    client (or a proxy passing the header through) choose the address its failed logins are
    counted under; forwarded headers are read only from ``--forwarded-allow-ips``."""
    if not args.forwarded_allow_ips:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": args.forwarded_allow_ips}
