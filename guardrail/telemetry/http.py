"""W3C trace context in, for the HTTP service: an ASGI middleware.

A client that sends ``traceparent`` (and ``tracestate``) with ``POST /v1/check`` sees the
guard's ``guardrail.turn`` span as a child of its own span. The headers are read with the
globally configured propagator (W3C trace context and baggage by default). When a server span
is already current — an OpenTelemetry ASGI/FastAPI instrumentation runs outside this
middleware — it is left as the parent. Without ``opentelemetry-api`` installed the middleware
passes requests through untouched.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["TraceContextMiddleware"]

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]
_HEADERS = (b"traceparent", b"tracestate", b"baggage")


class TraceContextMiddleware:
    """Make the caller's trace context current for the request (pure ASGI, no Starlette)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._api: Any = None  # (propagate, context, trace) once imported; False: not installed

    def _otel(self) -> Any:
        if self._api is None:
            try:
                from opentelemetry import context, propagate, trace
            except ImportError:
                self._api = False
            else:
                self._api = (propagate, context, trace)
        return self._api

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        carrier = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in scope.get("headers", ())
            if name in _HEADERS
        }
        api: Any = self._otel() if carrier else False
        if not api:
            await self.app(scope, receive, send)
            return
        propagate, context, trace = api
        if trace.get_current_span().get_span_context().is_valid:
            await self.app(scope, receive, send)
            return
        token = context.attach(propagate.extract(carrier))
        try:
            await self.app(scope, receive, send)
        finally:
            context.detach(token)
