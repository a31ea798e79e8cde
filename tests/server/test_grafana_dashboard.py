"""The Grafana dashboard in deploy/grafana queries only metrics and labels the service exports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from guardrail.server.metrics import Metrics

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "guardrail.json"
#: Labels Prometheus adds to every scraped series.
TARGET_LABELS = {"job", "instance"}
_METRIC = re.compile(r"\bguardrail_[a-z_]+\b")
_SELECTOR = re.compile(r"\b(guardrail_[a-z_]+)\{([^}]*)\}")
_BY = re.compile(r"\bby \(([^)]*)\)")


def _exported() -> dict[str, set[str]]:
    """Every sample name the service's registry exports, with its label names."""
    m = Metrics()
    m.requests.labels("POST", "/v1/check", "200").inc()
    m.checks.observe(0.2)
    m.decisions.labels("escalate", "healthcare").inc()
    m.judge_latency.labels("verify").observe(0.1)
    m.tokens.labels("prompt").inc(10)
    m.judge_failures.labels("verify").inc()
    m.stopped.labels("deadline").inc()
    m.resolutions.labels("clinical-review", "approved").inc()
    out: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(m.render().decode()):
        for sample in family.samples:
            out.setdefault(sample.name, set()).update(sample.labels)
    return out


def _queries(dashboard: dict) -> list[str]:
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    exprs += [v["definition"] for v in dashboard["templating"]["list"] if "definition" in v]
    return exprs


def problems(expr: str, exported: dict[str, set[str]]) -> list[str]:
    """What in ``expr`` names a metric or label the service does not export."""
    out = [f"unknown metric {name}" for name in _METRIC.findall(expr) if name not in exported]
    for name, body in _SELECTOR.findall(expr):
        for label in re.findall(r"([a-zA-Z_]+)\s*[!=]~?", body):
            if label not in exported.get(name, set()) | TARGET_LABELS:
                out.append(f"{name} has no label {label}")
    used = set().union(*(exported.get(n, set()) for n in _METRIC.findall(expr)))
    for group in _BY.findall(expr):
        for label in (x.strip() for x in group.split(",")):
            if label not in used | TARGET_LABELS:
                out.append(f"no metric of the query has label {label}")
    return out


@pytest.fixture(scope="module")
def dashboard() -> dict:
    return json.loads(DASHBOARD.read_text(encoding="utf-8"))


def test_every_query_names_exported_metrics_and_labels(dashboard: dict) -> None:
    """Each panel query and variable names only exported metrics and their labels."""
    exported = _exported()
    found = {expr: problems(expr, exported) for expr in _queries(dashboard)}
    assert {e: p for e, p in found.items() if p} == {}
    assert len(found) >= 10


def test_every_metric_family_has_a_panel(dashboard: dict) -> None:
    """No exported metric is left off the dashboard."""
    families = {f.name for f in Metrics().registry.collect()}
    used = " ".join(_queries(dashboard))
    assert {
        f for f in families if not re.search(rf"\b{f}(_total|_bucket|_sum|_count)?\b", used)
    } == set()


def test_the_check_catches_typos() -> None:
    """A misspelt metric or label is reported (the check above can fail)."""
    exported = _exported()
    assert problems("rate(guardrail_decision_total[5m])", exported) == [
        "unknown metric guardrail_decision_total"
    ]
    assert problems('guardrail_decisions_total{queue="x"}', exported) == [
        "guardrail_decisions_total has no label queue"
    ]
    assert problems("sum by (stage) (guardrail_decisions_total)", exported) == [
        "no metric of the query has label stage"
    ]


def test_dashboard_is_importable_json(dashboard: dict) -> None:
    """Unique panel ids, a Prometheus datasource variable, every target on it."""
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    assert any(v["type"] == "datasource" for v in dashboard["templating"]["list"])
    for p in dashboard["panels"]:
        assert p["datasource"]["uid"] == "${datasource}" and p["targets"]
