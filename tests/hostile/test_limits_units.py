"""Units of the hardening: the shared login throttle, the body pre-check, the YAML limits."""

from __future__ import annotations

import json

import pytest
import yaml

from guardrail.exceptions import ConfigError
from guardrail.safe_load import YamlLimitError, load_yaml_document, loads_json
from guardrail.sanitize import clean_json, require_clean
from guardrail.server.throttle import SharedLoginThrottle
from guardrail.serving.body import BodyError, JsonShape, parse_json, precheck_json
from guardrail.serving.limits import RequestLimits
from guardrail.serving.scheduler import ANSWER_CHAR_WORK, estimated_claims, estimated_work


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_shared_throttle_counts_across_instances_and_ages_out(tmp_path):
    clock = Clock()
    a = SharedLoginThrottle(tmp_path / "r.sqlite3", 2, 60.0, clock=clock)
    b = SharedLoginThrottle(tmp_path / "r.sqlite3", 2, 60.0, clock=clock)  # another worker
    assert a.attempt("10.0.0.1") is None and b.attempt("10.0.0.1") is None
    assert a.attempt("10.0.0.1") == 60 and b.retry_after("10.0.0.1") == 60
    assert b.attempt("10.0.0.2") is None  # another address has its own count
    clock.now += 61
    assert a.attempt("10.0.0.1") is None
    a.succeeded("10.0.0.1")
    assert b.retry_after("10.0.0.1") is None


def test_shared_throttle_keeps_a_bounded_table(tmp_path):
    throttle = SharedLoginThrottle(tmp_path / "r.sqlite3", 1, 60.0, max_clients=3, clock=Clock())
    for n in range(10):
        throttle.attempt(f"10.0.0.{n}")
    with throttle._db.read() as conn:
        assert conn.execute("SELECT COUNT(*) AS n FROM login_failures").fetchone()["n"] <= 3


SHAPE = JsonShape(max_strings=10, max_values=6, max_containers=2, what="test")


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b'{"a": [' + b",".join([b"1"] * 10) + b"]}", 413),
        (b'{"a": [' + b",".join([b'"x"'] * 20) + b"]}", 413),
        (b'{"a": [[[]]]}', 422),
    ],
)
def test_precheck_refuses_more_parts_than_the_shape(body, status):
    with pytest.raises(BodyError) as info:
        precheck_json(body, SHAPE)
    assert info.value.status == status


def test_precheck_ignores_commas_and_brackets_inside_strings():
    text = 'a, b, [c], {d}, "e, f" \\ ' * 1000
    body = json.dumps({"question": text, "answer": text, "contexts": [text]}).encode()
    precheck_json(body, SHAPE)
    assert parse_json(body)["contexts"] == [text]


@pytest.mark.parametrize("body", [b"[" * 10_000 + b"]" * 10_000, b"9" * 10_000, b"\xff{}"])
def test_parse_json_failures_are_one_body_error(body):
    with pytest.raises(BodyError) as info:
        parse_json(body)
    assert info.value.status == 422 and "\n" not in info.value.detail


def test_clean_json_replaces_in_keys_and_values_and_counts():
    data, n = clean_json({"k\ud800": ["a\x00", {"b": "\uffff"}], "n": 1})
    assert data == {"k\ufffd": ["a\ufffd", {"b": "\ufffd"}], "n": 1} and n == 3


def test_require_clean_names_the_position():
    with pytest.raises(ConfigError, match="undecodable byte at character 3"):
        require_clean("caf\udce9", "--answer")
    assert require_clean("café", "--answer") == "café"


def test_estimated_work_is_claims_times_context_characters_plus_the_answer():
    answer = "One. Two. Three."
    expected = 3 * 150 + ANSWER_CHAR_WORK * len(answer)
    assert estimated_work(answer, ["x" * 100, "y" * 50]) == expected
    assert estimated_work("", []) == 1


def test_a_long_answer_without_punctuation_is_not_small_work():
    """One 100,000-character "sentence" is one claim, but scoring a claim that long takes
    seconds whatever the context: its length counts, so it is not small work."""
    limits = RequestLimits()
    assert estimated_work("word " * 20_000, ["The library is open."]) > limits.small_work


#: 200 claims in one "sentence": the offline decomposer splits it at every "; ".
GAMED = "; ".join(f"The office number {i} is open on day {i}" for i in range(200)) + "."


def test_a_200_clause_sentence_is_not_small_work():
    """One sentence of 200 clauses joined by "; " is 200 factoids to verify: against a
    100 KB context it is neither small work nor within the default work budget."""
    limits = RequestLimits()
    work = estimated_work(GAMED, ["x" * 100_000])
    assert work > limits.small_work and work > limits.max_work
    assert estimated_work(GAMED, ["x" * 100]) > estimated_work("One claim.", ["x" * 100]) * 100


def test_the_estimate_counts_what_the_offline_decomposer_produces():
    """Clauses the decomposer splits off count (up to its depth and total caps); a list of
    sentences counts one each; the count never exceeds the decomposer's factoid cap."""
    from guardrail.judges.local.decompose import MAX_FACTOIDS

    coordinated = ", and ".join(f"the office {i} opens at {i}" for i in range(50)) + "."
    assert estimated_claims(coordinated) == 10  # one clause, split at most ten ways
    assert estimated_claims("One claim. Another; a third.") == 3
    many = " ".join(f"Claim {i} holds." for i in range(1_000))
    assert estimated_claims(many) == MAX_FACTOIDS
    assert estimated_claims(GAMED * 5) == MAX_FACTOIDS


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: " + "[" * 200 + "]" * 200, "nested deeper than 100 levels"),
        ("a:\n" + "".join("  " * i + "- \n" for i in range(1, 150)), "nested deeper"),
        ("a: &a [*a]", "recursive alias"),
    ],
)
def test_yaml_limits(text, problem):
    with pytest.raises(yaml.YAMLError) as info:
        load_yaml_document(text)
    assert isinstance(info.value, YamlLimitError) or problem == "recursive alias"
    assert problem in str(getattr(info.value, "problem", info.value))


def test_yaml_within_limits_loads_with_its_nodes():
    node, data = load_yaml_document("a: &x [1, 2]\nb: *x\n")
    assert data == {"a": [1, 2], "b": [1, 2]} and node is not None


def test_loads_json_reports_deep_nesting_as_a_decode_error():
    with pytest.raises(json.JSONDecodeError, match="nested too deeply"):
        loads_json("[" * 100_000 + "]" * 100_000)
