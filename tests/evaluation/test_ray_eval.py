"""``guardrail eval --ray``: the same figures and the same resumable progress file as a local
run, on a real local Ray instance (the ``ray_cluster`` fixture) with the real offline judge."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from guardrail.cli import main
from guardrail.evaluation.datasets import load_rows
from guardrail.evaluation.distributed import EvalSpec, RayOptions, load_settings, ray_executor
from guardrail.evaluation.runner import (
    ProgressFile,
    ProgressHeader,
    RowOutcome,
    row_scorer,
    run_rows,
)
from guardrail.scoring.factory import build_scorer
from guardrail.scoring.settings import MetaRAGSettings, RT4ChartSettings

TINY = Path(__file__).resolve().parents[1] / "data" / "eval_tiny.jsonl"


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """30 rows (the tiny set five times over, new ids): several chunks on each worker."""
    rows = [json.loads(line) for line in TINY.read_text().splitlines() if line.strip()]
    path = tmp_path / "rows.jsonl"
    with path.open("w") as fh:
        for copy in range(5):
            for row in rows:
                fh.write(json.dumps({**row, "id": f"{row['id']}-{copy}"}) + "\n")
    return path


def figures(path: Path) -> dict:
    """The eval JSON without what differs between any two runs: timings and run metadata."""
    data = json.loads(path.read_text())
    data.pop("run")
    data["cost"].pop("seconds_per_answer")
    data["cost"].pop("seconds_per_scored_answer")
    return data


def eval_json(dataset: Path, out: Path, *extra: str) -> dict:
    code = main(["eval", str(dataset), "--no-progress", "--json-out", str(out), *extra])
    assert code == 0
    return figures(out)


def test_ray_figures_equal_the_local_run(ray_cluster, dataset, tmp_path):
    local = eval_json(dataset, tmp_path / "local.json")
    on_ray = eval_json(dataset, tmp_path / "ray.json", "--ray", "auto", "--ray-workers", "2")
    assert json.dumps(on_ray, sort_keys=True) == json.dumps(local, sort_keys=True)
    assert local["n"] == 30
    assert json.loads((tmp_path / "ray.json").read_text())["run"]["ray"] == "auto"


def test_ray_figures_equal_for_rt4chart_and_jobs(ray_cluster, dataset, tmp_path):
    local = eval_json(dataset, tmp_path / "local.json", "--method", "rt4chart")
    on_ray = eval_json(
        dataset, tmp_path / "ray.json", "--method", "rt4chart", "--ray", "auto", "--jobs", "3"
    )
    assert json.dumps(on_ray, sort_keys=True) == json.dumps(local, sort_keys=True)


def test_resume_after_a_torn_progress_file_on_ray(ray_cluster, dataset, tmp_path, capsys):
    local = eval_json(dataset, tmp_path / "local.json")
    progress = tmp_path / "progress.jsonl"
    eval_json(dataset, tmp_path / "first.json", "--ray", "auto", "--resume-file", str(progress))
    lines = progress.read_text().splitlines(keepends=True)
    assert len(lines) == 31  # header + 30 rows, in whatever order the workers finished
    # keep the header, 11 rows and half of the 12th, as a run killed mid-write leaves it
    progress.write_text("".join(lines[:12]) + lines[12][: len(lines[12]) // 2])
    capsys.readouterr()
    resumed = eval_json(
        dataset, tmp_path / "second.json", "--ray", "auto", "--resume-file", str(progress)
    )
    assert "resumed 11 rows" in capsys.readouterr().out
    run = json.loads((tmp_path / "second.json").read_text())["run"]
    assert (run["resumed"], run["scored_this_run"]) == (11, 19)
    assert json.dumps(resumed, sort_keys=True) == json.dumps(local, sort_keys=True)
    assert (
        len(ProgressFile(progress, ProgressHeader(method="metarag", judge="local-trained")).load())
        == 30
    )


async def test_interrupted_ray_run_keeps_finished_rows_and_resumes(ray_cluster, dataset, tmp_path):
    rows = load_rows(dataset)
    settings = MetaRAGSettings()
    scorer = build_scorer(settings, threshold=0.5)
    local = await run_rows(rows, scorer, threshold=0.5)
    spec = EvalSpec.of(settings, 0.5)
    executor = ray_executor(spec, RowOutcome, RayOptions(workers=2, chunk=4))
    path = tmp_path / "p.jsonl"
    header = ProgressHeader(method="metarag", judge="local")
    seen: list[str] = []

    def stop_after_ten(outcome: RowOutcome) -> None:
        seen.append(outcome.id)
        if len(seen) == 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        await run_rows(
            rows,
            scorer,
            progress_file=ProgressFile(path, header),
            executor=executor,
            on_outcome=stop_after_ten,
        )
    assert len(ProgressFile(path, header).load()) == 10
    result = await run_rows(
        rows, scorer, progress_file=ProgressFile(path, header), executor=executor
    )
    assert (result.resumed, result.scored) == (10, 20)
    assert list(result.outcomes) == [r.id for r in rows]  # dataset order, not finishing order
    strip = {"seconds"}
    assert [o.model_dump(exclude=strip) for o in result.outcomes.values()] == [
        o.model_dump(exclude=strip) for o in local.outcomes.values()
    ]


def test_worker_builds_the_same_scorer_from_shipped_settings():
    settings = RT4ChartSettings(window=5, overlap=2)
    spec = EvalSpec.of(settings, 0.4)
    assert load_settings(spec.settings) == settings
    assert isinstance(spec.build(), type(row_scorer(build_scorer(settings), 0.4, None)))


@pytest.fixture
def overlap_settings() -> object:
    """The documented plug-in scorer (examples/extending/overlap_scorer.py), registered for
    this test only."""
    import importlib.util

    from guardrail.scoring import registry

    path = Path(__file__).resolve().parents[2] / "examples" / "extending" / "overlap_scorer.py"
    spec = importlib.util.spec_from_file_location("overlap_scorer_for_ray_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the model's annotations through it
    spec.loader.exec_module(module)
    try:
        yield module.OverlapSettings
    finally:
        sys.modules.pop(spec.name, None)
        registry.SCORERS._entries.pop("overlap", None)
        for listener in list(registry._listeners):
            listener()


def test_worker_builds_a_plug_in_scorer_from_shipped_settings(overlap_settings):
    """A worker validates the shipped settings against every registered scorer, plug-ins
    included (not only the built-in methods)."""
    settings = overlap_settings(min_words=3)  # type: ignore[operator]
    spec = EvalSpec.of(settings, 0.5)
    assert load_settings(spec.settings) == settings
    [row] = load_rows(TINY, limit=1)
    outcome = asyncio.run(spec.build()(row))
    assert outcome.error is None and outcome.score is not None


def test_ray_bad_options_are_one_line_errors(dataset, capsys, monkeypatch):
    assert main(["eval", str(dataset), "--ray-workers", "2"]) == 2
    assert "--ray-workers needs --ray" in capsys.readouterr().err
    assert main(["eval", str(dataset), "--ray", "auto", "--ray-workers", "0"]) == 2
    assert "--ray-workers must be >= 1" in capsys.readouterr().err
    assert main(["eval", str(dataset), "--ray", "auto", "--jobs", "0"]) == 2
    assert "--jobs must be >= 1" in capsys.readouterr().err
    monkeypatch.setitem(__import__("sys").modules, "ray", None)  # as if not installed
    assert main(["eval", str(dataset), "--ray", "auto"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'guardrail-rag[ray]'" in err


def test_ray_worker_failure_is_one_line(ray_cluster, dataset, tmp_path, capsys):
    bad = tmp_path / "missing-verifier.json"
    spec = EvalSpec(
        {**MetaRAGSettings(judge="local:trained").model_dump(mode="json"), "judge_model": str(bad)},
        0.5,
    )
    executor = ray_executor(spec, RowOutcome, RayOptions(workers=1))
    rows = load_rows(dataset)[:2]
    with pytest.raises(Exception, match="ray worker failed") as info:
        asyncio.run(run_rows(rows, build_scorer(MetaRAGSettings()), executor=executor))
    assert "\n" not in str(info.value)


def test_ctrl_c_during_a_ray_run_then_resume(ray_cluster, tmp_path):
    """A real interruption: ``guardrail eval --ray ADDRESS`` in its own process, attached to
    the test's Ray by address, gets SIGINT once rows are coming in; the rerun scores only the
    rest."""
    rows = [json.loads(line) for line in TINY.read_text().splitlines() if line.strip()]
    dataset = tmp_path / "big.jsonl"
    dataset.write_text(
        "".join(
            json.dumps({**row, "id": f"{row['id']}-{i}"}) + "\n" for i in range(100) for row in rows
        )
    )
    progress = tmp_path / "progress.jsonl"
    args = ["eval", str(dataset), "--no-progress", "--resume-file", str(progress)]
    address = ray_cluster.get_runtime_context().gcs_address
    proc = subprocess.Popen(
        [sys.executable, "-m", "guardrail", *args, "--ray", address],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if progress.exists() and progress.read_text().count("\n") >= 2:  # header + a row
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()[-2000:]
    kept = len(
        ProgressFile(progress, ProgressHeader(method="metarag", judge="local-trained")).load()
    )
    assert 0 < kept < 600
    local = eval_json(dataset, tmp_path / "local.json")
    resumed = eval_json(dataset, tmp_path / "ray.json", *args[2:], "--ray", "auto")
    run = json.loads((tmp_path / "ray.json").read_text())["run"]
    assert (run["resumed"], run["scored_this_run"]) == (kept, 600 - kept)
    assert json.dumps(resumed, sort_keys=True) == json.dumps(local, sort_keys=True)


def test_more_workers_than_cluster_cpus_is_refused(ray_cluster, dataset, capsys):
    assert main(["eval", str(dataset), "--ray", "auto", "--ray-workers", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--ray-workers 3: the Ray cluster has 2 CPUs" in err
