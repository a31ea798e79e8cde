"""Which figures are in-sample: model ``meta`` against the rows ``guardrail eval`` scores."""

from __future__ import annotations

from pathlib import Path

import pytest

from guardrail.evaluation.datasets import load_rows, split_by_group
from guardrail.evaluation.provenance import (
    Selection,
    data_name,
    in_sample_note,
    training_rows,
    training_split,
)
from guardrail.exceptions import ConfigError

TINY = Path(__file__).resolve().parents[1] / "data" / "eval_tiny.jsonl"


def selection(**overrides: object) -> Selection:
    base: dict[str, object] = {
        "dataset": TINY,
        "rows": 6,
        "filtered": False,
        "holdout_frac": 0.5,
        "seed": 3,
    }
    base.update(overrides)
    return Selection(**base)  # type: ignore[arg-type]


def test_a_model_trained_elsewhere_gets_no_note():
    assert in_sample_note("verifier", {"data": "ragtruth/dev.jsonl"}, selection()) is None
    assert in_sample_note("verifier", {}, selection()) is None


def test_trained_on_the_whole_file_is_in_sample():
    note = in_sample_note("verifier", {"data": data_name(TINY)}, selection())
    assert note is not None and "in-sample" in note and "--split-seed" in note


def test_trained_on_the_tune_side_of_the_same_split_leaves_the_report_side_unseen():
    meta = {"data": data_name(TINY), "split": training_split(0.5, 3, 6)}
    note = in_sample_note("verifier", meta, selection())
    assert note is not None and "never saw" in note


@pytest.mark.parametrize(
    "changed",
    [{"seed": 4}, {"holdout_frac": 0.6}, {"holdout_frac": None}, {"filtered": True}, {"rows": 5}],
)
def test_any_other_split_or_row_filter_may_overlap(changed):
    meta = {"data": data_name(TINY), "split": training_split(0.5, 3, 6)}
    note = in_sample_note("verifier", meta, selection(**changed))
    assert note is not None and "may include rows it was trained on" in note


def test_training_rows_is_the_tune_side_eval_uses():
    rows, split = training_rows(TINY, 0.5, 3)
    tune, report = split_by_group(load_rows(TINY), 0.5, seed=3)
    assert [r.id for r in rows] == [r.id for r in tune]
    assert not {r.group for r in rows} & {r.group for r in report}
    assert split == training_split(0.5, 3, 6)
    everything, none = training_rows(TINY, None, 0)
    assert len(everything) == 6 and none is None


@pytest.mark.parametrize(("path", "frac"), [(Path("nope.jsonl"), None), (TINY, 1.5)])
def test_training_rows_errors_are_config_errors(path, frac):
    with pytest.raises(ConfigError):
        training_rows(path, frac, 0)


def test_training_script_options_exit_two_on_bad_input(capsys):
    """The scripts' shared options: a bad split is exit 2 with one line; a good one says so."""
    import argparse

    from guardrail.evaluation.provenance import add_split_args, rows_for_training

    parser = argparse.ArgumentParser()
    add_split_args(parser, TINY)
    with pytest.raises(SystemExit) as stop:
        rows_for_training(parser.parse_args(["--holdout-frac", "1.5"]))
    assert stop.value.code == 2
    assert "holdout fraction" in capsys.readouterr().err
    rows, split = rows_for_training(
        parser.parse_args(["--holdout-frac", "0.5", "--split-seed", "3"])
    )
    assert split is not None and len(rows) < 6
    assert f"training on {len(rows)} of 6 rows" in capsys.readouterr().out
