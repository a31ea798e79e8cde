"""Prometheus metrics for one app, in the app's own ``CollectorRegistry``.

A per-app registry (not prometheus_client's global one) lets several apps live in one process
— tests, multi-tenant hosts — without "Duplicated timeseries" errors or shared counts.
"""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)

from guardrail.models import GuardResult

__all__ = ["Metrics"]

_LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    """The service's counters and histograms."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "guardrail_http_requests",
            "HTTP requests served, by route template and status code.",
            ["method", "route", "status"],
            registry=r,
        )
        self.checks = Histogram(
            "guardrail_check_seconds",
            "Wall time of POST /v1/check, guard included.",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.decisions = Counter(
            "guardrail_decisions",
            "Guard decisions, by strongest action and the topic whose rule applied.",
            ["action", "topic"],
            registry=r,
        )
        self.judge_latency = Histogram(
            "guardrail_judge_call_seconds",
            "Latency of each judge call reported in the score report, by scorer stage.",
            ["stage"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.tokens = Counter(
            "guardrail_judge_tokens",
            "Tokens used by judge calls, by kind (prompt or completion).",
            ["kind"],
            registry=r,
        )
        self.judge_failures = Counter(
            "guardrail_judge_failed_calls",
            "Judge calls that failed for good, by stage.",
            ["stage"],
            registry=r,
        )
        self.stopped = Counter(
            "guardrail_checks_stopped",
            "Checks whose scoring was stopped, by reason (deadline or abandoned).",
            ["reason"],
            registry=r,
        )
        self.resolutions = Counter(
            "guardrail_review_resolutions",
            "Cases resolved in the review UI, by queue and outcome.",
            ["queue", "outcome"],
            registry=r,
        )

    def observe_result(self, result: GuardResult, seconds: float) -> None:
        """Record one checked turn."""
        self.checks.observe(seconds)
        self.decisions.labels(result.decision.action, result.decision.topic).inc()
        if result.report is None:
            return
        prompt = completion = 0
        for call in result.report.calls:
            self.judge_latency.labels(call.stage).observe(call.latency_s)
            prompt += call.prompt_tokens
            completion += call.completion_tokens
            if not call.ok:
                self.judge_failures.labels(call.stage).inc()
        self.tokens.labels("prompt").inc(prompt)
        self.tokens.labels("completion").inc(completion)

    def render(self) -> bytes:
        return generate_latest(self.registry)
