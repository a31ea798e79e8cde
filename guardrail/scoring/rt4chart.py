"""RT4CHART: claim decomposition and hierarchical local-to-global verification.

Yu et al. (2026), "Retromorphic Testing with Hierarchical Verification for Hallucination
Detection in RAG" (shared/seeds/002). The pipeline, and where each step lives below:

1. **Claims** (Sec. 3.3). The answer is split into sentences; one judge call per sentence
   (task ``claims``) turns it into self-contained claims. Each claim keeps a pointer to its
   sentence, which is what lets a verdict be mapped back to a span of the answer.
2. **Local verification** (Sec. 3.4). The context is split into sentences and cut into chunks
   of ``window`` sentences overlapping by ``overlap``. Every (claim, chunk) pair gets one call
   (task ``local_verify``) answering ``ENTAILED|CONTRADICTED|BASELESS. reason``. The OR-join
   merges a claim's chunk votes: CONTRADICTED if any chunk contradicts, else ENTAILED if any
   entails, else BASELESS.
3. **Global verification** (Sec. 3.5, Table 2). Each claim is re-judged against the full
   context (task ``global_verify``) with a prompt chosen by its local label: a locally
   BASELESS claim gets the full context and no hint (search from scratch); a locally ENTAILED
   or CONTRADICTED claim also gets the *focus chunk* (the first chunk that voted that way) as a
   location hint. The global label is final.
4. **Answer aggregation** (Sec. 3.6). The AND-join: CONTRADICTED if any claim is, else
   BASELESS if any claim is, else ENTAILED.

Mapping onto :class:`~guardrail.models.ScoreReport` (so the guard, policies and ``eval`` treat
RT4CHART like MetaRAG): each claim becomes a :class:`~guardrail.models.Factoid` scored
CONTRADICTED -> 1.0, BASELESS -> ``baseless_score`` (0.5 by default), ENTAILED -> 0.0; the
response score is the max, which is exactly the AND-join's order. With the default threshold
0.5 an answer is flagged iff the AND-join is not ENTAILED — the paper's ``hallucinated(A, C)``.
A threshold above ``baseless_score`` flags contradictions only.

Evidence (Sec. 2, Eq. 1): the context sentences the final verdict cites, as ``"[i] text"``
strings in ``Factoid.evidence`` (``i`` is the sentence's index in the context). Judges are asked
to cite sentence numbers; when a reply cites none, the sentence of the focus chunk (or, failing
that, the whole context) sharing most words with the claim is used. BASELESS claims carry no
evidence. The three-way labels and chunk votes are in ``report.settings["claims"]``.

Failures: a judge call that fails after the runner's retries fails the whole answer with a
:class:`~guardrail.exceptions.ScoringError` carrying every call made; an unparsable verdict is
read as BASELESS (neutral in the OR-join, flagging in the final label) and recorded as a parse
failure.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from guardrail.exceptions import ConfigError
from guardrail.judges.base import Judge, JudgeRequest
from guardrail.judges.runner import JudgeRunner, RetryPolicy
from guardrail.models import (
    Factoid,
    JudgeCall,
    ParseCause,
    ReportStatus,
    ScoreReport,
    Span,
)
from guardrail.scoring.align import align
from guardrail.scoring.base import CallLog, ScorerBase, check_threshold, resolve_localizer
from guardrail.scoring.failures import ParseFailure, failure
from guardrail.scoring.parsing import parse_statements
from guardrail.scoring.resolve import Resolution, resolve
from guardrail.scoring.settings import RT4ChartConfig
from guardrail.scoring.stages import request as stage_request
from guardrail.scoring.stages import run_stage
from guardrail.scoring.templates import PromptSet
from guardrail.text.sentences import split_sentences
from guardrail.text.tokens import content_keys

if TYPE_CHECKING:
    from guardrail.localize.model import SpanLocalizer

CLAIMS = "claims"
LOCAL_VERIFY = "local_verify"
GLOBAL_VERIFY = "global_verify"


class RTLabel(str, Enum):
    """The paper's label set: Ent, Con and Nic (not in context, "baseless")."""

    ENTAILED = "ENTAILED"
    CONTRADICTED = "CONTRADICTED"
    BASELESS = "BASELESS"


# --- parsing ------------------------------------------------------------------------------------

_ALIASES: dict[str, RTLabel] = {
    "ENTAILED": RTLabel.ENTAILED,
    "ENTAILMENT": RTLabel.ENTAILED,
    "ENTAILS": RTLabel.ENTAILED,
    "SUPPORTED": RTLabel.ENTAILED,
    "ENT": RTLabel.ENTAILED,
    "CONTRADICTED": RTLabel.CONTRADICTED,
    "CONTRADICTION": RTLabel.CONTRADICTED,
    "CONTRADICTS": RTLabel.CONTRADICTED,
    "CON": RTLabel.CONTRADICTED,
    "BASELESS": RTLabel.BASELESS,
    "NOT IN CONTEXT": RTLabel.BASELESS,
    "NOT_IN_CONTEXT": RTLabel.BASELESS,
    "NIC": RTLabel.BASELESS,
    "NEUTRAL": RTLabel.BASELESS,
    "UNSUPPORTED": RTLabel.BASELESS,
    "NOT SUPPORTED": RTLabel.BASELESS,
    "NOT ENTAILED": RTLabel.BASELESS,
}
_ALT = "|".join(
    re.escape(k).replace(r"\ ", r"\s+") for k in sorted(_ALIASES, key=len, reverse=True)
)
_AT_START = re.compile(
    rf"^\W*(?:(?:final\s+)?(?:answer|label|verdict)\s*[:\-]\s*)?\W*({_ALT})\b[\s.:,\-–—)*]*(.*)",
    # ASCII: with Unicode case folding "İ" (dotted capital I) and "ſ" (long s) would match "i"
    # and "s" here, and the matched text would not be an alias key.
    re.IGNORECASE | re.DOTALL | re.ASCII,
)
_ANYWHERE = re.compile(r"\b(NOT\s+ENTAILED|ENTAILED|CONTRADICTED|BASELESS|NOT\s+IN\s+CONTEXT)\b")


def _canon(raw: str) -> str:
    return re.sub(r"\s+", " ", raw.upper().replace("_", " ")).strip()


def parse_rt_verdict(text: str) -> tuple[RTLabel, str, ParseFailure | None]:
    """Parse ``ENTAILED|CONTRADICTED|BASELESS. reason``. Returns ``(label, reason, failure)``.

    Never raises. Accepted: the label first (after an optional ``Answer:``/``Label:``), in any
    case; common synonyms (``entailment``, ``contradiction``, ``not in context``, ``neutral``)
    are read with a recorded failure. Otherwise the first label word anywhere ("not entailed"
    counts as BASELESS). Nothing found: BASELESS, failure ``"no label; treated as BASELESS"``.
    """
    body = (text or "").strip()
    match = _AT_START.match(body)
    problem: ParseFailure | None = None
    if match:
        raw, rest = _canon(match.group(1)), match.group(2)
        label = _ALIASES[raw]
        if raw not in ("ENTAILED", "CONTRADICTED", "BASELESS"):
            note = f"nonstandard label {raw!r}; read as {label.value}"
            problem = failure("nonstandard_label", note)
    else:
        found = _ANYWHERE.search(body.upper())
        if found is None:
            first = body.splitlines()[0][:300] if body else ""
            cause: ParseCause = "unparsable" if body else "empty"
            return (
                RTLabel.BASELESS,
                first,
                failure(cause, "no label; treated as BASELESS", unusable=True),
            )
        label = _ALIASES[_canon(found.group(1))]
        rest = body[found.end() :]
        problem = failure("label_not_at_start", "label not at start; took the first label found")
    lines = rest.strip().lstrip(".:,-–— ").splitlines()
    reason = lines[0].strip() if lines else ""
    return label, reason[:300], problem


_CITATION = re.compile(r"\[\s*(\d{1,6})\s*\]|\bsentences?\s*#?\s*(\d{1,6})\b", re.IGNORECASE)


def cited_sentences(reason: str, allowed: Sequence[int]) -> list[int]:
    """Sentence numbers a reason cites (``[12]`` or ``sentence 12``), kept if in ``allowed``."""
    ok = set(allowed)
    out: list[int] = []
    for m in _CITATION.finditer(reason or ""):
        idx = int(m.group(1) or m.group(2))
        if idx in ok and idx not in out:
            out.append(idx)
    return out


# --- joins ---------------------------------------------------------------------------------------


def or_join(votes: Sequence[RTLabel]) -> RTLabel:
    """Local join over chunk votes: contradiction dominates; one supporting chunk suffices."""
    if RTLabel.CONTRADICTED in votes:
        return RTLabel.CONTRADICTED
    if RTLabel.ENTAILED in votes:
        return RTLabel.ENTAILED
    return RTLabel.BASELESS


def and_join(labels: Sequence[RTLabel]) -> RTLabel:
    """Answer join over final claim labels: one unfaithful claim flags the answer."""
    if RTLabel.CONTRADICTED in labels:
        return RTLabel.CONTRADICTED
    if RTLabel.BASELESS in labels:
        return RTLabel.BASELESS
    return RTLabel.ENTAILED


# --- sentences, chunks, alignment --------------------------------------------------------------


def chunk_ranges(n_sentences: int, window: int, overlap: int) -> list[range]:
    """Sliding windows of ``window`` sentences, each overlapping the previous by ``overlap``.

    The last window may be shorter; every sentence is in at least one window. ``n=4, W=2, O=1``
    gives ``{0,1}, {1,2}, {2,3}`` (the paper's Table 1).
    """
    if window < 1 or not 0 <= overlap < window:
        raise ConfigError(f"need window >= 1 and 0 <= overlap < window, got {window}/{overlap}")
    if n_sentences <= 0:
        return []
    step = window - overlap
    starts = range(0, max(n_sentences - overlap, 1), step)
    return [range(s, min(s + window, n_sentences)) for s in starts]


def _key_overlap(want: set[str], have: set[str]) -> float:
    """Share of the content keys ``want`` that are in ``have`` (0.0 when ``want`` is empty)."""
    return len(want & have) / len(want) if want else 0.0


def _word_overlap(claim: str, sentence: str) -> float:
    """Share of the claim's content words (lightly stemmed) that occur in ``sentence``."""
    return _key_overlap(content_keys(claim), content_keys(sentence))


class _SentenceKeys:
    """Content keys of each context sentence, tokenized at most once per scoring run."""

    def __init__(self, sents: list[str]) -> None:
        self.sents = sents
        self._keys: dict[int, set[str]] = {}

    def __getitem__(self, i: int) -> set[str]:
        keys = self._keys.get(i)
        if keys is None:
            keys = self._keys[i] = content_keys(self.sents[i])
        return keys


def claim_spans(claim: str, answer: str, sentence: Span, *, refine: bool = True) -> list[Span]:
    """Where a claim sits in the answer: its pointer sentence, narrowed when alignment allows.

    With ``refine``, :func:`guardrail.scoring.spans.align` looks for the claim's words inside the
    pointer sentence; if at least half of them are found there, the matching runs are the spans.
    Otherwise (a paraphrase, a resolved pronoun) the whole sentence is the honest localization.
    """
    s0, s1 = sentence
    if refine:
        found = align(claim, answer[s0:s1], min_alignment=0.5)
        if found.aligned and found.spans:
            return [(s0 + a, s0 + b) for a, b in found.spans]
    return [sentence]


# --- the scorer ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Claim:
    index: int
    text: str
    sentence: int  # index of the answer sentence it came from


@dataclass(frozen=True)
class _Vote:
    label: RTLabel
    reason: str


async def _round(
    log: CallLog, runner: JudgeRunner, name: str, requests: list[JudgeRequest]
) -> list[tuple[str, JudgeCall]]:
    """One RT4CHART stage: the replies in request order; their calls are the caller's to
    :meth:`~CallLog.record` (with the parse outcome). A failure raises ScoringError with every
    call made (:func:`~guardrail.scoring.stages.run_stage`)."""

    async def one(request: JudgeRequest) -> tuple[str, JudgeCall]:
        response, call = await stage_request(log, runner, name, request)
        return response.text, call

    return await run_stage(
        log, "rt4chart", name, [one(r) for r in requests], unrecorded=lambda reply: [reply[1]]
    )


class RT4Chart(ScorerBase):
    """The RT4CHART scorer. ``await RT4Chart(judge).score(question, answer, contexts)``.

    ``config`` (:class:`~guardrail.scoring.settings.RT4ChartConfig`) holds the knobs:
    ``window``/``overlap`` are in context sentences (the paper's default (25, 10));
    ``global_verification=False`` gives the paper's "w/o global verif." ablation (local labels
    are final). The constructor does no I/O beyond reading the packaged prompt files.
    """

    method = "rt4chart"

    def __init__(
        self,
        judge: Judge,
        config: RT4ChartConfig | None = None,
        *,
        prompts: PromptSet | None = None,
        runner: JudgeRunner | None = None,
        retry: RetryPolicy | None = None,
        localizer: SpanLocalizer | Literal["packaged"] | None = "packaged",
    ) -> None:
        self.judge = judge
        self.config = config or RT4ChartConfig()
        self.localizer = resolve_localizer(localizer)
        self.prompts = prompts or PromptSet.builtin("rt4chart_v1").fenced()
        self.runner = runner or JudgeRunner(judge, retry or RetryPolicy())

    def label_score(self, label: RTLabel) -> float:
        return {
            RTLabel.CONTRADICTED: 1.0,
            RTLabel.BASELESS: self.config.baseless_score,
            RTLabel.ENTAILED: 0.0,
        }[label]

    def _settings(self) -> dict[str, Any]:
        return {
            "window": self.config.window,
            "overlap": self.config.overlap,
            "baseless_score": self.config.baseless_score,
            "global_verification": self.config.global_verification,
            "refine_spans": self.config.refine_spans,
            "localizer": self.localizer.name if self.localizer else None,
            "prompts": self.prompts.label,
            "judge": self.judge.name,
        }

    async def score(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
    ) -> ScoreReport:
        """Score one answer against its retrieved passages."""
        started = time.perf_counter()
        tau = check_threshold(self.config.threshold if threshold is None else threshold)
        calls = CallLog()
        answer_sents = split_sentences(answer, rules="prose")
        if not answer_sents:
            return self.build_report("empty_answer", [], tau, calls, started, self._settings())
        resolution = resolve(question, answer)
        if resolution.abstention:
            return self.build_report("abstained", [], tau, calls, started, self._settings())
        report = await self._score(
            question, answer, answer_sents, contexts, resolution, tau, started, calls
        )
        return report.model_copy(update={"resolved": list(resolution.statements)})

    async def _score(
        self,
        question: str,
        answer: str,
        answer_sents: list[Span],
        contexts: Sequence[str],
        resolution: Resolution,
        tau: float,
        started: float,
        calls: CallLog,
    ) -> ScoreReport:
        claims = await self._claims(question, answer, answer_sents, calls, resolution)
        context_sents = [sent for passage in contexts for sent in _sentences_of(passage)]
        if not claims:
            return self.build_report("unverifiable", [], tau, calls, started, self._settings())
        if not context_sents:
            finals: dict[int, tuple[RTLabel, list[int]]] = {
                c.index: (RTLabel.BASELESS, []) for c in claims
            }
            trace: dict[int, dict[str, Any]] = {
                c.index: {"local": None, "votes": [], "focus_chunk": None} for c in claims
            }
            return self._finish(
                tau,
                "empty_context",
                answer,
                answer_sents,
                claims,
                finals,
                trace,
                [],
                calls,
                started,
            )

        chunks = chunk_ranges(len(context_sents), self.config.window, self.config.overlap)
        local, trace = await self._local(question, claims, context_sents, chunks, calls)
        if self.config.global_verification:
            finals = await self._global(question, claims, context_sents, chunks, local, calls)
        else:
            keys = _SentenceKeys(context_sents)
            finals = {
                c.index: (local[c.index][0], self._evidence(c.text, local[c.index], keys, chunks))
                for c in claims
            }
        report = self._finish(
            tau, "ok", answer, answer_sents, claims, finals, trace, context_sents, calls, started
        )
        return self.localized(report, question, answer, contexts)

    # -- stage 1 --------------------------------------------------------------------------------

    async def _claims(
        self,
        question: str,
        answer: str,
        sents: list[Span],
        calls: CallLog,
        resolution: Resolution | None = None,
    ) -> list[_Claim]:
        """Each sentence's claims; a sentence that leans on the question is sent as the
        statements it was resolved into (the prompt also carries the question)."""
        requests = []
        for i, (s, e) in enumerate(sents):
            text = answer[s:e]
            made = () if resolution is None else resolution.statements_for((s, e))
            if made:
                text = " ".join(statement.text for statement in made)
            inputs = {"text": text, "question": question, "sentence_index": i}
            prompt = self.prompts.render("claims", text=text, question=question)
            requests.append(
                JudgeRequest(task=CLAIMS, prompt=prompt, inputs=inputs, system=self.prompts.system)
            )
        replies = await _round(calls, self.runner, CLAIMS, requests)
        claims: list[_Claim] = []
        for i, (text, call) in enumerate(replies):
            items, found = parse_statements(text)
            if not items and found:
                # no signal is not "no claim": the sentence itself is checked
                s, e = sents[i]
                items = [answer[s:e]]
                found = found.as_unusable("used the sentence as its claim")
            calls.record(call, found)
            for item in items:
                claims.append(_Claim(index=len(claims), text=item, sentence=i))
        return claims

    # -- stage 2 --------------------------------------------------------------------------------

    async def _local(
        self,
        question: str,
        claims: list[_Claim],
        sents: list[str],
        chunks: list[range],
        calls: CallLog,
    ) -> tuple[dict[int, tuple[RTLabel, int | None, str]], dict[int, dict[str, Any]]]:
        pairs = [(c, k) for c in claims for k in range(len(chunks))]
        requests = []
        for claim, k in pairs:
            ids = list(chunks[k])
            inputs = {
                "claim": claim.text,
                "context": " ".join(sents[i] for i in ids),
                "chunk_index": k,
                "question": question,
                "sentence_ids": ids,
                "sentences": [sents[i] for i in ids],
            }
            prompt = self.prompts.render(
                "local_verify",
                claim=claim.text,
                context=_numbered(sents, ids),
                chunk_index=k,
                question=question or "(none)",
            )
            requests.append(
                JudgeRequest(
                    task=LOCAL_VERIFY, prompt=prompt, inputs=inputs, system=self.prompts.system
                )
            )
        replies = await _round(calls, self.runner, LOCAL_VERIFY, requests)
        votes: dict[int, list[_Vote]] = {c.index: [] for c in claims}
        for (claim, _k), (text, call) in zip(pairs, replies, strict=True):
            label, reason, found = parse_rt_verdict(text)
            calls.record(call, found)
            votes[claim.index].append(_Vote(label, reason))
        local: dict[int, tuple[RTLabel, int | None, str]] = {}
        trace: dict[int, dict[str, Any]] = {}
        for claim in claims:
            v = votes[claim.index]
            joined = or_join([x.label for x in v])
            focus = next((k for k, x in enumerate(v) if x.label == joined), None)
            if joined == RTLabel.BASELESS:
                focus = None
            reason = v[focus].reason if focus is not None else ""
            local[claim.index] = (joined, focus, reason)
            trace[claim.index] = {
                "local": joined.value,
                "votes": [x.label.value for x in v],
                "focus_chunk": focus,
            }
        return local, trace

    # -- stage 3 --------------------------------------------------------------------------------

    async def _global(
        self,
        question: str,
        claims: list[_Claim],
        sents: list[str],
        chunks: list[range],
        local: dict[int, tuple[RTLabel, int | None, str]],
        calls: CallLog,
    ) -> dict[int, tuple[RTLabel, list[int]]]:
        all_ids = list(range(len(sents)))
        full_numbered = _numbered(sents, all_ids)
        full_plain = " ".join(sents)
        requests = []
        for claim in claims:
            label, focus, _ = local[claim.index]
            hint_ids = list(chunks[focus]) if focus is not None else []
            inputs = {
                "claim": claim.text,
                "context": full_plain,
                "hint": " ".join(sents[i] for i in hint_ids),
                "question": question,
                "local_label": label.value,
                "hint_sentence_ids": hint_ids,
                "sentences": sents,
            }
            template = {
                RTLabel.BASELESS: "global_baseless",
                RTLabel.ENTAILED: "global_entailed",
                RTLabel.CONTRADICTED: "global_contradicted",
            }[label]
            values: dict[str, Any] = {
                "claim": claim.text,
                "context": full_numbered,
                "question": question or "(none)",
            }
            if hint_ids:
                values["hint"] = _numbered(sents, hint_ids)
            prompt = self.prompts.render(template, **values)
            requests.append(
                JudgeRequest(
                    task=GLOBAL_VERIFY, prompt=prompt, inputs=inputs, system=self.prompts.system
                )
            )
        replies = await _round(calls, self.runner, GLOBAL_VERIFY, requests)
        keys = _SentenceKeys(sents)
        finals: dict[int, tuple[RTLabel, list[int]]] = {}
        for claim, (text, call) in zip(claims, replies, strict=True):
            label, reason, found = parse_rt_verdict(text)
            calls.record(call, found)
            _, focus, _ = local[claim.index]
            evidence = self._evidence(claim.text, (label, focus, reason), keys, chunks)
            finals[claim.index] = (label, evidence)
        return finals

    @staticmethod
    def _evidence(
        claim: str,
        verdict: tuple[RTLabel, int | None, str],
        keys: _SentenceKeys,
        chunks: list[range],
    ) -> list[int]:
        """Context sentences backing a verdict: the ones cited, else the best lexical match."""
        label, focus, reason = verdict
        if label == RTLabel.BASELESS:
            return []  # Eq. (1): a baseless claim has no evidence
        n = len(keys.sents)
        cited = cited_sentences(reason, range(n))
        if cited:
            return cited
        pool = list(chunks[focus]) if focus is not None else list(range(n))
        want = content_keys(claim)
        # the best overlap, ties to the earliest sentence; no shared word means no evidence
        scored = [(_key_overlap(want, keys[i]), -i) for i in pool]
        if not scored:
            return []
        overlap, neg_index = max(scored)
        return [-neg_index] if overlap > 0.0 else []

    # -- report ---------------------------------------------------------------------------------

    def _finish(
        self,
        tau: float,
        status: ReportStatus,
        answer: str,
        answer_sents: list[Span],
        claims: list[_Claim],
        finals: dict[int, tuple[RTLabel, list[int]]],
        trace: dict[int, dict[str, Any]],
        context_sents: list[str],
        calls: CallLog,
        started: float,
    ) -> ScoreReport:
        factoids: list[Factoid] = []
        claim_trace: list[dict[str, Any]] = []
        for claim in claims:
            label, evidence = finals[claim.index]
            sentence = answer_sents[claim.sentence]
            score = self.label_score(label)
            factoids.append(
                Factoid(
                    index=claim.index,
                    text=claim.text,
                    spans=claim_spans(
                        claim.text, answer, sentence, refine=self.config.refine_spans
                    ),
                    aligned=True,
                    alignment=_word_overlap(claim.text, answer[sentence[0] : sentence[1]]),
                    score=score,
                    flagged=score >= tau,
                    evidence=[f"[{i}] {context_sents[i]}" for i in evidence],
                )
            )
            claim_trace.append(
                {
                    "index": claim.index,
                    "sentence": claim.sentence,
                    "final": label.value,
                    "evidence_ids": evidence,
                    **trace[claim.index],
                }
            )
        answer_label = and_join([finals[c.index][0] for c in claims])
        report = self.build_report(status, factoids, tau, calls, started, self._settings())
        settings = {**report.settings, "answer_label": answer_label.value, "claims": claim_trace}
        return report.model_copy(update={"settings": settings})


def _sentences_of(passage: str) -> list[str]:
    return [passage[s:e] for s, e in split_sentences(passage, rules="prose")]


def _numbered(sents: list[str], ids: Sequence[int]) -> str:
    return "\n".join(f"[{i}] {sents[i]}" for i in ids)
