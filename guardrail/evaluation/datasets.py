"""Load benchmark rows (the shared JSON Lines schema) with errors that name the line.

One row is one answer to judge::

    {"id": "...", "source": "ragtruth", "task": "qa", "question": "...", "context": "...",
     "answer": "...", "label": 1, "spans": [[start, end], ...], "split": "test", "meta": {...}}

``source``, ``split`` and ``meta`` are optional here; ``target`` (a reference answer) is
optional and switches on the reference-based metric in ``guardrail eval``. A malformed row is
an error, never a silent skip: a benchmark that quietly drops rows reports a number for a
different benchmark.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guardrail.exceptions import ConfigError
from guardrail.models import Span
from guardrail.safe_load import loads_json

_PASSAGE_BREAK = re.compile(r"\n[ \t]*\n")
_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "task": str,
    "question": str,
    "context": str,
    "answer": str,
    "label": int,
}


@dataclass(frozen=True)
class EvalRow:
    """One labelled answer. ``spans`` are character offsets into ``answer``, end exclusive."""

    id: str
    task: str
    question: str
    context: str
    answer: str
    label: int
    spans: tuple[Span, ...] = ()
    source: str = ""
    split: str = ""
    target: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def contexts(self) -> list[str]:
        """The retrieved passages: the schema joins them with blank lines, so split there."""
        parts = [p.strip() for p in _PASSAGE_BREAK.split(self.context)]
        return [p for p in parts if p]

    @property
    def group(self) -> str:
        """Rows that share a source document (answers from several models) share a group.

        Used to split tune/report halves so no document is on both sides: ``meta.source_id``,
        else ``meta.pair_index`` (HaluEval pairs), else the id without its last ``-`` part.
        """
        for key in ("source_id", "pair_index"):
            value = self.meta.get(key)
            if value is not None and value != "":
                return f"{self.source}:{key}:{value}"
        stem, sep, _ = self.id.rpartition("-")
        return stem if sep and stem else self.id


def _fail(path: Path | str, line: int, problem: str) -> ConfigError:
    return ConfigError(f"{path}:{line}: {problem}")


def _spans(raw: Any, answer: str, path: Path | str, line: int) -> tuple[Span, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise _fail(path, line, f"field 'spans' must be a list of [start, end], got {raw!r}")
    out: list[Span] = []
    for item in raw:
        ok = (
            isinstance(item, (list, tuple))
            and len(item) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item)
        )
        if not ok:
            raise _fail(path, line, f"field 'spans' has a bad item {item!r}; expected [start, end]")
        start, end = int(item[0]), int(item[1])
        if not 0 <= start < end <= len(answer):
            raise _fail(
                path,
                line,
                f"span [{start}, {end}] is outside the answer (length {len(answer)}) or empty",
            )
        out.append((start, end))
    return tuple(out)


def parse_row(obj: Any, *, path: Path | str = "<row>", line: int = 1) -> EvalRow:
    """Validate one decoded JSON object; errors name ``path:line`` and the field."""
    if not isinstance(obj, dict):
        raise _fail(path, line, f"expected a JSON object, got {type(obj).__name__}")
    missing = [k for k in _REQUIRED if k not in obj]
    if missing:
        raise _fail(path, line, f"missing field(s) {', '.join(repr(k) for k in missing)}")
    for key, kind in _REQUIRED.items():
        value = obj[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise _fail(
                path,
                line,
                f"field {key!r} must be {getattr(kind, '__name__', kind)}, got {value!r}",
            )
    if obj["label"] not in (0, 1):
        raise _fail(path, line, f"field 'label' must be 0 or 1, got {obj['label']!r}")
    if not obj["id"]:
        raise _fail(path, line, "field 'id' is empty")
    target = obj.get("target")
    if target is not None and not isinstance(target, str):
        raise _fail(path, line, f"field 'target' must be a string, got {target!r}")
    meta = obj.get("meta")
    meta = {} if meta is None else meta
    if not isinstance(meta, dict):
        raise _fail(path, line, f"field 'meta' must be an object, got {meta!r}")
    return EvalRow(
        id=obj["id"],
        task=obj["task"],
        question=obj["question"],
        context=obj["context"],
        answer=obj["answer"],
        label=int(obj["label"]),
        spans=_spans(obj.get("spans"), obj["answer"], path, line),
        source=str(obj.get("source") or ""),
        split=str(obj.get("split") or ""),
        target=target,
        meta=meta,
    )


def json_lines(path: str | Path, what: str = "dataset") -> Iterator[tuple[int, Any]]:
    """``(line number, decoded value)`` for every non-blank line of a JSON Lines file; a line
    that is not UTF-8 or not JSON is a :class:`ConfigError` naming ``path:line``."""
    p = Path(path)
    try:
        handle = p.open("rb")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read {what} ({exc.strerror or exc})") from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _fail(p, number, f"not UTF-8 text (byte {exc.start} of the line)") from None
            if not text.strip():
                continue
            try:
                obj = loads_json(text)
            except json.JSONDecodeError as exc:
                raise _fail(
                    p, number, f"not valid JSON ({exc.msg} at column {exc.colno})"
                ) from None
            yield number, obj


def iter_rows(path: str | Path) -> Iterable[EvalRow]:
    """Yield rows in file order; blank lines are skipped, duplicate ids are an error."""
    p = Path(path)
    seen: dict[str, int] = {}
    for number, obj in json_lines(p):
        row = parse_row(obj, path=p, line=number)
        if row.id in seen:
            raise _fail(p, number, f"duplicate id {row.id!r} (first on line {seen[row.id]})")
        seen[row.id] = number
        yield row


def load_rows(
    path: str | Path,
    *,
    task: str | None = None,
    limit: int | None = None,
    shuffle_seed: int | None = None,
) -> list[EvalRow]:
    """Read a dataset; filter by ``task``, optionally shuffle deterministically, then cut.

    Shuffling matters for ``limit``: the shared files are ordered by task, so the first N rows
    of RAGTruth are all QA.
    """
    rows = [r for r in iter_rows(path) if task is None or r.task == task]
    if task is not None and not rows:
        raise ConfigError(f"{path}: no rows with task {task!r}")
    if not rows:
        raise ConfigError(f"{path}: the dataset has no rows")
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(rows)
    if limit is not None:
        if limit < 1:
            raise ConfigError(f"--limit must be >= 1, got {limit}")
        rows = rows[:limit]
    return rows


def _group_digest(group: str, seed: int | str) -> str:
    return hashlib.sha256(f"{seed}:{group}".encode()).hexdigest()


def fold_of(group: str, folds: int, seed: int | str = 0) -> int:
    """A stable fold number in ``range(folds)`` for a source-document group.

    Hashes like :func:`split_by_group` (stable across runs and Python versions); callers that
    need folds independent of another caller's pass a distinct ``seed`` (e.g. ``"localizer:0"``).
    """
    return int(_group_digest(group, seed), 16) % folds


def split_by_group(
    rows: Sequence[EvalRow], tune_frac: float, *, seed: int = 0
) -> tuple[list[EvalRow], list[EvalRow]]:
    """Split rows into (tune, report) halves so that no :attr:`EvalRow.group` is on both sides.

    Groups are ordered by a seeded hash (stable across runs and Python versions), and the first
    ``tune_frac`` of *rows* (rounded at group boundaries) goes to the tune side.
    """
    if not 0.0 < tune_frac < 1.0:
        raise ConfigError(f"holdout fraction must be between 0 and 1 (exclusive), got {tune_frac}")
    groups: dict[str, list[EvalRow]] = {}
    for row in rows:
        groups.setdefault(row.group, []).append(row)
    if len(groups) < 2:
        raise ConfigError("cannot split: all rows share one source group")

    def key(name: str) -> str:
        return _group_digest(name, seed)

    tune: list[EvalRow] = []
    report: list[EvalRow] = []
    want = tune_frac * len(rows)
    for name in sorted(groups, key=key):
        members = groups[name]
        side = tune if len(tune) + len(members) / 2 <= want else report
        side.extend(members)
    if not tune or not report:
        raise ConfigError("split left one side empty; use more rows or another fraction")
    order = {row.id: i for i, row in enumerate(rows)}
    tune.sort(key=lambda r: order[r.id])
    report.sort(key=lambda r: order[r.id])
    return tune, report
