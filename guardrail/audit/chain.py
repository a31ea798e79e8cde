"""The hash chain: canonical JSON, record hashes, and verifying a whole log.

Each line's ``hash`` is ``sha256`` of the canonical JSON of that line's object *without* the
``hash`` key — which still contains ``seq`` and ``prev_hash`` (the previous line's hash, or
:data:`GENESIS_HASH` on line 1). Changing, removing, inserting or reordering a line therefore
breaks either that line's own hash or the link from the next line.

Canonical JSON is ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
allow_nan=False)`` encoded as UTF-8. The verifier also requires every line to *be* in that
form byte for byte, so even an edit that leaves the parsed value unchanged (``1e-05`` written
as ``1E-05``, an added space) is reported.

What a chain cannot show on its own: whole records cut off the end at a line boundary, the
last records rewritten and re-hashed, or records appended by anyone who can write the file
(there is no secret key). Keep :attr:`VerifyReport.head_hash` somewhere the log's writer
cannot change (a ticket, another system's log) and pass it back as ``anchor`` next time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from pydantic import BaseModel, ConfigDict

from guardrail.canonical import canonical_json
from guardrail.exceptions import AuditError, AuditIntegrityError

#: ``prev_hash`` of the first record of a log.
GENESIS_HASH = "0" * 64


def record_hash(body: Mapping[str, Any]) -> str:
    """sha256 hex of the canonical JSON of ``body`` minus its ``hash`` key."""
    unsealed = {k: v for k, v in body.items() if k != "hash"}
    return hashlib.sha256(canonical_json(unsealed).encode("utf-8")).hexdigest()


class LinkError(ValueError):
    """A line is not a well-formed chain link; the message says why."""


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


@dataclass(frozen=True)
class Link:
    """The chain-relevant facts of one parsed line."""

    seq: int
    prev_hash: str
    hash: str
    audit_id: str | None
    computed_hash: str
    canonical: bool


def parse_link(line: bytes) -> Link:
    """Parse one line (without its newline). Raises :class:`LinkError` when malformed."""
    if not line:
        raise LinkError("malformed JSON: empty line")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LinkError(f"malformed JSON: not valid UTF-8 at byte {exc.start}") from None
    try:
        obj = json.loads(text, parse_constant=_no_constants)
    except RecursionError:
        raise LinkError("malformed JSON: nested too deeply") from None
    except ValueError as exc:
        raise LinkError(f"malformed JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise LinkError(f"malformed JSON: expected an object, got {type(obj).__name__}")
    seq, prev, stored = obj.get("seq"), obj.get("prev_hash"), obj.get("hash")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise LinkError("malformed record: 'seq' is missing or not an integer")
    if not isinstance(prev, str) or not isinstance(stored, str):
        raise LinkError("malformed record: 'prev_hash' or 'hash' is missing or not a string")
    audit_id = obj.get("audit_id")
    try:
        computed, canonical = record_hash(obj), canonical_json(obj)
    except ValueError:  # e.g. 1e999 parses as inf, which canonical JSON cannot hold
        raise LinkError("malformed JSON: a number is out of range") from None
    return Link(
        seq=seq,
        prev_hash=prev,
        hash=stored,
        audit_id=audit_id if isinstance(audit_id, str) else None,
        computed_hash=computed,
        canonical=canonical == text,
    )


class VerifyReport(BaseModel):
    """The outcome of :func:`verify_log`.

    ``records`` counts the intact records before the first bad line (all of them when
    ``ok``); ``intact_bytes`` is where that intact prefix ends in the file, so truncating
    the file to it removes the bad line and everything after it. ``first_bad_line`` is
    ``None`` when every line is sound but the ``anchor`` asked for is missing.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    ok: bool
    records: int
    first_bad_line: int | None = None
    audit_id: str | None = None
    problem: str | None = None
    head_hash: str = GENESIS_HASH
    intact_bytes: int = 0

    def raise_for_problem(self) -> None:
        """Raise :class:`AuditIntegrityError` naming the first bad line, if there is one."""
        if not self.ok:
            raise AuditIntegrityError(
                f"{self.path}: {self.describe()}", line=self.first_bad_line or 0
            )

    def describe(self) -> str:
        """One line for people: where the chain breaks and why, or that it is intact."""
        if self.ok:
            return f"{self.records} records, chain intact"
        if self.first_bad_line is None:
            return str(self.problem)
        where = f"line {self.first_bad_line} (audit_id {self.audit_id or 'unknown'})"
        return f"{where}: {self.problem}"


class LineSource(Protocol):
    """Where a chain's lines come from, in order, each ending in ``\\n``: a JSON Lines file
    (:class:`FileLines`) or a database table (``guardrail.audit.pg_log``). The verifier reads
    them through :meth:`lines`, and again from the start to explain a broken link."""

    @property
    def name(self) -> str: ...

    def lines(self) -> AbstractContextManager[Iterable[bytes]]: ...


@dataclass(frozen=True)
class FileLines:
    """The lines of an audit log file."""

    path: Path

    @property
    def name(self) -> str:
        return str(self.path)

    @contextmanager
    def lines(self) -> Iterator[BinaryIO]:
        try:
            with self.path.open("rb") as fh:
                yield fh
        except OSError as exc:
            raise AuditError(f"cannot read audit log {self.path}: {exc}") from exc


def _find_seq(source: LineSource, wanted: int, after_line: int) -> int | None:
    """The line number after ``after_line`` whose record has ``seq == wanted``, if any."""
    with source.lines() as lines:
        for number, raw in enumerate(lines, start=1):
            if number <= after_line:
                continue
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            if isinstance(obj, dict) and obj.get("seq") == wanted:
                return number
    return None


def _links_to(source: LineSource, line: int, wanted_prev: str) -> bool:
    """Whether line number ``line`` exists and its ``prev_hash`` is ``wanted_prev``."""
    with source.lines() as lines:
        for number, raw in enumerate(lines, start=1):
            if number == line:
                try:
                    return parse_link(raw.rstrip(b"\n")).prev_hash == wanted_prev
                except LinkError:
                    return False
    return False


@dataclass
class _Walk:
    """State carried from line to line: the last two hashes, ids and offsets."""

    prev_hash: str = GENESIS_HASH
    prev_prev_hash: str | None = None
    prev_audit_id: str | None = None
    offset: int = 0
    prev_offset: int = 0


def _diagnose(source: LineSource, n: int, link: Link, walk: _Walk) -> tuple[int, str | None, str]:
    """Explain a broken link at line ``n``: (first bad line, its audit id, problem)."""
    if link.hash == walk.prev_hash:
        return n, link.audit_id, f"duplicate of line {n - 1} (a record was copied or replayed)"
    if n >= 2 and link.seq == n - 1 and link.prev_hash == walk.prev_prev_hash:
        # Lines n-1 and n both claim to follow line n-2: one was inserted. If the rest of the
        # log links on from line n, line n is the original and line n-1 the intruder.
        if _links_to(source, n + 1, link.hash):
            return (
                n - 1,
                walk.prev_audit_id,
                f"inserted record: line {n} (seq {link.seq}) and the lines after it chain onto "
                f"line {n - 2}, so line {n - 1} is not part of the original chain",
            )
        return (
            n - 1,
            walk.prev_audit_id,
            f"inserted record: lines {n - 1} and {n} both claim seq {n - 1} after line {n - 2}; "
            "one of them is not part of the original chain",
        )
    if link.seq == n:
        return (
            n,
            link.audit_id,
            f"prev_hash does not match the hash of line {n - 1}: line {n - 1} was replaced, "
            "or this record was edited and re-hashed",
        )
    if link.seq > n:
        found = _find_seq(source, n, after_line=n)
        if found is not None:
            return (
                n,
                link.audit_id,
                f"reordered: expected seq {n}, found seq {link.seq}; seq {n} is at line {found}",
            )
        missing = link.seq - n
        return (
            n,
            link.audit_id,
            f"seq gap: expected seq {n}, found seq {link.seq} "
            f"({missing} record{'s' if missing > 1 else ''} removed before this line)",
        )
    return (
        n,
        link.audit_id,
        f"reordered or duplicated: expected seq {n}, found seq {link.seq}, "
        f"which line {link.seq} already holds",
    )


def verify_log(path: str | Path, *, anchor: str | None = None) -> VerifyReport:
    """Check every line of an audit log and report the first one that breaks the chain.

    ``anchor`` is a ``head_hash`` from an earlier verification, kept outside the log. When
    given, the log must still contain a record with that hash; this catches what the chain
    alone cannot: records cut off the end, or the tail rewritten and re-hashed.

    Raises :class:`AuditError` when the file cannot be read (missing, a directory, no
    permission); a readable but broken log is a report with ``ok=False``, not an exception.
    """
    path = Path(path)
    if not path.is_file():
        raise AuditError(f"audit log not found: {path}")
    return verify_lines(FileLines(path), anchor=anchor)


def verify_lines(source: LineSource, *, anchor: str | None = None) -> VerifyReport:
    """:func:`verify_log` over any :class:`LineSource` (a file, a PostgreSQL table)."""
    with source.lines() as lines:
        report, seen_anchor = _walk_lines(source, lines, anchor)
    if report.ok and anchor is not None and not seen_anchor:
        return report.model_copy(
            update={
                "ok": False,
                "problem": f"anchor {anchor} not found: records at or before the anchored one "
                "were removed, or the log was rewritten",
            }
        )
    return report


def _walk_lines(
    source: LineSource, lines: Iterable[bytes], anchor: str | None
) -> tuple[VerifyReport, bool]:
    walk = _Walk()
    n = 0
    seen_anchor = anchor == GENESIS_HASH

    def bad(line: int, audit_id: str | None, problem: str) -> tuple[VerifyReport, bool]:
        back = line < n  # the problem was found one line later (an inserted record)
        report = VerifyReport(
            path=source.name,
            ok=False,
            records=line - 1,
            first_bad_line=line,
            audit_id=audit_id,
            problem=problem,
            head_hash=(walk.prev_prev_hash or GENESIS_HASH) if back else walk.prev_hash,
            intact_bytes=walk.prev_offset if back else walk.offset,
        )
        return report, seen_anchor

    for raw in lines:
        n += 1
        if not raw.endswith(b"\n"):
            return bad(
                n,
                None,
                f"truncated: the last line has no newline ({len(raw)} bytes of a partial "
                "write, e.g. a crash mid-append)",
            )
        try:
            link = parse_link(raw[:-1])
        except LinkError as exc:
            return bad(n, None, str(exc))
        if link.computed_hash != link.hash:
            return bad(n, link.audit_id, "hash mismatch: the record was altered after writing")
        if not link.canonical:
            return bad(
                n, link.audit_id, "not canonical JSON: the line was re-encoded or hand-edited"
            )
        if link.seq != n or link.prev_hash != walk.prev_hash:
            return bad(*_diagnose(source, n, link, walk))
        seen_anchor = seen_anchor or link.hash == anchor
        walk.prev_prev_hash, walk.prev_hash = walk.prev_hash, link.hash
        walk.prev_audit_id = link.audit_id
        walk.prev_offset, walk.offset = walk.offset, walk.offset + len(raw)
    report = VerifyReport(
        path=source.name, ok=True, records=n, head_hash=walk.prev_hash, intact_bytes=walk.offset
    )
    return report, seen_anchor
