"""The review page's view logic: answer segments, colour buckets, evidence sentences."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from guardrail.models import Factoid, ScoreReport
from guardrail.server.render import (
    BUCKETS,
    answer_segments,
    factoid_views,
    passage_views,
    score_bucket,
)
from guardrail.server.samples import sample_case


def factoid(index, text, spans, score, evidence=(), flagged=False):
    return Factoid(index=index, text=text, spans=spans, aligned=bool(spans), alignment=1.0,
                   score=score, flagged=flagged, evidence=list(evidence))  # fmt: skip


def report(*factoids, flagged_spans=()):
    return ScoreReport(score=max(f.score for f in factoids), threshold=0.5, flagged=True,
                       factoids=list(factoids), flagged_spans=list(flagged_spans))  # fmt: skip


def test_score_bucket_edges():
    """0 is the greenest bucket, 1 the reddest; out-of-range scores are clamped."""
    assert score_bucket(0.0) == 0 and score_bucket(0.099) == 0 and score_bucket(0.1) == 1
    assert score_bucket(1.0) == BUCKETS - 1 and score_bucket(7) == BUCKETS - 1
    assert score_bucket(-1) == 0


def test_segments_cover_answer_and_take_max_score_on_overlap():
    """Overlapping factoid spans split the text; the overlap carries the higher score."""
    answer = "abcdefghij"
    rep = report(factoid(0, "x", [(0, 6)], 0.2), factoid(1, "y", [(4, 10)], 0.9),
                 flagged_spans=[(4, 10)])  # fmt: skip
    segs = answer_segments(answer, rep)
    assert "".join(s.text for s in segs) == answer
    assert [(s.text, s.factoids, s.score, s.flagged) for s in segs] == [
        ("abcd", (0,), 0.2, False),
        ("ef", (0, 1), 0.9, True),
        ("ghij", (1,), 0.9, True),
    ]
    assert [s.ends for s in segs] == [(), (0,), (1,)]


def test_segments_without_report_is_plain_text():
    """No report: the answer is one unhighlighted segment."""
    (seg,) = answer_segments("hello", None)
    assert seg.text == "hello" and seg.bucket is None


@given(
    st.text(min_size=0, max_size=40),
    st.lists(st.tuples(st.integers(-5, 50), st.integers(-5, 50), st.floats(0, 1)), max_size=5),
)
def test_segments_always_reassemble_the_answer(answer, raw):
    """Whatever the spans (even out of range), the segments concatenate to the answer."""
    fs = [factoid(i, "f", [(s, e)] if s < e else [], sc) for i, (s, e, sc) in enumerate(raw)]
    rep = report(*fs) if fs else None
    assert "".join(s.text for s in answer_segments(answer, rep)) == answer


def test_cited_evidence_wins_over_overlap():
    """A factoid's evidence string marks the sentence that contains it."""
    ctx = ["Alpha beta gamma. The dose is 4 g per day. Unrelated."]
    f = factoid(0, "The dose is 8 g per day.", [], 0.9, evidence=["the dose is 4 g  per day."])
    (p,) = passage_views(ctx, report(f))
    marked = [(s.text, [(m.factoid, m.how) for m in s.marks]) for s in p.sentences if s.marks]
    assert marked == [("The dose is 4 g per day.", [(0, "cited")])]
    assert "".join(s.text + s.trailing for s in p.sentences) == ctx[0]


def test_overlap_picks_the_best_sentence_across_passages():
    """Without evidence, the sentence sharing most content words is marked, once."""
    ctx = ["Cats sleep a lot.", "Alcohol raises liver damage risk with paracetamol. Dogs bark."]
    f = factoid(3, "Paracetamol with alcohol is safe.", [], 0.8)
    views = passage_views(ctx, report(f))
    marks = [(p.index, s.text, m.how) for p in views for s in p.sentences for m in s.marks]
    assert marks == [(1, "Alcohol raises liver damage risk with paracetamol.", "overlap")]
    assert views[1].marked and not views[0].marked


def test_no_overlap_marks_nothing():
    """A factoid sharing no word with any passage marks no sentence."""
    (p,) = passage_views(["Nothing related here."], report(factoid(0, "Zebras xylophone.", [], 1)))
    assert not p.marked


def test_factoid_views_sorted_and_quote_the_answer():
    """Factoids come highest score first, with the answer text they cover and all verdicts."""
    case = sample_case()
    views = factoid_views(case.answer, case.report)
    assert [v.index for v in views] == [0, 2, 1]
    assert views[0].quoted == ["Adults can take up to 8 grams of paracetamol per day."]
    assert len(views[0].variants[0].verdicts) == 2
