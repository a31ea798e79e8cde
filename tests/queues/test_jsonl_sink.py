"""The JSONL sink: one fsynced line per case, idempotent across instances, torn-line tolerant."""

from __future__ import annotations

import json
import threading

from guardrail.queues import EscalationSink, JSONLSink
from guardrail.queues.jsonl import read_cases


async def test_appends_one_line_per_case(tmp_path, make_case):
    """Each new case becomes one JSON line that round-trips to the same case."""
    path = tmp_path / "cases.jsonl"
    sink = JSONLSink(path)
    assert isinstance(sink, EscalationSink)
    await sink.send(make_case("a"))
    await sink.send(make_case("b"))
    lines = path.read_text().splitlines()
    assert [json.loads(x)["case_id"] for x in lines] == ["a", "b"]
    assert read_cases(path) == [make_case("a"), make_case("b")]


async def test_idempotent_within_and_across_instances(tmp_path, make_case):
    """The same case id is written once, even by a second sink on the same file."""
    path = tmp_path / "cases.jsonl"
    first, second = JSONLSink(path), JSONLSink(path)
    await first.send(make_case("a"))
    await first.send(make_case("a"))
    await second.send(make_case("a"))
    await second.send(make_case("b"))
    await first.send(make_case("b"))  # first must notice what second appended
    assert [c.case_id for c in read_cases(path)] == ["a", "b"]


async def test_torn_last_line_is_not_glued_to_next_record(tmp_path, make_case):
    """A crash-torn tail is skipped and the next case still lands on its own line."""
    path = tmp_path / "cases.jsonl"
    path.write_text(make_case("a").model_dump_json() + "\n" + '{"case_id": "torn", "que')
    sink = JSONLSink(path)
    await sink.send(make_case("a"))  # already there
    await sink.send(make_case("b"))
    assert [c.case_id for c in read_cases(path)] == ["a", "b"]
    assert path.read_text().endswith(make_case("b").model_dump_json() + "\n")


def test_threads_sharing_a_sink_write_each_case_once(tmp_path, make_case):
    """Concurrent adds of overlapping ids from threads produce no duplicates or torn lines."""
    path = tmp_path / "cases.jsonl"
    sink = JSONLSink(path)

    def worker(n: int) -> None:
        for i in range(30):
            sink.add(make_case(f"c{(n * 7 + i) % 40}"))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [json.loads(line)["case_id"] for line in path.read_text().splitlines()]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 40


def test_file_replaced_is_rescanned(tmp_path, make_case):
    """If the file shrinks (rotated), ids are re-read instead of trusting stale memory."""
    path = tmp_path / "cases.jsonl"
    sink = JSONLSink(path)
    sink.add(make_case("a"))
    sink.add(make_case("b"))
    path.write_text("")
    assert sink.add(make_case("a")) is True
    assert [c.case_id for c in read_cases(path)] == ["a"]
