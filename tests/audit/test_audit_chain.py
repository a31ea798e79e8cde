"""verify_log: every kind of tampering is caught, at the right line, with the right reason."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from audit_factories import make_result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guardrail.audit import GENESIS_HASH, AuditLog, AuditRecord, canonical_json, verify_log
from guardrail.audit.chain import record_hash
from guardrail.exceptions import AuditError, AuditIntegrityError

WriteLog = Callable[..., Path]


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _rewrite(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(lines))


def _forge(obj: dict) -> bytes:
    """Re-seal a record the way a careful forger would: a self-consistent hash."""
    obj = dict(obj)
    obj["hash"] = record_hash(obj)
    return (canonical_json(obj) + "\n").encode("utf-8")


def test_intact_log_verifies(write_log: WriteLog):
    """An untouched log is ok, counts every record and reports the last hash as head."""
    path = write_log(5)
    report = verify_log(path)
    last = json.loads(_lines(path)[-1])
    assert report.ok and report.records == 5 and report.first_bad_line is None
    assert report.head_hash == last["hash"] and report.intact_bytes == path.stat().st_size
    report.raise_for_problem()  # no exception


def test_first_record_chains_from_genesis(write_log: WriteLog):
    """Line 1 has seq 1 and the all-zero genesis prev_hash; each line links to the previous."""
    lines = [json.loads(x) for x in _lines(write_log(3))]
    assert lines[0]["seq"] == 1 and lines[0]["prev_hash"] == GENESIS_HASH
    assert [x["seq"] for x in lines] == [1, 2, 3]
    assert lines[1]["prev_hash"] == lines[0]["hash"] and lines[2]["prev_hash"] == lines[1]["hash"]


def test_empty_log_is_ok(tmp_path: Path):
    """An empty file is an intact chain of zero records."""
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    report = verify_log(path)
    assert report.ok and report.records == 0 and report.head_hash == GENESIS_HASH


def test_altered_field_is_caught_at_that_line(write_log: WriteLog):
    """Changing one value of line 3 (score 0.92 -> 0.12) is a hash mismatch at line 3."""
    path = write_log(5)
    lines = _lines(path)
    obj = json.loads(lines[2])
    obj["score"] = 0.12
    lines[2] = (canonical_json(obj) + "\n").encode()
    _rewrite(path, lines)
    report = verify_log(path)
    assert not report.ok and report.first_bad_line == 3 and report.records == 2
    assert report.audit_id == obj["audit_id"]
    assert report.problem is not None and report.problem.startswith("hash mismatch")
    assert report.intact_bytes == len(lines[0]) + len(lines[1])


def test_altered_and_resealed_record_breaks_the_next_link(write_log: WriteLog):
    """Editing line 2 and recomputing its hash is caught: line 3 no longer links to it."""
    path = write_log(4)
    lines = _lines(path)
    obj = json.loads(lines[1])
    obj["decision"]["action"] = "pass"
    lines[1] = _forge(obj)
    _rewrite(path, lines)
    report = verify_log(path)
    assert not report.ok and report.first_bad_line == 3
    assert report.problem is not None and "prev_hash does not match" in report.problem


def test_deleted_middle_line_is_caught(write_log: WriteLog):
    """Removing line 3 of 5 is a seq gap reported at the line now in its place."""
    path = write_log(5)
    lines = _lines(path)
    del lines[2]
    _rewrite(path, lines)
    report = verify_log(path)
    assert not report.ok and report.first_bad_line == 3 and report.records == 2
    assert report.problem is not None and report.problem.startswith("seq gap")
    assert "expected seq 3, found seq 4" in report.problem


def test_deleted_first_line_is_caught(write_log: WriteLog):
    """Removing line 1 is caught even though no earlier line exists to link from."""
    path = write_log(3)
    _rewrite(path, _lines(path)[1:])
    report = verify_log(path)
    assert not report.ok and report.first_bad_line == 1 and report.records == 0


def test_inserted_forged_line_is_caught_even_with_a_valid_hash(write_log: WriteLog):
    """A forged record with correct seq, prev_hash and hash inserted at line 3 is named."""
    path = write_log(5)
    lines = _lines(path)
    prev = json.loads(lines[1])
    forged = json.loads(lines[2])
    forged.update(audit_id="forged", seq=3, prev_hash=prev["hash"], score=0.01)
    lines.insert(2, _forge(forged))
    _rewrite(path, lines)
    # The forged line itself is self-consistent ...
    assert json.loads(lines[2])["hash"] == record_hash(json.loads(lines[2]))
    report = verify_log(path)
    # ... but the original line 3, now line 4, chains onto line 2, exposing line 3.
    assert not report.ok and report.first_bad_line == 3 and report.audit_id == "forged"
    assert report.problem is not None and report.problem.startswith("inserted record")
    assert report.records == 2 and report.intact_bytes == len(lines[0]) + len(lines[1])


def test_duplicated_line_is_caught(write_log: WriteLog):
    """A record copied right after itself is reported as a duplicate at the copy."""
    path = write_log(3)
    lines = _lines(path)
    lines.insert(2, lines[1])
    _rewrite(path, lines)
    report = verify_log(path)
    assert not report.ok and report.first_bad_line == 3
    assert report.problem is not None and report.problem.startswith("duplicate")


def test_reordered_lines_are_caught(write_log: WriteLog):
    """Swapping lines 2 and 3 is reported as reordering at line 2, naming where seq 2 went."""
    path = write_log(4)
    lines = _lines(path)
    lines[1], lines[2] = lines[2], lines[1]
    _rewrite(path, lines)
    report = verify_log(path)
    assert not report.ok and report.first_bad_line == 2
    assert report.problem == "reordered: expected seq 2, found seq 3; seq 2 is at line 3"


def test_truncated_last_line_is_caught(write_log: WriteLog):
    """A partial last line (crash mid-write) is reported as truncated, with the recovery offset."""
    path = write_log(3)
    data = path.read_bytes()
    path.write_bytes(data[:-40])
    report = verify_log(path)
    assert not report.ok and report.first_bad_line == 3 and report.records == 2
    assert report.problem is not None and report.problem.startswith("truncated")
    assert report.intact_bytes == sum(len(x) for x in _lines(path)[:2])
    # Truncating to the reported offset restores an intact (shorter) chain.
    with path.open("r+b") as fh:
        fh.truncate(report.intact_bytes)
    assert verify_log(path).ok and verify_log(path).records == 2


def test_missing_final_newline_is_caught(write_log: WriteLog):
    """A last line that is complete JSON but lacks its newline still counts as torn."""
    path = write_log(2)
    path.write_bytes(path.read_bytes()[:-1])
    report = verify_log(path)
    assert not report.ok and report.first_bad_line == 2


def test_malformed_json_is_caught(write_log: WriteLog):
    """Garbage and blank lines are reported as malformed JSON at their line."""
    path = write_log(3)
    lines = _lines(path)
    _rewrite(path, [*lines[:1], b"{not json\n", *lines[1:]])
    report = verify_log(path)
    assert report.first_bad_line == 2 and (report.problem or "").startswith("malformed JSON")
    _rewrite(path, [*lines[:2], b"\n", *lines[2:]])
    assert verify_log(path).first_bad_line == 3


def test_out_of_range_number_is_malformed_not_a_crash(write_log: WriteLog):
    """A number that parses as infinity (1e999) is reported as malformed, not raised."""
    path = write_log(2)
    lines = _lines(path)
    lines[1] = lines[1].replace(b'"score":0.92', b'"score":1e999', 1)
    _rewrite(path, lines)
    report = verify_log(path)
    assert report.first_bad_line == 2 and report.problem == (
        "malformed JSON: a number is out of range"
    )


def test_non_canonical_reencoding_is_caught(write_log: WriteLog):
    """Pretty-printing a line keeps its values and hash, but is still reported."""
    path = write_log(2)
    lines = _lines(path)
    lines[1] = (json.dumps(json.loads(lines[1]), sort_keys=True) + "\n").encode()
    _rewrite(path, lines)
    report = verify_log(path)
    assert report.first_bad_line == 2 and (report.problem or "").startswith("not canonical")


def test_raise_for_problem_raises_integrity_error(write_log: WriteLog):
    """A broken report turns into AuditIntegrityError carrying the line."""
    path = write_log(3)
    _rewrite(path, _lines(path)[::-1])
    with pytest.raises(AuditIntegrityError) as info:
        verify_log(path).raise_for_problem()
    assert info.value.line == 1


def test_missing_file_is_an_audit_error(tmp_path: Path):
    """verify_log on a path that does not exist raises AuditError, not FileNotFoundError."""
    with pytest.raises(AuditError, match="not found"):
        verify_log(tmp_path / "nope.jsonl")


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(question=_TEXT, answer=_TEXT, data=st.data())
def test_any_single_byte_change_is_detected(
    tmp_path_factory: pytest.TempPathFactory, question: str, answer: str, data: st.DataObject
):
    """Replacing any one byte of a random record (newline included) fails verification."""
    path = tmp_path_factory.mktemp("prop") / "audit.jsonl"
    with AuditLog(path, fsync=False) as log:
        log.append(AuditRecord.event("start"))
        log.append(
            AuditRecord.from_result(make_result(question=question, answer=answer), policy_hash="h")
        )
        log.append(AuditRecord.event("stop"))
    raw = bytearray(path.read_bytes())
    assert verify_log(path).ok
    first_len = len(_lines(path)[0])
    second_len = len(_lines(path)[1])
    pos = data.draw(st.integers(first_len, first_len + second_len - 1), label="byte offset")
    new = data.draw(st.integers(0, 255).filter(lambda b: b != raw[pos]), label="new byte")
    raw[pos] = new
    path.write_bytes(bytes(raw))
    report = verify_log(path)
    assert not report.ok and report.first_bad_line == 2


def test_anchor_catches_a_cleanly_cut_tail(write_log: WriteLog):
    """Whole records removed from the end pass the chain but fail against a kept anchor."""
    path = write_log(4)
    anchor = verify_log(path).head_hash
    assert verify_log(path, anchor=anchor).ok
    _rewrite(path, _lines(path)[:3])
    assert verify_log(path).ok  # the chain alone cannot see it
    report = verify_log(path, anchor=anchor)
    assert not report.ok and report.first_bad_line is None and report.records == 3
    assert report.problem is not None and "anchor" in report.problem


def test_anchor_catches_a_resealed_last_record(write_log: WriteLog):
    """Rewriting and re-hashing the last record is caught by the anchor taken before."""
    path = write_log(3)
    anchor = verify_log(path).head_hash
    lines = _lines(path)
    obj = json.loads(lines[-1])
    obj["decision"]["action"] = "pass"
    lines[-1] = _forge(obj)
    _rewrite(path, lines)
    assert verify_log(path).ok
    assert not verify_log(path, anchor=anchor).ok


def test_anchor_survives_later_appends(write_log: WriteLog):
    """An anchor from an earlier verify stays valid while the log only grows."""
    path = write_log(2)
    anchor = verify_log(path).head_hash
    with AuditLog(path) as log:
        log.append(AuditRecord.event("later"))
    assert verify_log(path, anchor=anchor).ok
    assert verify_log(path, anchor=GENESIS_HASH).ok


def test_forged_line_before_the_last_is_reported_as_ambiguous(write_log: WriteLog):
    """With nothing after the pair to tell them apart, both suspects are named."""
    path = write_log(3)
    lines = _lines(path)
    forged = json.loads(lines[2])
    forged.update(audit_id="forged", score=0.0)
    lines.insert(2, _forge(forged))
    _rewrite(path, lines)
    report = verify_log(path)
    assert not report.ok and report.first_bad_line == 3 and report.records == 2
    assert report.problem == (
        "inserted record: lines 3 and 4 both claim seq 3 after line 2; "
        "one of them is not part of the original chain"
    )
