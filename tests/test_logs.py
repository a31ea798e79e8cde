"""guardrail.logs: silent until configured, then one rendered line per event, with the turn's
id bound; the judges log each failed call, the guard each turn, eval each failed row."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from guardrail.exceptions import JudgeServerError
from guardrail.guard import Guard
from guardrail.judges import JudgeRequest, RetryPolicy, ScriptedJudge
from guardrail.logs import ROOT, bound, configure, get_logger
from guardrail.policy import parse_policy
from guardrail.scoring import MetaRAG

POLICY = "name: t\ntopics: [{name: general, threshold: 0.5}]\n"


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    """guardrail's logs as JSON lines in a buffer; the logging setup is restored afterwards."""
    root = logging.getLogger(ROOT)
    saved = (list(root.handlers), root.level, root.propagate)
    stream = io.StringIO()
    configure("json", level="INFO", stream=stream)
    yield stream
    root.handlers[:], root.level, root.propagate = saved


def events(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def down(request: JudgeRequest) -> str:
    raise JudgeServerError("upstream 503", status_code=503)


def test_each_failed_judge_call_is_one_line_with_the_turn_id(lines: io.StringIO):
    guard = Guard(parse_policy(POLICY), judge=ScriptedJudge(down))
    guard.scorer = MetaRAG(ScriptedJudge(down), retry=RetryPolicy(max_attempts=2, backoff_base_s=0))
    result = guard.check("Q?", "The sky is green.", ["The sky is blue."])
    guard.close()
    logged = events(lines)
    failures = [e for e in logged if e["event"] == "judge call failed"]
    assert [(e["attempt"], e["retry"], e["level"]) for e in failures] == [
        (1, True, "info"),
        (2, False, "warning"),
    ]
    assert {e["turn_id"] for e in logged} == {result.audit_id}
    (turn,) = [e for e in logged if e["event"] == "turn decided"]
    assert turn["action"] == "pass" and turn["level"] == "warning" and "503" in str(turn["error"])


def test_bound_ids_stay_in_their_block_and_configure_replaces_its_handler(lines: io.StringIO):
    log = get_logger("guardrail.test")
    with bound(request_id="r-1"):
        log.info("inside")
    log.info("outside")
    assert [e.get("request_id") for e in events(lines)] == ["r-1", None]
    configure("console", stream=io.StringIO())
    configure("json", stream=lines)
    assert sum(hasattr(h, "_guardrail_handler") for h in logging.getLogger(ROOT).handlers) == 1


def test_unconfigured_logs_print_nothing(capsys: pytest.CaptureFixture[str]):
    get_logger("guardrail.test").warning("nobody listens")
    assert capsys.readouterr().err == ""


def test_a_bad_renderer_is_refused():
    with pytest.raises(ValueError, match="'json' or 'console'"):
        configure("xml")  # type: ignore[arg-type]


async def test_eval_logs_each_failed_row(lines: io.StringIO):
    from guardrail.evaluation.datasets import EvalRow
    from guardrail.evaluation.runner import run_rows

    from .evaluation.fakes import FakeScorer

    rows = [
        EvalRow(id=f"r{i}", task="qa", question="q", context="c", answer=f"a{i}", label=0)
        for i in range(3)
    ]
    result = await run_rows(rows, FakeScorer(fail={"a1"}))
    assert [result.outcomes[f"r{i}"].ok for i in range(3)] == [True, False, True]
    (failed,) = [e for e in events(lines) if e["event"] == "row failed"]
    assert failed["row"] == "r1" and "judge unavailable" in str(failed["error"])
