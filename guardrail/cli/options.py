"""The command-line options several commands share, defined once.

``check``, ``eval``, ``calibrate`` and ``rescore`` all choose a judge and bound its work; the
dataset commands (``eval``, ``calibrate``) also share what to score and how to run it. Each
group is one ``add_*`` function, and :func:`scorer_overrides` turns the parsed flags into the
settings overrides :func:`guardrail.scoring.settings.with_overrides` applies (naming the flag in
any error).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from guardrail.evaluation.distributed import RayOptions, import_ray
from guardrail.exceptions import ConfigError
from guardrail.judges.registry import SPEC_HELP
from guardrail.policy import load_policy
from guardrail.scoring.settings import (
    DEFAULT_THRESHOLD,
    METHODS,
    AnyScorerSettings,
    MetaRAGSettings,
    check_flag_threshold,
    with_overrides,
)

Overrides = dict[str, tuple[str, Any]]


def add_judge_flags(p: argparse.ArgumentParser, *, judge_default: str) -> None:
    """``--judge`` and the judge's deadlines and output format."""
    p.add_argument(
        "--judge", default=None, metavar="SPEC", help=f"{SPEC_HELP} (default: {judge_default})"
    )
    add_deadline_flags(p)


def add_deadline_flags(p: argparse.ArgumentParser) -> None:
    """``--timeout``, ``--turn-timeout``, ``--structured-output`` and ``--judge-stream``: how
    judge calls run."""
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="deadline of one judge call; an expired call is closed (the server stops "
        "generating) before any retry (default: the policy's, else 60)",
    )
    p.add_argument(
        "--turn-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="deadline of all judge calls for one answer; when it passes the answer gets the "
        "policy's on-error outcome (default: the policy's, else none)",
    )
    p.add_argument(
        "--structured-output",
        choices=["auto", "off"],
        default=None,
        help="auto: ask judges that support it for replies that follow a JSON Schema; off: "
        "plain text (default: the policy's, else auto)",
    )
    p.add_argument(
        "--judge-stream",
        choices=["auto", "on", "off"],
        default=None,
        help="stream OpenAI-API judge replies, so a call past its deadline stops the "
        "server's generation (llama-cpp-python stops only streamed replies); auto: for "
        "openai-compatible:MODEL@URL judges (default: the policy's, else auto)",
    )


def judge_overrides(args: argparse.Namespace) -> Overrides:
    """The overrides of :func:`add_judge_flags` (or just :func:`add_deadline_flags`)."""
    return {
        "judge": ("--judge", getattr(args, "judge", None)),
        "timeout_s": ("--timeout", args.timeout),
        "turn_timeout_s": ("--turn-timeout", args.turn_timeout),
        "structured_output": ("--structured-output", args.structured_output),
        "judge_stream": ("--judge-stream", args.judge_stream),
    }


def add_cost_flags(p: argparse.ArgumentParser, *, default_note: str) -> None:
    """``--protocol`` and ``--cascade``; ``default_note`` says where unset values come from."""
    p.add_argument(
        "--protocol",
        choices=["paper", "factoid", "answer"],
        default=None,
        help=f"metarag: judge calls per answer: paper, factoid or answer ({default_note})",
    )
    p.add_argument(
        "--cascade",
        action="store_const",
        const=True,
        default=None,
        help="metarag: the offline verifier screens each factoid first; those it is confident "
        "are supported skip the LLM (cut-off: the policy's, else the packaged calibrated one)",
    )


def add_response_cache_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--response-cache",
        type=Path,
        default=None,
        metavar="PATH",
        help="answer repeated temperature-0 judge calls from this SQLite file (opt-in); a "
        "second run over the same rows then costs no LLM tokens",
    )


def add_scorer_flags(p: argparse.ArgumentParser) -> None:
    """The scorer choice of the dataset commands: method, judge, model files, cost, cache."""
    p.add_argument(
        "--method",
        choices=METHODS,
        default=None,
        help="scoring method (default: the policy's, else metarag)",
    )
    add_judge_flags(p, judge_default="the policy's, else local")
    p.add_argument(
        "--judge-model",
        type=Path,
        default=None,
        metavar="PATH",
        help="with --judge local:trained: this verifier file instead of the packaged one "
        "(scripts/train_verifier.py writes it)",
    )
    p.add_argument(
        "--localizer-model",
        type=Path,
        default=None,
        metavar="PATH",
        help="this word-localizer file instead of the packaged one "
        "(scripts/train_localizer.py writes it)",
    )
    add_cost_flags(p, default_note="default: the policy's, else paper")
    add_response_cache_flag(p)
    p.add_argument(
        "--window", type=int, default=None, help="rt4chart: chunk size in sentences (default 25)"
    )
    p.add_argument("--overlap", type=int, default=None, help="rt4chart: chunk overlap (default 10)")


def _path_text(path: Path | None) -> str | None:
    return None if path is None else str(path)


def scorer_settings(args: argparse.Namespace) -> AnyScorerSettings:
    """The ``--policy`` file's scorer block (else the defaults), overridden by the flags of
    :func:`add_scorer_flags`."""
    policy = getattr(args, "policy", None)
    base = load_policy(policy).scorer if policy is not None else MetaRAGSettings()
    return with_overrides(
        base,
        {
            "method": ("--method", args.method),
            **judge_overrides(args),
            "window": ("--window", args.window),
            "overlap": ("--overlap", args.overlap),
            "judge_model": ("--judge-model", _path_text(args.judge_model)),
            "localizer_model": ("--localizer-model", _path_text(args.localizer_model)),
            "response_cache": ("--response-cache", _path_text(args.response_cache)),
            "protocol": ("--protocol", args.protocol),
            "cascade": ("--cascade", args.cascade),
        },
    )


def flag_threshold(args: argparse.Namespace) -> tuple[float, str]:
    """``--threshold`` (validated) and where it came from; the default without the flag."""
    value = getattr(args, "threshold", None)
    if value is None:
        return DEFAULT_THRESHOLD, "scorer default"
    return check_flag_threshold(value), "--threshold"


def add_dataset_flags(p: argparse.ArgumentParser) -> None:
    """What rows to score and how to run: the dataset, its selection, jobs, resume, split."""
    p.add_argument("dataset", type=Path, help="JSON Lines file in the benchmark row schema")
    p.add_argument("--task", default=None, help="only rows of this task (qa, summary, ...)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N rows")
    p.add_argument(
        "--shuffle",
        type=int,
        default=None,
        metavar="SEED",
        help="shuffle rows with this seed before --limit (the shared files are sorted by task)",
    )
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="rows scored at once")
    add_ray_flags(p)
    p.add_argument(
        "--resume-file",
        type=Path,
        default=None,
        metavar="PATH",
        help="JSON Lines progress file: finished rows are appended, a rerun skips them",
    )
    p.add_argument(
        "--holdout-frac",
        type=float,
        default=None,
        metavar="F",
        help="tune the threshold on a fraction F of the rows (grouped by source document) and "
        "report on the rest",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the --holdout-frac split")
    add_progress_flag(p)


def add_progress_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bar (default: on a terminal)"
    )


def add_ray_flags(p: argparse.ArgumentParser) -> None:
    """``--ray`` and ``--ray-workers`` (``eval``, ``calibrate`` and ``rescore``)."""
    p.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="score on a Ray cluster: 'auto' (attach to a running local one, else start one) "
        "or a cluster address; needs pip install 'guardrail-rag[ray]'. --jobs is then per worker",
    )
    p.add_argument(
        "--ray-workers",
        type=int,
        default=None,
        metavar="N",
        help="with --ray: this many workers, one CPU each (default: the cluster's CPUs)",
    )


def ray_options(args: argparse.Namespace) -> RayOptions | None:
    """The ``--ray`` options, or ``None`` for an in-process run."""
    if args.ray is None:
        if args.ray_workers is not None:
            raise ConfigError("--ray-workers needs --ray")
        return None
    options = RayOptions(address=args.ray, workers=args.ray_workers, jobs=args.jobs)
    import_ray()  # fail before anything is scored
    return options


def add_log_flag(p: argparse.ArgumentParser) -> None:
    """``--log-format``: the command's operational log on standard error."""
    p.add_argument(
        "--log-format",
        choices=("json", "console"),
        default=None,
        help="operational log on standard error: json (one object a line) or console "
        "(default: console on a terminal, json otherwise; $GUARDRAIL_LOG_FORMAT)",
    )


def configure_logs(args: argparse.Namespace, *, always: bool = True) -> None:
    """Render guardrail's operational logs as ``--log-format`` says. With ``always`` false (the
    batch commands, whose tables go to standard output) only when a format is asked for, by
    the flag or ``$GUARDRAIL_LOG_FORMAT``."""
    import os

    from guardrail.logs import configure

    chosen = getattr(args, "log_format", None)
    if always or chosen or os.environ.get("GUARDRAIL_LOG_FORMAT"):
        configure(chosen)
