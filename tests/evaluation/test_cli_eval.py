"""``guardrail eval`` and ``guardrail calibrate`` end to end: outputs, resume, exit codes."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import pytest
import yaml

from guardrail.cli import main
from tests.evaluation.fakes import FakeScorer, substring_judge
from tests.evaluation.test_runner import OUTPUTS
from tests.needs import unavailable

DATA = Path(__file__).resolve().parents[1] / "data"
TINY = DATA / "eval_tiny.jsonl"
POLICY = DATA / "policy_two_topics.yaml"


@pytest.fixture
def scripted(monkeypatch):
    """Every judge spec builds the rule-based scripted judge (no offline model needed)."""
    judge = substring_judge()
    monkeypatch.setattr("guardrail.scoring.factory.make_judge", lambda spec: judge)
    return judge


@pytest.fixture
def fake(monkeypatch, scripted):
    """Replace the scorer with the fixed-output fake; returns it so tests can count calls."""
    scorer = FakeScorer(OUTPUTS)
    monkeypatch.setattr("guardrail.cli.dataset_scoring.build_scorer", lambda settings, **kw: scorer)
    return scorer


def test_eval_rt4chart_writes_every_documented_key(tmp_path, scripted, capsys):
    """A full RT4CHART run over the fixture: table printed, JSON holds the documented keys."""
    out = tmp_path / "eval.json"
    code = main(["eval", str(TINY), "--method", "rt4chart", "--json-out", str(out)])
    assert code == 0
    data = json.loads(out.read_text())
    for key in (
        "answer",
        "span",
        "tasks",
        "n",
        "threshold",
        "failed",
        "failed_rows",
        "cost",
        "sweep",
        "best_on_same_rows",
        "tuned_on_same_rows",
        "run",
        "judge",
        "method",
    ):
        assert key in data, key
    for key in ("precision", "recall", "f1", "accuracy"):
        assert 0.0 <= data["answer"][key] <= 1.0
    assert set(data["tasks"]) == {"qa", "summary"}
    assert set(data["span"]) >= {"precision", "recall", "f1"}
    assert data["cost"]["judge_calls_per_answer"] > 0
    assert data["n"] == 6 and data["method"] == "rt4chart" and data["threshold"] == 0.5
    assert data["threshold_source"] == "scorer default"
    # The substring judge flags every answer with a sentence not verbatim in the context: the
    # three hallucinated rows, and doc1-model-a, which drops a word ("The trial lasts ...").
    assert (data["answer"]["tp"], data["answer"]["fp"]) == (3, 1)
    assert data["best_on_same_rows"]["tuned_on_same_rows"] is True
    assert len(data["sweep"]) == 21
    printed = capsys.readouterr().out
    assert "rt4chart" in printed and "tuned on these same rows" in printed
    png = out.with_suffix(".png")
    assert png.exists() == (importlib.util.find_spec("matplotlib") is not None)


def test_eval_resume_file_skips_finished_rows(tmp_path, fake):
    """A run cut short by --limit 3 is completed by a rerun that scores only the other 3."""
    progress = tmp_path / "progress.jsonl"
    assert main(["eval", str(TINY), "--limit", "3", "--resume-file", str(progress)]) == 0
    assert len(fake.calls) == 3
    out = tmp_path / "all.json"
    code = main(["eval", str(TINY), "--resume-file", str(progress), "--json-out", str(out)])
    assert code == 0 and len(fake.calls) == 6
    data = json.loads(out.read_text())
    assert data["run"]["resumed"] == 3 and data["run"]["scored_this_run"] == 3
    assert data["n"] == 6
    assert (data["answer"]["tp"], data["answer"]["fp"]) == (2, 1)


def test_eval_counts_failed_rows_and_exits_one(tmp_path, fake):
    """Rows whose scoring raised are listed, left out of the metrics, and make exit code 1."""
    fake.fail = {next(iter(OUTPUTS))}  # doc1-model-a's answer
    out = tmp_path / "e.json"
    assert main(["eval", str(TINY), "--json-out", str(out)]) == 1
    data = json.loads(out.read_text())
    assert data["failed"] == 1 and data["n"] == 5
    assert data["failed_rows"][0]["id"] == "doc1-model-a"


def test_eval_threshold_task_and_holdout(tmp_path, fake):
    """--threshold is reported as given; --holdout-frac tunes on one half, reports the other."""
    out = tmp_path / "e.json"
    args = ["eval", str(TINY), "--threshold", "0.75", "--holdout-frac", "0.5", "--json-out"]
    assert main([*args, str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["threshold"] == 0.75 and data["threshold_source"] == "--threshold"
    assert (data["answer"]["tp"], data["answer"]["fp"]) == (1, 0)
    holdout = data["holdout"]
    assert holdout["tuned_on_same_rows"] is False
    assert holdout["tuned_rows"] + holdout["n"] == 6
    assert main(["eval", str(TINY), "--task", "qa", "--json-out", str(out)]) == 0
    assert set(json.loads(out.read_text())["tasks"]) == {"qa"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "missing.jsonl"], "cannot read dataset"),
        (
            ["eval", str(TINY), "--threshold", "1.5"],
            "--threshold: Input should be less than or equal to 1",
        ),
        (["eval", str(TINY), "--jobs", "0"], "--jobs must be >= 1"),
        (["eval", str(TINY), "--holdout-frac", "2"], "holdout fraction"),
    ],
)
def test_eval_bad_input_exits_two_with_one_line(argv, message, fake, capsys):
    """Bad input is exit code 2 and a one-line error on stderr, no traceback."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_eval_bad_row_names_the_line(tmp_path, fake, capsys):
    """A dataset row missing a field fails the command with path:line in the message."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text(TINY.read_text().splitlines()[0] + "\n" + '{"id": "x"}\n')
    assert main(["eval", str(bad)]) == 2
    assert f"{bad}:2: missing field(s)" in capsys.readouterr().err


def test_eval_unknown_judge_spec_exits_two(capsys):
    """An unknown judge spec is a configuration error (the real registry is used)."""
    assert main(["eval", str(TINY), "--judge", "nope:x", "--method", "rt4chart"]) == 2
    assert "unknown judge spec" in capsys.readouterr().err


def test_calibrate_writes_the_threshold_into_a_policy_copy(tmp_path, fake, capsys):
    """The F1-best threshold lands on the chosen topic; other keys survive; output is labelled."""
    out = tmp_path / "tuned.yaml"
    report = tmp_path / "cal.json"
    argv = ["calibrate", str(TINY), "--metric", "f1", "--policy", str(POLICY), "--out", str(out),
            "--topic", "medical", "--json-out", str(report)]  # fmt: skip
    assert main(argv) == 0
    tuned = yaml.safe_load(out.read_text())
    original = yaml.safe_load(POLICY.read_text())
    assert tuned["topics"][0] == original["topics"][0]
    assert tuned["topics"][1]["threshold"] == 0.5  # F1 2/3 ties with 0.0; higher wins
    assert tuned["topics"][1]["on_flag"] == {"cite": True}
    assert out.read_text().startswith("# threshold 0.5 set by `guardrail calibrate`")
    data = json.loads(report.read_text())
    assert data["tuned_on_same_rows"] is True and data["topics"] == ["medical"]
    assert "tuned on these same rows" in capsys.readouterr().out


def test_calibrate_reuses_the_eval_progress_file(tmp_path, fake):
    """With the resume file of an earlier eval, calibrate scores nothing again."""
    progress = tmp_path / "p.jsonl"
    assert main(["eval", str(TINY), "--resume-file", str(progress)]) == 0
    assert len(fake.calls) == 6
    argv = ["calibrate", str(TINY), "--policy", str(POLICY), "--out", str(tmp_path / "o.yaml"),
            "--topic", "*", "--resume-file", str(progress), "--holdout-frac", "0.5",
            "--json-out", str(tmp_path / "c.json")]  # fmt: skip
    assert main(argv) == 0
    assert len(fake.calls) == 6
    tuned = yaml.safe_load((tmp_path / "o.yaml").read_text())
    assert {t["threshold"] for t in tuned["topics"]} == {
        json.loads((tmp_path / "c.json").read_text())["threshold"]
    }
    assert json.loads((tmp_path / "c.json").read_text())["tuned_on_same_rows"] is False


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "has 2 topics (general, medical); pass --topic"),
        (["--topic", "legal"], "has no topic 'legal'"),
    ],
)
def test_calibrate_topic_errors(tmp_path, fake, capsys, extra, message):
    """An ambiguous or unknown topic is a configuration error naming the topics."""
    argv = ["calibrate", str(TINY), "--policy", str(POLICY), "--out", str(tmp_path / "o.yaml")]
    assert main([*argv, *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o.yaml").exists()


def test_calibrate_rejects_an_invalid_policy_and_writes_nothing(tmp_path, fake, capsys):
    """A policy the loader rejects is a PolicyError (exit 2) naming the key; no output file."""
    policy = tmp_path / "p.yaml"
    policy.write_text("name: p\nversion: 1\ntopics:\n  - name: general\n    threshhold: 0.4\n")
    out = tmp_path / "o.yaml"
    argv = ["calibrate", str(TINY), "--policy", str(policy), "--out", str(out)]
    assert main(argv) == 2
    assert "topics[0].threshhold" in capsys.readouterr().err
    assert not out.exists()


def test_calibrate_refuses_to_overwrite_its_input(tmp_path, fake, capsys):
    """--out equal to --policy is refused: the input policy is never overwritten."""
    policy = tmp_path / "p.yaml"
    policy.write_text(POLICY.read_text())
    argv = ["calibrate", str(TINY), "--policy", str(policy), "--out", str(policy), "--topic", "*"]
    assert main(argv) == 2
    assert policy.read_text() == POLICY.read_text()


def test_eval_reports_the_reference_metric_for_rows_with_a_target(tmp_path, scripted):
    """Rows with ``target`` get the reference metric, judged on the scorer's own claims."""
    rows = [json.loads(x) for x in TINY.read_text().splitlines()[:2]]
    rows[1]["target"] = "The trial lasts 30 days."
    data_file = tmp_path / "targets.jsonl"
    data_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "e.json"
    assert main(["eval", str(data_file), "--method", "rt4chart", "--json-out", str(out)]) == 0
    ref = json.loads(out.read_text())["reference"]
    # Claims: "The trial lasts 30 days." is in the target only (self-knowledge); "Support is by
    # chat only." is in the references but not the target (faithful, and noise): none is both
    # unsupported and incorrect, so hallucination is 0.
    assert ref == {
        "rows": 1,
        "hallucination": 0.0,
        "faithfulness": 0.5,
        "noise_sensitivity": 0.5,
        "self_knowledge": 0.5,
    }


def _model_copy(tmp_path: Path, package: str, name: str, **meta: object) -> Path:
    from importlib import resources

    data = json.loads(resources.files(package).joinpath(name).read_text(encoding="utf-8"))
    data["meta"] = {**data.get("meta", {}), **meta}
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _flat_localizer(tmp_path: Path, threshold: float) -> Path:
    """Every word gets p = 0.5: threshold below keeps every word, above keeps one per factoid."""
    from guardrail.localize.features import FEATURE_NAMES
    from guardrail.localize.model import LOCALIZER_FORMAT

    path = tmp_path / f"localizer-{threshold}.json"
    data = {
        "format": LOCALIZER_FORMAT,
        "feature_names": list(FEATURE_NAMES),
        "coef": [0.0] * len(FEATURE_NAMES),
        "intercept": 0.0,
        "threshold": threshold,
        "meta": {"data": f"{TINY.parent.name}/{TINY.name}"},
    }
    path.write_text(json.dumps(data))
    return path


def test_eval_judge_model_reads_that_file_and_says_it_is_in_sample(tmp_path, capsys):
    """--judge-model swaps the trained verifier; a model trained on these rows is called out."""
    model = _model_copy(
        tmp_path, "guardrail.judges.local", "verifier.json", data=f"data/{TINY.name}"
    )
    out = tmp_path / "e.json"
    argv = ["eval", str(TINY), "--judge", "local:trained", "--judge-model", str(model)]
    assert main([*argv, "--json-out", str(out)]) == 0
    assert json.loads(out.read_text())["judge"] == f"local-trained (verifier {model})"
    printed = " ".join(capsys.readouterr().out.split())
    assert "the verifier model was trained on data/eval_tiny.jsonl" in printed
    # the packaged localizer was trained on RAGTruth, not on these rows: no note for it
    assert "word localizer" not in printed


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--judge-model", "x.json"],
            "--judge-model: judge_model needs a local:trained or local:encoder judge",
        ),
        (["--judge", "local:trained", "--judge-model", "nope.json"], "cannot read nope.json"),
        (["--localizer-model", "nope.json"], "localizer model: cannot read"),
    ],
)
def test_eval_bad_model_files_exit_two(extra, message, capsys):
    assert main(["eval", str(TINY), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_eval_localizer_model_changes_the_span_figures(tmp_path, scripted, capsys):
    """--localizer-model is used to narrow flagged factoids (and named in the output)."""
    spans = {}
    for threshold in (0.1, 0.9):
        model = _flat_localizer(tmp_path, threshold)
        out = tmp_path / f"e{threshold}.json"
        assert (
            main(["eval", str(TINY), "--localizer-model", str(model), "--json-out", str(out)]) == 0
        )
        data = json.loads(out.read_text())
        assert data["judge"].endswith(f"(localizer {model})")
        spans[threshold] = data["span"]
    printed = " ".join(capsys.readouterr().out.split())
    assert "word localizer (span figures) model was trained on data/eval_tiny.jsonl" in printed
    # keeping every word of a flagged factoid predicts more characters than one word each
    predicted = {t: s["tp"] + s["fp"] for t, s in spans.items()}
    assert predicted[0.1] > predicted[0.9] > 0


def test_eval_says_the_encoder_was_trained_on_these_rows(tmp_path):
    """The packaged encoder verifier was trained on RAGTruth dev: eval says so there."""
    if importlib.util.find_spec("onnxruntime") is None:
        unavailable("encoder", "onnxruntime is not installed (the encoder extra)")

    from guardrail.cli.dataset_scoring import provenance_notes
    from guardrail.judges.local import LocalJudge

    judge = LocalJudge(verifier="encoder")
    ((_, meta),) = judge.verifier.fitted()
    tuned = meta["data"]  # e.g. "ragtruth/dev.jsonl"
    rows = [object()] * meta["rows"]

    def notes(dataset: Path) -> list[str]:
        args = argparse.Namespace(
            dataset=dataset, task=None, limit=None, shuffle=None, holdout_frac=None, seed=0
        )
        return provenance_notes(rows, judge, object(), args)  # type: ignore[arg-type]

    (note,) = notes(tmp_path / tuned)
    assert f"encoder verifier model was trained on {tuned}" in note
    assert notes(tmp_path / "other" / "rows.jsonl") == []
