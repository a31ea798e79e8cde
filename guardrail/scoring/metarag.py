"""MetaRAG (Sok, Luz, Haddam 2025): metamorphic testing for hallucination in RAG answers.

Four stages, each one concurrent judge round trip (so one answer costs about three round
trips whatever its number of factoids):

1. **decompose** the answer into atomic factoids (one call);
2. **mutate** every factoid into ``k`` synonym and ``k`` antonym variants (two calls a factoid,
   all at once);
3. **verify** every variant against the retrieved context: YES / NO / NOT SURE (one call per
   variant and verifier, all at once);
4. **aggregate**: penalties from :data:`PENALTY`, factoid score = mean over its ``2k``
   variants, response score = max over factoids, flagged when ``score >= threshold``.

Rules for the edges (each documented, none crashes, none yields NaN):

* empty answer -> score 0.0, status ``empty_answer``, no calls;
* the answer is read with its question first (:mod:`guardrail.scoring.resolve`): a reply that
  leans on it ("Yes.", "Two.") is decomposed as the statements it makes, listed in
  ``ScoreReport.resolved``; an answer that only declines ("I don't know.") -> score 0.0,
  status ``abstained``, no calls;
* the decomposer lists no factoid (an empty JSON array) -> the offline decomposer's factoids,
  with the failure recorded (a weak judge lists none for plainly factual answers, and an
  empty list must not let them pass unverified); when it finds none either (a greeting),
  score 0.0 and status ``unverifiable``, which the policy sends to its ``on_error`` rule;
* empty context -> nothing can be verified: every variant is labelled NOT SURE without a call
  (penalty 0.5), status ``empty_context``;
* unparseable decomposition (an empty reply, no usable item, only placeholders or echoes of
  the prompt's own instructions and examples) -> the answer's sentences become the factoids;
* an empty reply to a request with stop sequences is asked once more without them (a model
  that opens its reply with a stop string would otherwise always answer nothing);
* fewer than ``k`` usable variants -> the gap is filled mechanically (synonym: the factoid
  itself; antonym: "It is not true that ..."), the variant marked ``generated=False``;
* unparseable verdict -> NOT SURE; when *every* verdict of the answer is NOT SURE for lack of a
  parsable reply the judge gave no signal: status ``judge_unusable`` (with ``problem`` naming
  the replies), which the policy treats as a scoring failure (its ``on_error`` rule);
* every fallback is recorded on its :class:`~guardrail.models.JudgeCall`: ``parse_failure``
  (the note), ``parse_causes`` (``empty``, ``unparsable``, ``placeholder``, ...) and
  ``reply_unusable`` (nothing in the reply could be used);
* a judge call that fails after the runner's retries, or the answer's deadline
  (``turn_timeout_s``) passing -> :class:`~guardrail.exceptions.ScoringError` carrying every
  call made, so the caller's policy decides (fail open/closed).

Verifier ensemble (the paper's "multi"): with several verifiers, each variant gets one verdict
per verifier, combined by ``ensemble_rule``:

* ``majority`` (default): the most frequent label; a tie is NOT SURE (a split panel is unsure);
  penalty from the table.
* ``mean_penalty``: penalty = mean of the verifiers' penalties; the label shown is the majority.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from guardrail.exceptions import ConfigError
from guardrail.judges.base import (
    ANTONYM,
    DECOMPOSE,
    MUTATE_ALL,
    SYNONYM,
    VERIFY,
    VERIFY_BATCH,
    Judge,
    JudgeRequest,
)
from guardrail.judges.runner import JudgeRunner, RetryPolicy, turn_deadline
from guardrail.lang import detect
from guardrail.models import (
    Factoid,
    JudgeCall,
    Label,
    Relation,
    ReportStatus,
    ScoreReport,
    StageTiming,
    Variant,
    Verdict,
    count_causes,
)
from guardrail.scoring.base import CallLog, ScorerBase, check_threshold, resolve_localizer
from guardrail.scoring.budgets import BUDGETS, estimated_tokens
from guardrail.scoring.cascade import CascadeChoice, Screen, resolve_cutoff
from guardrail.scoring.failures import ParseFailure, failure, join
from guardrail.scoring.parsing import (
    parse_mutations,
    parse_numbered_verdicts,
    parse_statements,
    parse_verdict,
)
from guardrail.scoring.resolve import resolve
from guardrail.scoring.schemas import schema_for
from guardrail.scoring.settings import EnsembleRule, MetaRAGConfig
from guardrail.scoring.stages import request as stage_request
from guardrail.scoring.stages import run_stage
from guardrail.scoring.templates import (
    PromptSet,
    has_marker,
    instruction_text,
    language_note,
    language_scope,
    marker_scope,
    strip_echoed_fence,
)
from guardrail.text.sentences import split_sentences

if TYPE_CHECKING:
    from guardrail.localize.model import SpanLocalizer

_T = TypeVar("_T")

#: The paper's penalty table (Section 3.4): (relation, label) -> penalty.
PENALTY: dict[tuple[Relation, Label], float] = {
    (Relation.SYNONYM, Label.YES): 0.0,
    (Relation.SYNONYM, Label.NOT_SURE): 0.5,
    (Relation.SYNONYM, Label.NO): 1.0,
    (Relation.ANTONYM, Label.YES): 1.0,
    (Relation.ANTONYM, Label.NOT_SURE): 0.5,
    (Relation.ANTONYM, Label.NO): 0.0,
}


def combine(
    relation: Relation, verdicts: Sequence[Verdict], rule: EnsembleRule
) -> tuple[Label, float]:
    """Combine one variant's verdicts into a label and a penalty (see module docstring)."""
    if not verdicts:
        return Label.NOT_SURE, PENALTY[(relation, Label.NOT_SURE)]
    counts = Counter(v.label for v in verdicts).most_common()
    top = [label for label, n in counts if n == counts[0][1]]
    label = top[0] if len(top) == 1 else Label.NOT_SURE
    if rule == "mean_penalty":
        penalty = sum(PENALTY[(relation, v.label)] for v in verdicts) / len(verdicts)
    else:
        penalty = PENALTY[(relation, label)]
    return label, penalty


def factoid_score(variants: Sequence[Variant]) -> float:
    """Mean penalty over a factoid's variants (0.0 when it has none)."""
    return sum(v.penalty for v in variants) / len(variants) if variants else 0.0


def _numbered(items: Sequence[str]) -> str:
    """``1. first`` / ``2. second`` ..., one per line (item text on one line)."""
    return "\n".join(f"{n}. {' '.join(item.split())}" for n, item in enumerate(items, start=1))


def _negate(factoid: str) -> str:
    core = factoid.strip().rstrip(".!?")
    if core[:1].isupper() and not core[:2].isupper():
        core = core[0].lower() + core[1:]
    return f"It is not true that {core}."


class MetaRAG(ScorerBase):
    """The MetaRAG scorer.

    ``judge`` serves every stage unless ``decomposer``, ``generator`` or ``verifiers`` name
    others; several verifiers form an ensemble. Judges sharing one object share one runner
    (and so one concurrency limit).
    """

    method = "metarag"
    supports_cascade = True

    def __init__(
        self,
        judge: Judge | None = None,
        *,
        decomposer: Judge | None = None,
        generator: Judge | None = None,
        verifiers: Sequence[Judge] | None = None,
        config: MetaRAGConfig | None = None,
        prompts: PromptSet | None = None,
        retry: RetryPolicy | None = None,
        localizer: SpanLocalizer | Literal["packaged"] | None = "packaged",
    ) -> None:
        chosen_decomposer = decomposer or judge
        chosen_generator = generator or judge
        chosen_verifiers = list(verifiers) if verifiers else ([judge] if judge else [])
        if chosen_decomposer is None or chosen_generator is None or not chosen_verifiers:
            raise ConfigError("MetaRAG needs a judge (or a decomposer, generator and verifiers)")
        self.decomposer: Judge = chosen_decomposer
        self.generator: Judge = chosen_generator
        self.verifiers: list[Judge] = chosen_verifiers
        self.config = config or MetaRAGConfig()
        self.prompts = prompts or PromptSet.builtin("metarag_v1").fenced()
        self.localizer = resolve_localizer(localizer)
        self._screener: Screen | None = None
        policy = retry or RetryPolicy()
        self.turn_timeout_s = policy.turn_timeout_s
        self._runners: dict[int, JudgeRunner] = {}
        for j in (self.decomposer, self.generator, *self.verifiers):
            self._runners.setdefault(id(j), JudgeRunner(j, policy))

    def _runner(self, judge: Judge) -> JudgeRunner:
        return self._runners[id(judge)]

    def settings(self) -> dict[str, object]:
        return {
            "method": self.method,
            "k": self.config.k,
            "temperature": self.config.temperature,
            "ensemble_rule": self.config.ensemble_rule,
            "protocol": self.config.protocol,
            "structured_output": self.config.structured_output,
            "cascade": self.config.cascade,
            "prompts": self.prompts.label,
            "decomposer": self.decomposer.name,
            "generator": self.generator.name,
            "verifiers": [v.name for v in self.verifiers],
            "localizer": self.localizer.name if self.localizer else None,
        }

    # -- public API -------------------------------------------------------------------------

    async def score(
        self,
        question: str,
        answer: str,
        contexts: Sequence[str],
        *,
        threshold: float | None = None,
        cascade: CascadeChoice = None,
    ) -> ScoreReport:
        """Score one answer against its retrieved contexts.

        ``cascade`` overrides the scorer's cascade setting for this answer (a topic's choice):
        ``False`` off, ``True`` on at the configured cut-off, a number on at that cut-off.
        """
        threshold = check_threshold(self.config.threshold if threshold is None else threshold)
        cutoff = resolve_cutoff(cascade, self.config.cascade, self.config.cascade_cutoff)
        if isinstance(contexts, str):
            contexts = [contexts]
        passages = [c for c in contexts if c and c.strip()]
        answer_language = detect(answer).language if answer.strip() else "und"
        passage_languages = [detect(p).language for p in passages]
        with (
            marker_scope(),
            language_scope(answer_language, passage_languages),
            turn_deadline(self.turn_timeout_s),
        ):
            return await self._score(question, answer, passages, threshold, cutoff)

    async def _score(
        self,
        question: str,
        answer: str,
        passages: list[str],
        threshold: float,
        cutoff: float | None,
    ) -> ScoreReport:
        started = time.perf_counter()
        log = CallLog()

        if not answer or not answer.strip():
            return self.build_report("empty_answer", [], threshold, log, started, self.settings())
        resolution = resolve(question, answer)
        if resolution.abstention:
            return self.build_report("abstained", [], threshold, log, started, self.settings())
        resolved = list(resolution.statements)

        texts = await run_stage(
            log, self.method, DECOMPOSE, [self._decompose(question, resolution.text, log)]
        )
        factoid_texts = texts[0]
        if not factoid_texts:
            return self.build_report(
                "unverifiable", [], threshold, log, started, self.settings(), resolved=resolved
            )

        risks: list[float | None] = [None] * len(factoid_texts)
        if cutoff is not None and passages:
            risks = self._screen(factoid_texts, passages, log)
        settled = [r is not None and r < 1.0 and r <= (cutoff or 0.0) for r in risks]
        open_texts = [t for t, done in zip(factoid_texts, settled, strict=True) if not done]
        open_variants = await self._mutations(question, open_texts, log) if open_texts else []
        pending = iter(open_variants)
        variant_texts = [([], []) if done else next(pending) for done in settled]

        status: ReportStatus = "ok"
        if passages:
            verified = iter(await self._verdicts(open_variants, open_texts, passages, log))
        else:
            status = "empty_context"
            unsure = [
                Verdict(judge="guardrail", label=Label.NOT_SURE, reason="no retrieved context")
            ]
            verified = iter([unsure] * sum(len(s) + len(a) for s, a in variant_texts))

        factoids: list[Factoid] = []
        for index, (text, (syn, ant)) in enumerate(zip(factoid_texts, variant_texts, strict=True)):
            variants: list[Variant] = []
            for relation, batch in ((Relation.SYNONYM, syn), (Relation.ANTONYM, ant)):
                for variant_text, generated in batch:
                    verdicts = next(verified)
                    label, penalty = combine(relation, verdicts, self.config.ensemble_rule)
                    variants.append(
                        Variant(
                            relation=relation,
                            text=variant_text,
                            verdicts=verdicts,
                            label=label,
                            penalty=penalty,
                            generated=generated,
                        )
                    )
            score = factoid_score(variants)
            where = resolution.align(text, min_alignment=self.config.min_alignment)
            factoids.append(
                Factoid(
                    index=index,
                    text=text,
                    spans=where.spans,
                    aligned=where.aligned,
                    alignment=where.score,
                    variants=variants,
                    score=score,
                    flagged=score >= threshold,
                    screen_risk=risks[index],
                    screened=settled[index],
                )
            )
        settings = {**self.settings(), "cascade_cutoff": cutoff}
        problem = unusable(factoids, log) if status == "ok" else None
        if problem is not None:
            status = "judge_unusable"
        report = self.build_report(
            status, factoids, threshold, log, started, settings, resolved=resolved
        )
        if problem is not None:
            return report.model_copy(update={"problem": problem})
        return self.localized(report, question, answer, passages)

    def _screen(self, factoids: list[str], passages: list[str], log: CallLog) -> list[float | None]:
        """The cascade's offline risks (a stage of its own in the timings, with no calls)."""
        started = time.perf_counter()
        if self._screener is None:
            self._screener = Screen()
        risks = self._screener.risks(factoids, "\n\n".join(passages))
        log.stages.append(
            StageTiming(stage="screen", seconds=time.perf_counter() - started, calls=0)
        )
        return risks

    # -- stages -----------------------------------------------------------------------------

    async def _mutations(
        self, question: str, factoids: list[str], log: CallLog
    ) -> list[tuple[list[tuple[str, bool]], list[tuple[str, bool]]]]:
        """Every factoid's (synonyms, antonyms): two calls a factoid (paper) or one call."""
        if self.config.protocol != "paper":
            jobs = [self._mutate_all(question, factoids, log)]
            return (await run_stage(log, self.method, "mutate", jobs))[0]
        mutate_jobs = [
            self._mutate(question, f, relation, log)
            for f in factoids
            for relation in (Relation.SYNONYM, Relation.ANTONYM)
        ]
        mutated = await run_stage(log, self.method, "mutate", mutate_jobs)
        return [(mutated[2 * i], mutated[2 * i + 1]) for i in range(len(factoids))]

    async def _verdicts(
        self,
        variant_texts: list[tuple[list[tuple[str, bool]], list[tuple[str, bool]]]],
        factoids: list[str],
        passages: list[str],
        log: CallLog,
    ) -> list[list[Verdict]]:
        """Verdicts for every variant, in order: one call per variant (paper), per factoid or
        per answer. Each request names the factoid a variant was made from."""
        per_factoid = [[text for text, _ in syn + ant] for syn, ant in variant_texts]
        sources = [f for f, group in zip(factoids, per_factoid, strict=True) for _ in group]
        if not any(per_factoid):
            return []  # every factoid settled by the cascade's screen: nothing to verify
        if self.config.protocol == "paper":
            relations = [
                relation
                for syn, ant in variant_texts
                for relation in [Relation.SYNONYM] * len(syn) + [Relation.ANTONYM] * len(ant)
            ]
            texts = [text for group in per_factoid for text in group]
            jobs = [
                self._verify(text, relation, passages, log, source)
                for text, relation, source in zip(texts, relations, sources, strict=True)
            ]
            return await run_stage(log, self.method, VERIFY, jobs)
        everything = [text for group in per_factoid for text in group]
        groups = per_factoid if self.config.protocol == "factoid" else [everything]
        origins = iter(sources)
        calls = [self._verify_batch(g, passages, log, [next(origins) for _ in g]) for g in groups]
        batches = await run_stage(log, self.method, VERIFY, calls)
        return [verdicts for batch in batches for verdicts in batch]

    async def _decompose(self, question: str, answer: str, log: CallLog) -> list[str]:
        """``answer`` (already read with its question) into factoids. The paper protocol
        sends prompt A.1 verbatim; the cheaper ones send the question too (their
        ``decompose_in_context`` template, when the prompt set has one), so an LLM resolves
        what the offline rules could not."""
        in_context = (
            self.config.protocol != "paper"
            and bool(question.strip())
            and _IN_CONTEXT in self.prompts.templates
        )
        request = self._build(
            DECOMPOSE,
            items=estimated_tokens(answer),
            varying="inputText",
            values={"inputText": answer, "question": question}
            if in_context
            else {"inputText": answer},
            inputs={"text": answer, "question": question},
            template=_IN_CONTEXT if in_context else None,
        )
        reply = await self._request(log, self.decomposer, DECOMPOSE, request)
        items, found = parse_statements(reply.text)
        items, found = drop_echoes(items, found, request.prompt)
        if not items and found:
            items = [answer[s:e] for s, e in split_sentences(answer, rules="plain")]
            found = found.as_unusable("used the answer's sentences as factoids")
        elif not items:
            # An empty list is no signal on its own: a weak judge lists nothing for a plainly
            # factual answer. The offline decomposer gives a second opinion; when it finds
            # factual statements, those are checked instead of the answer passing unverified.
            items = offline_factoids(answer)
            if items:
                found = failure(
                    "no_items",
                    f"the decomposer listed no factoid; the offline decomposer found "
                    f"{len(items)}, used as factoids",
                )
        log.record(reply.call, found)
        seen: set[str] = set()
        unique = []
        for item in items:
            key = " ".join(item.lower().split())
            if key not in seen:
                seen.add(key)
                unique.append(item)
        return unique

    async def _mutate(
        self, question: str, factoid: str, relation: Relation, log: CallLog
    ) -> list[tuple[str, bool]]:
        task = SYNONYM if relation is Relation.SYNONYM else ANTONYM
        k = self.config.k
        request = self._build(
            task,
            items=k,
            varying="question",
            values={"count": k, "question": question, "factoid": factoid},
            inputs={"question": question, "factoid": factoid, "count": k},
            temperature=self.config.temperature,
        )
        reply = await self._request(log, self.generator, task, request)
        items, found = parse_statements(reply.text)
        items, found = drop_echoes(items, found, request.prompt)
        variants, found = self._usable(items, found, factoid, relation)
        log.record(reply.call, found)
        return variants

    def _usable(
        self, items: list[str], found: ParseFailure | None, factoid: str, relation: Relation
    ) -> tuple[list[tuple[str, bool]], ParseFailure | None]:
        """The first ``k`` distinct usable variants, filled mechanically when short."""
        task = SYNONYM if relation is Relation.SYNONYM else ANTONYM
        k = self.config.k
        own = " ".join(factoid.lower().split()).rstrip(".")
        usable: list[str] = []
        for item in items:
            norm = " ".join(item.lower().split()).rstrip(".")
            if relation is Relation.ANTONYM and norm == own:
                continue  # an "antonym" identical to the claim is no mutation
            if norm not in {" ".join(u.lower().split()).rstrip(".") for u in usable}:
                usable.append(item)
        variants = [(text, True) for text in usable[:k]]
        if len(variants) < k:
            filler = factoid if relation is Relation.SYNONYM else _negate(factoid)
            note = f"{len(variants)} of {k} {task} variants usable; filled with mechanical {task}"
            found = join(found, failure("too_few_items", note, unusable=not variants))
            variants += [(filler, False)] * (k - len(variants))
        return variants, found

    async def _mutate_all(
        self, question: str, factoids: list[str], log: CallLog
    ) -> list[tuple[list[tuple[str, bool]], list[tuple[str, bool]]]]:
        """Synonyms and antonyms of every factoid in one call (the cheaper protocols)."""
        k = self.config.k
        request = self._build(
            MUTATE_ALL,
            items=2 * k * len(factoids),
            varying="question",
            values={"count": k, "question": question, "factoids": _numbered(factoids)},
            inputs={"question": question, "factoids": list(factoids), "count": k},
            temperature=self.config.temperature,
        )
        reply = await self._request(log, self.generator, MUTATE_ALL, request)
        parsed, found = parse_mutations(reply.text, len(factoids))
        notes: list[ParseFailure | None] = [found]
        out = []
        for factoid, (synonyms, antonyms) in zip(factoids, parsed, strict=True):
            synonyms, syn_echo = drop_echoes(synonyms, None, request.prompt)
            antonyms, ant_echo = drop_echoes(antonyms, None, request.prompt)
            syn, syn_note = self._usable(synonyms, None, factoid, Relation.SYNONYM)
            ant, ant_note = self._usable(antonyms, None, factoid, Relation.ANTONYM)
            notes += [syn_echo, ant_echo, syn_note, ant_note]
            out.append((syn, ant))
        # the call is unusable only when no factoid got a single generated variant from it
        usable = any(generated for syn, ant in out for _, generated in syn + ant)
        found = _join_unique(notes, unusable=not usable)
        log.record(reply.call, found)
        return out

    async def _verify_batch(
        self, statements: list[str], passages: list[str], log: CallLog, sources: list[str]
    ) -> list[list[Verdict]]:
        """One call per verifier for a numbered list of statements; each item parsed alone."""
        context = "\n\n".join(passages)
        request = self._build(
            VERIFY_BATCH,
            items=len(statements),
            varying="statements",
            values={"context": context, "statements": _numbered(statements)},
            inputs={
                "statements": list(statements),
                "context": context,
                "passages": passages,
                "factoids": sources,
            },
        )

        def parse(verifier: Judge, text: str) -> tuple[list[Verdict], ParseFailure | None]:
            if copies_instructions(text, request.prompt):
                unsure = Verdict(judge=verifier.name, label=Label.NOT_SURE, reason="", parsed=False)
                return [unsure] * len(statements), _COPIED
            items, found = parse_numbered_verdicts(text, len(statements))
            verdicts = [
                Verdict(judge=verifier.name, label=label, reason=reason, parsed=parsed)
                for label, reason, parsed in items
            ]
            return verdicts, found

        per_verifier = await self._ask_verifiers(log, VERIFY_BATCH, request, parse)
        return [list(verdicts) for verdicts in zip(*per_verifier, strict=True)]

    async def _verify(
        self, statement: str, relation: Relation, passages: list[str], log: CallLog, source: str
    ) -> list[Verdict]:
        context = "\n\n".join(passages)
        request = self._build(
            VERIFY,
            items=1,
            varying="statement",
            values={"context": context, "statement": statement},
            inputs={
                "statement": statement,
                "context": context,
                "passages": passages,
                "factoid": source,
            },
        )

        def parse(verifier: Judge, text: str) -> tuple[Verdict, ParseFailure | None]:
            if copies_instructions(text, request.prompt):
                unsure = Verdict(judge=verifier.name, label=Label.NOT_SURE, reason="", parsed=False)
                return unsure, _COPIED
            label, reason, found = parse_verdict(text)
            verdict = Verdict(judge=verifier.name, label=label, reason=reason, parsed=found is None)
            return verdict, found

        return await self._ask_verifiers(log, VERIFY, request, parse)

    async def _ask_verifiers(
        self,
        log: CallLog,
        stage: str,
        request: JudgeRequest,
        parse: Callable[[Judge, str], tuple[_T, ParseFailure | None]],
    ) -> list[_T]:
        """Every verifier's parsed reply to ``request``, in verifier order. Each good call is
        recorded (with its parse failure) before the first failed call's error is raised."""
        replies = await asyncio.gather(
            *(self._request(log, v, stage, request) for v in self.verifiers),
            return_exceptions=True,
        )
        parsed: list[_T] = []
        for verifier, reply in zip(self.verifiers, replies, strict=True):
            if isinstance(reply, BaseException):
                continue  # raised below, once every good verifier's call is recorded
            value, found = parse(verifier, reply.text)
            log.record(reply.call, found)
            parsed.append(value)
        for reply in replies:
            if isinstance(reply, BaseException):
                raise reply
        return parsed

    def _build(
        self,
        task: str,
        *,
        items: int,
        varying: str,
        values: dict[str, Any],
        inputs: dict[str, Any],
        temperature: float = 0.0,
        template: str | None = None,
    ) -> JudgeRequest:
        """``task``'s request: its prompt (``template``, by default the task's own; the part
        before ``${varying}`` marked as shared), the prompt set's system message, and the
        task's budget for ``items`` and its stops."""
        prompt, shared = self.prompts.render_shared(template or task, varying, **values)
        prompt += language_note(task)  # "" for English: the published prompts as they are
        budget = BUDGETS[task]
        return JudgeRequest(
            task=task,
            prompt=prompt,
            shared_prefix=shared,
            system=self.prompts.system,
            inputs=inputs,
            temperature=temperature,
            max_tokens=budget.tokens(items, self.config.max_tokens),
            stop=budget.stop,
            schema=schema_for(task) if self.config.structured_output == "auto" else None,
        )

    async def _request(
        self, log: CallLog, judge: Judge, stage: str, request: JudgeRequest
    ) -> _Reply:
        """One call; an empty reply to a request with stops is asked once more without them
        (the empty call is recorded with its reason)."""
        response, call = await stage_request(log, self._runner(judge), stage, request)
        if response.text.strip() or not request.stop:
            return _Reply(response.text, call)
        log.record(call, _EMPTY_RETRIED)
        retry = replace(request, stop=())
        response, call = await stage_request(log, self._runner(judge), stage, retry)
        return _Reply(response.text, call)


@functools.cache
def _offline_decomposer() -> Callable[[str], list[str]]:
    from guardrail.judges.local.decompose import Decomposer
    from guardrail.judges.local.lexicon import Lexicon

    return Decomposer(Lexicon.load()).decompose


def offline_factoids(answer: str) -> list[str]:
    """The factual statements the offline (rule-based) decomposer finds in ``answer``."""
    return _offline_decomposer()(answer)


#: The cheaper protocols' decomposition template that also reads the question.
_IN_CONTEXT = "decompose_in_context"

_COPIED = failure(
    "echoed_instructions",
    "reply copies the prompt's instructions or examples; treated as NOT SURE",
    unusable=True,
)
_EMPTY_RETRIED = failure("empty", "empty reply; asked again without stop sequences", unusable=True)


def _join_unique(parts: list[ParseFailure | None], *, unusable: bool) -> ParseFailure | None:
    """``parts`` joined, each note once (factoids often share one), marked ``unusable``."""
    seen: dict[str, ParseFailure] = {}
    for part in parts:
        if part is not None:
            seen.setdefault(part.note, part)
    found = join(*seen.values())
    if found is None:
        return None
    return ParseFailure(found.note, found.causes, unusable)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


@functools.lru_cache(maxsize=32)
def _own_words(instructions: str) -> str:
    """The prompt's own instructions and examples, normalized (remembered per instruction
    text: it is the same for every call of a stage, whatever the data it fences)."""
    return _norm(instructions)


def copies_instructions(reply: str, prompt: str) -> bool:
    """True when the reply's first line (20 characters or more) is copied from the prompt's
    own instructions or examples (outside its data fences): a parrot, not a verdict."""
    body, _echoed = strip_echoed_fence(reply)
    first = next((line for line in body.splitlines() if line.strip()), "")
    norm = _norm(first).rstrip(".")
    return len(norm) >= 20 and norm in _own_words(instruction_text(prompt))


def drop_echoes(
    items: list[str], found: ParseFailure | None, prompt: str
) -> tuple[list[str], ParseFailure | None]:
    """``items`` without those that copy the prompt's own instructions or examples (text
    outside its data fences) or its data-fence markers, with a failure added to ``found`` when
    any were dropped (unusable when none is left)."""
    if not items:
        return items, found
    own = _own_words(instruction_text(prompt))
    kept = []
    for item in items:
        norm = _norm(item).rstrip(".")
        if (len(norm) >= 12 and norm in own) or has_marker(item):
            continue
        kept.append(item)
    if len(kept) == len(items):
        return items, found
    note = f"{len(items) - len(kept)} item(s) copied from the prompt's instructions; dropped"
    return kept, join(found, failure("echoed_instructions", note, unusable=not kept))


def unusable(factoids: Sequence[Factoid], log: CallLog) -> str | None:
    """Why the judge gave no signal for this answer, or ``None`` when it gave some.

    No signal: the answer has verified variants and every verdict is NOT SURE because its
    reply could not be parsed. The reason counts the unusable replies by cause and names the
    calls' parse failures.
    """
    verdicts = [v for f in factoids for variant in f.variants for v in variant.verdicts]
    if not verdicts or any(v.parsed or v.label is not Label.NOT_SURE for v in verdicts):
        return None
    unusable_calls = [c for c in log.calls if c.reply_unusable]
    causes = ", ".join(f"{c} {n}" for c, n in count_causes(unusable_calls).items())
    reasons = Counter(f"{c.stage}: {c.parse_failure}" for c in log.calls if c.parse_failure)
    listed = "; ".join(f"{reason} (x{n})" if n > 1 else reason for reason, n in reasons.items())
    return (
        f"no parsable verdict in {len(verdicts)} verdict(s); {len(unusable_calls)} of "
        f"{len(log.calls)} judge replies unusable ({causes or 'no cause recorded'}): {listed}"
    )[:2000]


@dataclass(frozen=True)
class _Reply:
    text: str
    call: JudgeCall
