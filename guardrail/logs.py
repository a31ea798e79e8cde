"""Operational logs: what the guard, the judges and ``eval`` report while they run.

Every guardrail module logs through :func:`get_logger`: a structlog logger whose events carry
key-value fields (``judge``, ``stage``, ``attempt``, ...) plus the ids bound for the current
request or turn (:func:`bound`, kept in :mod:`contextvars`, so concurrent turns never mix them
up), and which hands each event to the standard :mod:`logging` logger of the same name. So
nothing is printed unless someone configures logging, and an application that already has
handlers sees guardrail's events there, by level and logger name like any library's.

To have guardrail render its own logs, call :func:`configure` once at start-up::

    from guardrail.logs import configure
    configure("json")       # one JSON object a line, for log collectors
    configure("console")    # aligned, coloured when the stream is a terminal

The audit trail is not a log: it is written by :mod:`guardrail.audit`, whatever is configured
here.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from typing import IO, Any, Literal

import structlog

Renderer = Literal["json", "console"]
ROOT = "guardrail"

#: Field set on the handler that :func:`configure` installs, to find and replace it.
_MARK = "_guardrail_handler"
_CHAIN: list[structlog.typing.Processor] = [
    structlog.stdlib.filter_by_level,  # a disabled level costs one check, nothing more
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.render_to_log_kwargs,
]


# A library's top logger gets a NullHandler: unconfigured, nothing reaches logging's last resort.
logging.getLogger(ROOT).addHandler(logging.NullHandler())


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    """The logger for module ``name``: its events, with the bound ids, go to
    ``logging.getLogger(name)``. Independent of any global ``structlog.configure``."""
    logger: structlog.stdlib.BoundLogger = structlog.wrap_logger(
        logging.getLogger(name),
        processors=_CHAIN,
        wrapper_class=structlog.stdlib.BoundLogger,
        context_class=dict,
    )
    return logger


@contextlib.contextmanager
def bound(**ids: Any) -> Iterator[None]:
    """Add ``ids`` (e.g. ``request_id=...``, ``turn_id=...``) to every event logged inside the
    block, in this task or thread only."""
    with structlog.contextvars.bound_contextvars(**ids):
        yield


def configure(
    renderer: Renderer | None = None,
    *,
    level: int | str | None = None,
    stream: IO[str] | None = None,
) -> logging.Handler:
    """Render guardrail's logs (and any other ``guardrail.*`` stdlib logging) to ``stream``.

    ``renderer`` defaults to ``$GUARDRAIL_LOG_FORMAT``, else ``console`` on a terminal and
    ``json`` otherwise; ``level`` to ``$GUARDRAIL_LOG_LEVEL``, else ``INFO``; ``stream`` to
    standard error. Calling it again replaces the handler it installed (configure once; no
    duplicate lines). Returns the handler.
    """
    stream = stream or sys.stderr
    chosen = (
        renderer
        or os.environ.get("GUARDRAIL_LOG_FORMAT")
        or ("console" if stream.isatty() else "json")
    )
    if chosen not in ("json", "console"):
        raise ValueError(f"log renderer must be 'json' or 'console', got {chosen!r}")
    final: structlog.typing.Processor = (
        structlog.processors.JSONRenderer(sort_keys=True)
        if chosen == "json"
        else structlog.dev.ConsoleRenderer(colors=stream.isatty())
    )
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[
                structlog.stdlib.add_log_level,
                structlog.stdlib.add_logger_name,
                structlog.stdlib.ExtraAdder(),
                structlog.processors.TimeStamper(fmt="iso", utc=True),
            ],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, final],
        )
    )
    setattr(handler, _MARK, True)
    root = logging.getLogger(ROOT)
    for old in [h for h in root.handlers if getattr(h, _MARK, False)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level or os.environ.get("GUARDRAIL_LOG_LEVEL", "INFO").upper())
    root.propagate = False
    return handler
