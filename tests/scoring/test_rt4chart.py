"""RT4CHART: chunking, joins, verdict parsing, adaptive global prompts, evidence and spans."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guardrail.exceptions import ConfigError, JudgeRequestError, ScoringError
from guardrail.judges import JudgeRequest, RetryPolicy, ScriptedJudge
from guardrail.scoring.rt4chart import (
    RT4Chart,
    RTLabel,
    and_join,
    chunk_ranges,
    cited_sentences,
    claim_spans,
    or_join,
    parse_rt_verdict,
)
from guardrail.scoring.settings import RT4ChartConfig
from guardrail.text.sentences import split_sentences

E, C, N = RTLabel.ENTAILED, RTLabel.CONTRADICTED, RTLabel.BASELESS

# The paper's running example (Figure 1, Table 1): four context sentences, W=2, O=1.
CONTEXT = [
    "The policy applies only to verified users. Verification is required for every account.",
    "The free trial lasts 14 days. New users who verify their account get a one-time extension "
    "of 7 days.",
]
ANSWER = (
    "The policy applies to all users, and verification is not required. "
    "The free trial lasts 14 days. "
    "Verified new users can receive a one-time 7-day extension of the free trial. "
    "The trial includes priority email support."
)
CLAIMS = {
    0: ["The policy applies to all users.", "Verification is not required."],
    1: ["The free trial lasts 14 days."],
    2: ["Verified new users can receive a one-time 7-day extension of the free trial."],
    3: ["The trial includes priority email support."],
}
CLAIM_TEXTS = [c for i in sorted(CLAIMS) for c in CLAIMS[i]]
# Table 1: chunk votes per claim, then the global verdict.
LOCAL = {
    CLAIM_TEXTS[0]: ["CONTRADICTED", "CONTRADICTED", "BASELESS"],
    CLAIM_TEXTS[1]: ["CONTRADICTED", "CONTRADICTED", "BASELESS"],
    CLAIM_TEXTS[2]: ["BASELESS", "ENTAILED", "ENTAILED"],
    CLAIM_TEXTS[3]: ["BASELESS", "BASELESS", "BASELESS"],
    CLAIM_TEXTS[4]: ["BASELESS", "BASELESS", "BASELESS"],
}
GLOBAL = {
    CLAIM_TEXTS[0]: "CONTRADICTED. [0] says the policy applies only to verified users.",
    CLAIM_TEXTS[1]: "CONTRADICTED. [1] says verification is required.",
    CLAIM_TEXTS[2]: "ENTAILED. [2] states the trial lasts 14 days.",
    CLAIM_TEXTS[3]: "ENTAILED. Sentences [2] and [3] together give the extension.",
    CLAIM_TEXTS[4]: "BASELESS. Nothing about email support.",
}


def table1_handler(request: JudgeRequest) -> str:
    if request.task == "claims":
        return json.dumps(CLAIMS[request.inputs["sentence_index"]])
    if request.task == "local_verify":
        vote = LOCAL[request.inputs["claim"]][request.inputs["chunk_index"]]
        return f"{vote}. chunk {request.inputs['chunk_index']}"
    if request.task == "global_verify":
        return GLOBAL[request.inputs["claim"]]
    raise AssertionError(f"unexpected task {request.task}")


def scorer(handler=table1_handler, **kwargs) -> tuple[RT4Chart, ScriptedJudge]:
    judge = ScriptedJudge(handler)
    kwargs.setdefault("window", 2)
    kwargs.setdefault("overlap", 1)
    retry = RetryPolicy(backoff_base_s=0.0, max_attempts=1)
    return RT4Chart(judge, RT4ChartConfig(**kwargs), retry=retry), judge


# --- chunking -----------------------------------------------------------------------------------


def test_chunking_reproduces_paper_table1_windows():
    """Four sentences with W=2, O=1 give {s0,s1}, {s1,s2}, {s2,s3}."""
    assert [list(r) for r in chunk_ranges(4, 2, 1)] == [[0, 1], [1, 2], [2, 3]]


def test_chunking_default_window_and_overlap():
    """The paper default (25, 10) on 30 sentences gives two windows sharing ten sentences."""
    assert [(r.start, r.stop) for r in chunk_ranges(30, 25, 10)] == [(0, 25), (15, 30)]
    assert [(r.start, r.stop) for r in chunk_ranges(7, 25, 10)] == [(0, 7)]
    assert chunk_ranges(0, 25, 10) == []


@given(n=st.integers(1, 200), window=st.integers(1, 40), data=st.data())
def test_chunking_covers_every_sentence_with_the_given_overlap(n, window, data):
    """Every sentence is in a window, windows are <= W long, neighbours share exactly O."""
    overlap = data.draw(st.integers(0, window - 1))
    chunks = chunk_ranges(n, window, overlap)
    covered = set().union(*(set(r) for r in chunks))
    assert covered == set(range(n))
    assert all(0 < len(r) <= window for r in chunks)
    for a, b in itertools.pairwise(chunks):
        assert len(set(a) & set(b)) == min(overlap, len(b))
        assert b.start - a.start == window - overlap


@pytest.mark.parametrize(("window", "overlap"), [(0, 0), (5, 5), (5, -1), (3, 7)])
def test_chunking_rejects_bad_window_or_overlap(window, overlap):
    """Window < 1 or overlap outside [0, W) is a configuration error, also at construction."""
    with pytest.raises(ConfigError):
        chunk_ranges(10, window, overlap)
    with pytest.raises(ConfigError):
        RT4Chart(ScriptedJudge(lambda r: ""), RT4ChartConfig(window=window, overlap=overlap))


# --- joins and parsing --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("votes", "local"),
    [
        ([C, C, N], C),
        ([N, E, E], E),
        ([N, N, N], N),
        ([E, C], C),  # contradiction dominates
        ([E, N, E], E),  # one supporting chunk suffices
    ],
)
def test_or_join_follows_paper_priority(votes, local):
    """OR-join: Con if any Con, else Ent if any Ent, else Nic (paper Sec. 3.4)."""
    assert or_join(votes) == local


@given(st.lists(st.sampled_from(list(RTLabel)), min_size=1))
def test_and_join_is_the_strictest_label(labels):
    """AND-join: Con if any Con, else Nic if any Nic, else Ent (paper Sec. 3.6)."""
    expected = C if C in labels else N if N in labels else E
    assert and_join(labels) == expected


@pytest.mark.parametrize(
    ("text", "label", "reason", "failed"),
    [
        ("ENTAILED. [3] says so.", E, "[3] says so.", False),
        ("contradicted: the date differs", C, "the date differs", False),
        ("Answer: BASELESS. nothing there", N, "nothing there", False),
        ("**CONTRADICTED** - wrong year", C, "wrong year", False),
        ("Label: Not in context. absent", N, "absent", True),
        ("Entailment. fine", E, "fine", True),
        ("The claim is not entailed by the excerpt.", N, "by the excerpt.", True),
        ("I think it is CONTRADICTED by [2].", C, "by [2].", True),
        ("no idea", N, "no idea", True),
        ("", N, "", True),
        # Unicode case folding must not make look-alikes match (KeyError on the alias table)
        ("ENTA\u0130LED. dotted capital I", N, "ENTA\u0130LED. dotted capital I", True),
        ("contradi\u0130ction", N, "contradi\u0130ction", True),
        ("ba\u017fele\u017f\u017f", N, "", True),  # upper() makes it BASELESS
    ],
)
def test_parse_rt_verdict_formats(text, label, reason, failed):
    """Labels are read first-word or anywhere; anything else falls back to BASELESS, recorded."""
    got_label, got_reason, failure = parse_rt_verdict(text)
    assert got_label == label
    assert got_reason == reason
    assert (failure is not None) == failed


@given(st.text())
def test_parse_rt_verdict_never_raises(text):
    """Any judge output yields a label and a short reason."""
    label, reason, _ = parse_rt_verdict(text)
    assert label in RTLabel
    assert len(reason) <= 300


def test_cited_sentences_keeps_only_allowed_indices():
    """Citations outside the sentence range are ignored, duplicates dropped."""
    assert cited_sentences("[2] and sentence 5, again [2], and [99]", range(6)) == [2, 5]


# --- sentences and spans ------------------------------------------------------------------------


def test_claim_spans_narrow_to_the_claims_words_or_keep_the_sentence():
    """A claim whose words are in its sentence gets their runs; a paraphrase gets the sentence."""
    answer = "Sure. The free trial lasts 14 days and includes priority support."
    sentence = split_sentences(answer, rules="prose")[1]
    spans = claim_spans("The trial lasts 14 days.", answer, sentence)
    assert [answer[s:e] for s, e in spans] == ["trial lasts 14 days"]
    assert claim_spans("A fortnight of testing is offered.", answer, sentence) == [sentence]
    assert claim_spans("The trial lasts 14 days.", answer, sentence, refine=False) == [sentence]


# --- the scorer end to end ----------------------------------------------------------------------


async def test_table1_example_labels_score_and_call_counts():
    """The running example: claim labels, AND-join CONTRADICTED, calls per sentence, pair, claim."""
    rt, judge = scorer()
    report = await rt.score("What does the trial include?", ANSWER, CONTEXT)
    trace = report.settings["claims"]
    assert [t["local"] for t in trace] == ["CONTRADICTED", "CONTRADICTED", "ENTAILED"] + [
        "BASELESS"
    ] * 2
    assert [t["final"] for t in trace] == [
        "CONTRADICTED",
        "CONTRADICTED",
        "ENTAILED",
        "ENTAILED",
        "BASELESS",
    ]
    assert report.settings["answer_label"] == "CONTRADICTED"
    assert [f.score for f in report.factoids] == [1.0, 1.0, 0.0, 0.0, 0.5]
    assert report.score == 1.0 and report.flagged and report.method == "rt4chart"
    tasks = [r.task for r in judge.requests]
    assert tasks.count("claims") == 4  # one per answer sentence
    assert tasks.count("local_verify") == 5 * 3  # claims x chunks
    assert tasks.count("global_verify") == 5
    assert report.usage.judge_calls == len(report.calls) == 24
    assert [s.stage for s in report.usage.stages] == ["claims", "local_verify", "global_verify"]
    assert [s.calls for s in report.usage.stages] == [4, 15, 5]


async def test_global_prompts_adapt_to_the_local_label():
    """Nic claims get the full context and no hint; Ent/Con claims get their focus chunk."""
    rt, judge = scorer()
    await rt.score("q", ANSWER, CONTEXT)
    globals_ = {r.inputs["claim"]: r for r in judge.requests if r.task == "global_verify"}
    nic = globals_[CLAIM_TEXTS[3]]
    assert nic.inputs["hint"] == "" and nic.inputs["local_label"] == "BASELESS"
    assert "Hint" not in nic.prompt and "search from scratch" in nic.prompt
    con = globals_[CLAIM_TEXTS[0]]  # first Con vote is chunk 0 = {s0, s1}
    assert con.inputs["hint_sentence_ids"] == [0, 1]
    assert "a contradiction of the claim" in con.prompt
    ent = globals_[CLAIM_TEXTS[2]]  # first Ent vote is chunk 1 = {s1, s2}
    assert ent.inputs["hint_sentence_ids"] == [1, 2]
    assert ent.inputs["hint"] == "Verification is required for every account. " + (
        "The free trial lasts 14 days."
    )
    assert "found support for the claim" in ent.prompt
    for request in globals_.values():
        assert "[3] New users who verify" in request.prompt  # the full, numbered context


async def test_evidence_comes_from_citations_and_baseless_has_none():
    """Cited sentences become evidence as '[i] text'; BASELESS claims carry none (Eq. 1)."""
    rt, _ = scorer()
    report = await rt.score("q", ANSWER, CONTEXT)
    by_text = {f.text: f for f in report.factoids}
    assert by_text[CLAIM_TEXTS[3]].evidence == [
        "[2] The free trial lasts 14 days.",
        "[3] New users who verify their account get a one-time extension of 7 days.",
    ]
    assert by_text[CLAIM_TEXTS[1]].evidence == ["[1] Verification is required for every account."]
    assert by_text[CLAIM_TEXTS[4]].evidence == []


async def test_evidence_falls_back_to_best_matching_sentence_when_nothing_is_cited():
    """A verdict citing no sentence gets the focus-chunk sentence sharing most words."""

    def handler(request: JudgeRequest) -> str:
        if request.task == "global_verify":
            return GLOBAL[request.inputs["claim"]].split(".")[0] + ". see above"
        return table1_handler(request)

    rt, _ = scorer(handler)
    report = await rt.score("q", ANSWER, CONTEXT)
    trial = next(f for f in report.factoids if f.text == CLAIM_TEXTS[2])
    assert trial.evidence == ["[2] The free trial lasts 14 days."]


async def test_answer_spans_point_into_the_claims_sentence():
    """Each claim's span lies in its source sentence; flagged spans cover only flagged claims."""
    rt, _ = scorer()
    report = await rt.score("q", ANSWER, CONTEXT)
    sentences = split_sentences(ANSWER, rules="prose")
    for factoid, t in zip(report.factoids, report.settings["claims"], strict=True):
        (s, e) = factoid.spans[0]
        ss, se = sentences[t["sentence"]]
        assert ss <= s < e <= se
    flagged_text = " | ".join(report.flagged_text(ANSWER))
    assert "priority email support" in flagged_text
    assert "14 days" not in flagged_text


async def test_unrefined_spans_are_whole_sentences():
    """refine_spans=False localizes each claim to its full pointer sentence."""
    rt, _ = scorer(refine_spans=False)
    report = await rt.score("q", ANSWER, CONTEXT)
    sentences = split_sentences(ANSWER, rules="prose")
    assert report.factoids[4].spans == [sentences[3]]


async def test_threshold_above_baseless_score_flags_contradictions_only():
    """With threshold 0.75 a baseless-only answer passes and a contradicted one is flagged."""

    def baseless(request: JudgeRequest) -> str:
        if request.task == "claims":
            return '["The trial includes priority email support."]'
        return "BASELESS. not mentioned"

    rt, _ = scorer(baseless)
    assert (await rt.score("q", "The trial includes email support.", CONTEXT)).flagged
    report = await rt.score("q", "The trial includes email support.", CONTEXT, threshold=0.75)
    assert report.score == 0.5 and not report.flagged and report.flagged_spans == []


async def test_without_global_verification_local_labels_are_final():
    """The paper's ablation: no global calls, claim 4 stays BASELESS."""
    rt, judge = scorer(global_verification=False)
    report = await rt.score("q", ANSWER, CONTEXT)
    assert not any(r.task == "global_verify" for r in judge.requests)
    assert [t["final"] for t in report.settings["claims"]][3] == "BASELESS"


async def test_parse_failures_are_recorded_on_the_calls():
    """An unparsable local verdict counts as BASELESS and is recorded as a parse failure."""

    def handler(request: JudgeRequest) -> str:
        if request.task == "local_verify":
            return "hmm, hard to say"
        return table1_handler(request)

    rt, _ = scorer(handler)
    report = await rt.score("q", ANSWER, CONTEXT)
    failed = [c for c in report.calls if c.parse_failure]
    assert len(failed) == 15 and all(c.stage == "local_verify" for c in failed)
    assert report.usage.parse_failures == 15


async def test_failed_judge_call_raises_scoring_error_with_calls():
    """A call that fails for good fails the answer, keeping every call made so far."""

    def handler(request: JudgeRequest) -> str:
        if request.task == "local_verify" and request.inputs["chunk_index"] == 1:
            raise JudgeRequestError("bad request", status_code=400)
        return table1_handler(request)

    rt, _ = scorer(handler)
    with pytest.raises(ScoringError) as info:
        await rt.score("q", ANSWER, CONTEXT)
    calls = info.value.calls
    assert len(calls) == 4 + 15
    assert sum(1 for c in calls if not c.ok) == 5


async def test_empty_answer_and_empty_context():
    """No answer: no calls. No context: claims are made but all BASELESS without verifying."""
    rt, judge = scorer()
    empty = await rt.score("q", "   ", CONTEXT)
    assert empty.status == "empty_answer" and judge.calls == 0 and not empty.flagged
    report = await rt.score("q", ANSWER, ["", "  "])
    assert report.status == "empty_context"
    assert {f.score for f in report.factoids} == {0.5}
    assert all(r.task == "claims" for r in judge.requests)


async def test_no_claims_means_unverifiable():
    """An answer whose sentences hold no claims is not flagged."""
    rt, _ = scorer(lambda r: "[]")
    report = await rt.score("q", "Hello there!", CONTEXT)
    assert report.status == "unverifiable" and report.score == 0.0 and not report.flagged


async def test_stage_calls_run_concurrently():
    """Fifteen local calls of 50 ms each finish in well under their serial time."""
    judge = ScriptedJudge(table1_handler, latency_s=0.05)
    rt = RT4Chart(judge, RT4ChartConfig(window=2, overlap=1))
    started = time.perf_counter()
    await rt.score("q", ANSWER, CONTEXT)
    elapsed = time.perf_counter() - started
    assert elapsed < 24 * 0.05 / 2  # 24 calls serially would take 1.2 s


def test_report_round_trips_through_json():
    """The report (with its claim trace in settings) survives model_dump/model_validate."""
    from guardrail.models import ScoreReport

    rt, _ = scorer()
    report = asyncio.run(rt.score("q", ANSWER, CONTEXT))
    again = ScoreReport.model_validate_json(report.model_dump_json())
    assert again == report
