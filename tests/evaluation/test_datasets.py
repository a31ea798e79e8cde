"""Dataset loading: the row schema, clear errors naming the line, grouped splits."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from guardrail.evaluation.datasets import fold_of, load_rows, parse_row, split_by_group
from guardrail.exceptions import ConfigError

TINY = Path(__file__).resolve().parents[1] / "data" / "eval_tiny.jsonl"
GOOD = {
    "id": "r1",
    "task": "qa",
    "question": "q",
    "context": "p1\n\np2",
    "answer": "an answer",
    "label": 1,
    "spans": [[0, 2]],
}


def write(tmp_path: Path, *objs: object, raw: str = "") -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in objs) + raw, encoding="utf-8")
    return path


def test_loads_the_fixture_rows():
    """The fixture parses: spans become tuples, passages split on blank lines."""
    rows = load_rows(TINY)
    assert len(rows) == 6
    assert rows[1].spans == ((16, 23),)
    assert rows[1].answer[16:23] == "30 days"
    assert rows[0].contexts == ["The free trial lasts 14 days.", "Support is by chat only."]


def test_task_filter_limit_and_shuffle():
    """--task keeps one task, --shuffle is deterministic, --limit cuts after shuffling."""
    assert {r.task for r in load_rows(TINY, task="summary")} == {"summary"}
    a = [r.id for r in load_rows(TINY, shuffle_seed=3, limit=4)]
    b = [r.id for r in load_rows(TINY, shuffle_seed=3, limit=4)]
    assert a == b and len(a) == 4
    with pytest.raises(ConfigError, match="no rows with task"):
        load_rows(TINY, task="dialogue")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"answer": None}, "missing field(s) 'answer'"),
        ({"label": 2}, "'label' must be 0 or 1"),
        ({"label": True}, "'label' must be int"),
        ({"question": 5}, "'question' must be str"),
        ({"spans": [[0, 99]]}, "outside the answer"),
        ({"spans": [[3, 3]]}, "outside the answer (length 9) or empty"),
        ({"spans": [["a", 2]]}, "bad item"),
        ({"spans": "0-2"}, "must be a list"),
        ({"meta": []}, "'meta' must be an object"),
        ({"target": 3}, "'target' must be a string"),
        ({"id": ""}, "'id' is empty"),
    ],
)
def test_bad_rows_name_the_file_line_and_field(tmp_path, change, message):
    """Each schema violation is a ConfigError starting with path:line."""
    bad = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    path = write(tmp_path, GOOD | {"id": "r0"}, bad)
    with pytest.raises(ConfigError) as info:
        load_rows(path)
    assert str(info.value).startswith(f"{path}:2: ")
    assert message in str(info.value)


def test_invalid_json_and_duplicate_ids(tmp_path):
    """Broken JSON and repeated ids are errors on their line, not skipped rows."""
    path = write(tmp_path, GOOD, raw='{"id": oops}\n')
    with pytest.raises(ConfigError, match=r":2: not valid JSON"):
        load_rows(path)
    path = write(tmp_path, GOOD, GOOD)
    with pytest.raises(ConfigError, match=r":2: duplicate id 'r1' \(first on line 1\)"):
        load_rows(path)


def test_missing_file_and_non_object(tmp_path):
    """An unreadable path and a JSON array row are clear errors."""
    with pytest.raises(ConfigError, match="cannot read dataset"):
        load_rows(tmp_path / "nope.jsonl")
    with pytest.raises(ConfigError, match="expected a JSON object"):
        parse_row([1, 2])


def test_group_prefers_source_id_then_pair_index_then_id_prefix():
    """Answers about the same document share a group, whatever the dataset marks it with."""
    base = {**GOOD, "source": "s"}
    assert parse_row(base | {"meta": {"source_id": "7"}}).group == "s:source_id:7"
    assert parse_row(base | {"meta": {"pair_index": 3}}).group == "s:pair_index:3"
    assert parse_row(base | {"id": "halueval-qa-00001-right"}).group == "halueval-qa-00001"


def test_split_by_group_keeps_documents_on_one_side():
    """No source document lands on both sides, both sides are non-empty, order is kept."""
    rows = load_rows(TINY)
    tune, report = split_by_group(rows, 0.5, seed=1)
    assert tune and report and len(tune) + len(report) == len(rows)
    assert not {r.group for r in tune} & {r.group for r in report}
    assert [r.id for r in tune] == [r.id for r in rows if r in tune]
    assert split_by_group(rows, 0.5, seed=1) == (tune, report)


def test_split_by_group_rejects_bad_fractions_and_single_groups():
    """A fraction outside (0, 1) or a single group cannot give two halves."""
    rows = load_rows(TINY)
    with pytest.raises(ConfigError):
        split_by_group(rows, 1.0)
    with pytest.raises(ConfigError, match="one source group"):
        split_by_group(rows[:2], 0.5)


def test_fold_of_hashes_seed_and_group():
    """Stable folds in range; a string seed keeps the localizer's historical folds."""
    folds = [fold_of(f"doc{i}", 5) for i in range(100)]
    assert set(folds) == set(range(5))
    for group in ("doc1", "ragtruth:source_id:42"):
        digest = hashlib.sha256(f"localizer:3:{group}".encode()).hexdigest()
        assert fold_of(group, 5, "localizer:3") == int(digest, 16) % 5
        assert (
            fold_of(group, 5, 1) == int(hashlib.sha256(f"1:{group}".encode()).hexdigest(), 16) % 5
        )
