"""``LocalJudge``: the embedded offline judge — no network, no API key, no model weights.

It answers every scorer task in the same text format the LLM prompts ask for, so the scorers
parse its replies with the same parsers they use for LLMs:

========================== ==================================== ==============================
task                       inputs                               reply
========================== ==================================== ==============================
decompose, claims          ``text``, ``question``               JSON array of factoid strings
synonym / antonym          ``factoid``, ``count``, ``question`` ``count`` lines
verify                     ``statement``, ``context``           ``YES|NO|NOT SURE. reason``
local_verify,              ``claim``, ``context``, ``hint``     ``ENTAILED|CONTRADICTED|``
global_verify                                                   ``BASELESS. reason``
========================== ==================================== ==============================

It reads ``request.inputs`` only (never the prompt), is deterministic, and caches each
context's preprocessing in a small per-instance LRU, because every verify call for one answer
sends the same context.

Three verifiers answer the verify tasks: ``"rules"`` (the lexical rules of
:mod:`~guardrail.judges.local.verify`), ``"trained"`` (a small model over the same matching
pass, :mod:`~guardrail.judges.local.trained`, shipped as ``verifier.json``) and ``"encoder"`` (the
same kind of model stacked on a fine-tuned MiniLM cross-encoder that reads the statement and
its best context window, run with onnxruntime, :mod:`~guardrail.judges.local.encoder`; needs
the ``encoder`` extra).
Decomposition and mutation are the same rules in all three.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from guardrail.exceptions import ConfigError, JudgeRequestError
from guardrail.judges.base import MUTATE_ALL, VERIFY_BATCH, JudgeRequest, JudgeResponse
from guardrail.judges.local.decompose import Decomposer
from guardrail.judges.local.encoder import (
    WINDOW_WORDS,
    EncoderModel,
    context_sentences,
    window,
)
from guardrail.judges.local.features import (
    ContextProfile,
    Features,
    Polarity,
    checkable,
    context_profile,
    extract,
    polarity,
)
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.mutate import Mutator
from guardrail.judges.local.structured import json_to_prose
from guardrail.judges.local.trained import VerifierModel
from guardrail.judges.local.verify import (
    Assessment,
    ContextIndex,
    Finding,
    Support,
    Thresholds,
    assess,
    index_context,
    verify,
)

MODEL = "local-rules-v1"
TRAINED_MODEL = "local-trained-v1"
ENCODER_MODEL = "local-encoder-v2"
#: Variants remembered per judge (variant text -> the factoid it was made from).
_SOURCES_KEPT = 4096
VerifierKind = Literal["rules", "trained", "encoder"]
VERIFIERS: tuple[VerifierKind, ...] = ("rules", "trained", "encoder")
_MODEL_NAMES = {"rules": MODEL, "trained": TRAINED_MODEL, "encoder": ENCODER_MODEL}
_JUDGE_NAMES = {"rules": "local", "trained": "local-trained", "encoder": "local-encoder"}
_MAX_COUNT = 50
_METARAG_LABELS = {
    Support.SUPPORTED: "YES",
    Support.CONTRADICTED: "NO",
    Support.UNKNOWN: "NOT SURE",
}
_RT4CHART_LABELS = {
    Support.SUPPORTED: "ENTAILED",
    Support.CONTRADICTED: "CONTRADICTED",
    Support.UNKNOWN: "BASELESS",
}


def _text(inputs: Mapping[str, Any], key: str) -> str:
    """``inputs[key]`` as text; a missing key is a malformed request (a typo must not turn
    into a silent NOT SURE), while an empty or ``None`` value is empty text."""
    if key not in inputs:
        raise JudgeRequestError(f"local judge: request inputs lack {key!r}")
    value = inputs[key]
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "\n\n".join(str(v) for v in value if v is not None)
    return str(value)


def _flat(lines: Sequence[str]) -> list[str]:
    """Each line with its white space runs made single spaces."""
    return [" ".join(line.split()) for line in lines]


def _texts(inputs: Mapping[str, Any], key: str) -> list[str]:
    """``inputs[key]`` as a list of texts (a missing key or a non-list is a malformed request)."""
    if key not in inputs:
        raise JudgeRequestError(f"local judge: request inputs lack {key!r}")
    value = inputs[key]
    if not isinstance(value, (list, tuple)):
        raise JudgeRequestError(f"local judge: {key!r} must be a list of texts")
    return ["" if v is None else str(v) for v in value]


def _count(inputs: Mapping[str, Any]) -> int:
    raw = inputs.get("count", 1)
    try:
        count = int(raw)
    except (TypeError, ValueError):
        raise JudgeRequestError(f"local judge: 'count' must be an integer, got {raw!r}") from None
    return max(0, min(count, _MAX_COUNT))


@dataclass(frozen=True)
class _Prepared:
    """One context preprocessed for both verifiers."""

    index: ContextIndex
    profile: ContextProfile | None = None
    sentences: tuple[str, ...] = ()
    #: The encoder's window per source text read against this context (a factoid's variants
    #: all read the factoid: its window is found once).
    windows: dict[str, str] = field(default_factory=dict)


class LocalJudge:
    """Offline judge for MetaRAG and RT4CHART tasks.

    ``verifier`` picks the verify-task engine: ``"rules"``, ``"trained"`` (the packaged model,
    or the model file at ``model_path``) or ``"encoder"`` (the packaged encoder, or the encoder
    directory at ``model_path``). ``support_threshold`` and ``conflict_threshold`` are
    the coverage (0..1) a context sentence needs before the rules answer YES, or call a
    polarity/number/entity clash a NO (the trained verifier reads its own thresholds from its
    model file). ``cache_size`` bounds how many preprocessed contexts are kept.
    """

    def __init__(
        self,
        *,
        verifier: VerifierKind = "rules",
        model_path: str | Path | None = None,
        support_threshold: float = Thresholds.support,
        conflict_threshold: float = Thresholds.conflict,
        cache_size: int = 32,
    ) -> None:
        if verifier not in VERIFIERS:
            raise ConfigError(f"verifier must be one of {', '.join(VERIFIERS)}, got {verifier!r}")
        if model_path is not None and verifier == "rules":
            raise ConfigError("model_path needs verifier='trained' or 'encoder'")
        if not 0.0 <= support_threshold <= 1.0 or not 0.0 <= conflict_threshold <= 1.0:
            raise ConfigError("thresholds must be within [0, 1]")
        if cache_size < 1:
            raise ConfigError("cache_size must be >= 1")
        self.verifier: VerifierKind = verifier
        self.model_path = model_path
        self.thresholds = Thresholds(support=support_threshold, conflict=conflict_threshold)
        self.cache_size = cache_size
        self._lexicon: Lexicon | None = None
        self._decomposer: Decomposer | None = None
        self._mutator: Mutator | None = None
        self._model: VerifierModel | None = None
        self._encoder: EncoderModel | None = None
        self._cache: OrderedDict[str, _Prepared] = OrderedDict()
        self._sources: OrderedDict[str, str] = OrderedDict()

    @classmethod
    def with_model(cls, model: VerifierModel, **options: Any) -> LocalJudge:
        """A trained-verifier judge using an already loaded model (training and benchmarks)."""
        judge = cls(verifier="trained", **options)
        judge._model = model
        return judge

    @classmethod
    def with_encoder(cls, encoder: EncoderModel, **options: Any) -> LocalJudge:
        """An encoder-verifier judge using an already loaded encoder (training and benchmarks)."""
        judge = cls(verifier="encoder", **options)
        judge._encoder = encoder
        return judge

    @property
    def name(self) -> str:
        return _JUDGE_NAMES[self.verifier]

    @property
    def encoder(self) -> EncoderModel:
        """The encoder verifier's model, loaded on first use (needs the ``encoder`` extra)."""
        if self._encoder is None:
            self._encoder = EncoderModel(self.model_path)
        return self._encoder

    @property
    def model(self) -> VerifierModel:
        """The trained verifier's model, read on first use (so the constructor does no I/O)."""
        if self._model is None:
            self._model = VerifierModel.load(self.model_path)
        return self._model

    @property
    def lexicon(self) -> Lexicon:
        """Loaded on first use, so constructing a judge does no I/O."""
        if self._lexicon is None:
            self._lexicon = Lexicon.load()
        return self._lexicon

    @property
    def decomposer(self) -> Decomposer:
        """The rule decomposer over :attr:`lexicon`, built once."""
        if self._decomposer is None:
            self._decomposer = Decomposer(self.lexicon)
        return self._decomposer

    @property
    def mutator(self) -> Mutator:
        """The rule mutator over :attr:`lexicon`, built once."""
        if self._mutator is None:
            self._mutator = Mutator(self.lexicon)
        return self._mutator

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        text = self.answer(request.task, request.inputs)
        return JudgeResponse(
            text=text,
            model=_MODEL_NAMES[self.verifier],
            prompt_tokens=len(request.prompt.split()),
            completion_tokens=len(text.split()),
        )

    def answer(self, task: str, inputs: Mapping[str, Any]) -> str:
        """The reply text for one task (synchronous core of :meth:`complete`)."""
        if task in ("decompose", "claims"):
            factoids = self.decomposer.decompose(_text(inputs, "text"))
            return json.dumps(factoids, ensure_ascii=False)
        if task in ("synonym", "antonym"):
            factoid = _text(inputs, "factoid")
            count = _count(inputs)
            mutator = self.mutator
            lines = (
                mutator.synonyms(factoid, count)
                if task == "synonym"
                else mutator.antonyms(factoid, count)
            )
            flat = _flat(lines)
            self._remember(factoid, flat)
            return "\n".join(flat)
        if task == "verify":
            finding = self.check(_text(inputs, "statement"), self._context(inputs))
            return f"{_METARAG_LABELS[finding.outcome]}. {finding.reason}"
        if task == MUTATE_ALL:
            count = _count(inputs)
            reply: dict[str, dict[str, list[str]]] = {}
            for n, factoid in enumerate(_texts(inputs, "factoids"), start=1):
                synonyms = _flat(self.mutator.synonyms(factoid, count))
                antonyms = _flat(self.mutator.antonyms(factoid, count))
                self._remember(factoid, [*synonyms, *antonyms])
                reply[str(n)] = {"synonyms": synonyms, "antonyms": antonyms}
            return json.dumps(reply, ensure_ascii=False)
        if task == VERIFY_BATCH:
            context = self._context(inputs)
            findings = self.check_many(_texts(inputs, "statements"), context)
            return "\n".join(
                f"{n}. {_METARAG_LABELS[f.outcome]}. {f.reason}"
                for n, f in enumerate(findings, start=1)
            )
        if task in ("local_verify", "global_verify"):
            finding = self.check(_text(inputs, "claim"), self._context(inputs), rt4chart=True)
            return f"{_RT4CHART_LABELS[finding.outcome]}. {finding.reason}"
        raise JudgeRequestError(f"local judge: unknown task {task!r}")

    def check(self, statement: str, context: str, *, rt4chart: bool = False) -> Finding:
        """Verify one statement against a context (uses the context cache).

        ``rt4chart`` selects the trained verifier's RT4CHART operating point.
        """
        if self.verifier == "rules":
            return verify(statement, self._prepare(context).index, self.lexicon, self.thresholds)
        return self.check_many([statement], context, rt4chart=rt4chart)[0]

    def check_many(
        self, statements: Sequence[str], context: str, *, rt4chart: bool = False
    ) -> list[Finding]:
        """:meth:`check` for several statements against one context (the encoder reads their
        sources as one batch)."""
        if self.verifier == "rules":
            return [self.check(s, context, rt4chart=rt4chart) for s in statements]
        prepared = self._prepare(context, trained=True)
        assert prepared.profile is not None
        read: list[tuple[Assessment, Features]] = []
        for statement in statements:
            a = assess(statement, prepared.index, self.lexicon, self.thresholds)
            read.append((a, extract(a, prepared.index, prepared.profile, self.lexicon)))
        if self.verifier == "trained":
            model = self.model
            return [
                self._decide(model, a, f, None, rt4chart) if checkable(f) else a.finding
                for a, f in read
            ]
        encoder = self.encoder
        stack = encoder.stack
        assert stack is not None  # EncoderModel() requires one unless told otherwise
        pairs = [
            self._encoder_pair(s, a, prepared)
            for s, (a, f) in zip(statements, read, strict=True)
            if checkable(f)
        ]
        probs = iter(encoder.probabilities(pairs))
        return [
            self._decide(stack, a, f, next(probs), rt4chart) if checkable(f) else a.finding
            for a, f in read
        ]

    def _decide(
        self,
        model: VerifierModel,
        assessment: Assessment,
        features: Features,
        encoder: Sequence[float] | None,
        rt4chart: bool,
    ) -> Finding:
        """The trained (or, with ``encoder`` probabilities, stacked) model's finding."""
        p = model.probability(features if encoder is None else features.stacked(encoder))
        decision = model.decision
        flipped = polarity(assessment).flipped(decision.trust)
        outcome = decision.outcome(
            p,
            flipped,
            clash=assessment.finding.outcome is Support.CONTRADICTED,
            support=decision.entailed if rt4chart else None,
        )
        reason = _trained_reason(outcome, assessment.finding, p, flipped)
        if encoder is not None:
            reason = f"{reason[:-1] if reason.endswith('.') else reason} {_encoder_note(encoder)}."
        return Finding(outcome, reason)

    def _remember(self, factoid: str, variants: Sequence[str]) -> None:
        """Note which factoid each variant was made from (the encoder reads the factoid)."""
        if self.verifier != "encoder":
            return
        for v in variants:
            self._sources[v] = factoid
            self._sources.move_to_end(v)
        while len(self._sources) > _SOURCES_KEPT:
            self._sources.popitem(last=False)

    def source(self, statement: str) -> str:
        """The text the encoder reads for ``statement``: the factoid this judge's mutator made
        it from, else the statement itself."""
        return self._sources.get(statement, statement)

    def _encoder_pair(
        self, statement: str, assessment: Assessment, prepared: _Prepared
    ) -> tuple[str, str]:
        source = self.source(statement)
        found = prepared.windows.get(source)
        if found is None:
            if source != statement:
                assessment = assess(source, prepared.index, self.lexicon, self.thresholds)
            found = window(assessment, prepared.sentences, self.encoder.window_words)
            if len(prepared.windows) < _SOURCES_KEPT:
                prepared.windows[source] = found
        return source, found

    def window(self, statement: str, context: str, words: int = WINDOW_WORDS) -> str:
        """The context window the encoder verifier checks ``statement`` against (training uses
        this, so its inputs match scoring's)."""
        prepared = self._prepare(context, trained=True)
        assessment = assess(statement, prepared.index, self.lexicon, self.thresholds)
        return window(assessment, prepared.sentences, words)

    def unsupported_risk(self, statement: str, context: str) -> float | None:
        """The trained verifier's probability that ``statement`` is not supported by
        ``context``: the cascade's screen (:mod:`guardrail.scoring.cascade`).

        1.0 when the statement reverses the context (polarity) or, with the model's
        ``rule_clash``, when the rules find a clashing number or name: such a statement is never
        settled as supported. ``None`` when there is nothing to weigh (no content words, no
        context). Uses the trained model whatever :attr:`verifier` is.
        """
        prepared = self._prepare(context, trained=True)
        assessment = assess(statement, prepared.index, self.lexicon, self.thresholds)
        assert prepared.profile is not None
        features = extract(assessment, prepared.index, prepared.profile, self.lexicon)
        if not checkable(features):
            return None
        decision = self.model.decision
        return decision.screen_risk(
            self.model.probability(features),
            polarity(assessment).flipped(decision.trust),
            clash=assessment.finding.outcome is Support.CONTRADICTED,
        )

    def features(self, statement: str, context: str) -> tuple[Features, Polarity]:
        """The trained verifier's features of one statement, and its polarity.

        Used by the training script; the same code path as :meth:`check`.
        """
        prepared = self._prepare(context, trained=True)
        assessment = assess(statement, prepared.index, self.lexicon, self.thresholds)
        assert prepared.profile is not None
        return (
            extract(assessment, prepared.index, prepared.profile, self.lexicon),
            polarity(assessment),
        )

    def _context(self, inputs: Mapping[str, Any]) -> str:
        """``context``, or when it is absent or blank, ``passages`` (at least one is needed)."""
        if "context" not in inputs and "passages" not in inputs:
            raise JudgeRequestError("local judge: request inputs lack 'context' (or 'passages')")
        context = _text(inputs, "context") if "context" in inputs else ""
        if not context.strip() and "passages" in inputs:
            context = _text(inputs, "passages")
        return context

    def _index(self, context: str) -> ContextIndex:
        return self._prepare(context).index

    def _prepare(self, context: str, *, trained: bool | None = None) -> _Prepared:
        trained = self.verifier != "rules" if trained is None else trained
        raw = context.encode("utf-8", "surrogatepass")
        key = ("t:" if trained else "r:") + hashlib.blake2b(raw, digest_size=16).hexdigest()
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        if trained:
            text = json_to_prose(context)
            index = index_context(text, self.lexicon)
            prepared = _Prepared(
                index,
                context_profile(text, structured=text is not context),
                tuple(context_sentences(index)),
            )
        else:
            prepared = _Prepared(index_context(context, self.lexicon))
        self._cache[key] = prepared
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return prepared


def _trained_reason(outcome: Support, rules: Finding, p: float, flipped: bool) -> str:
    """A one-line reason: the rules' evidence when they agree, else what the model saw."""
    risk = f"(unsupported-risk {p:.2f})"
    if outcome is rules.outcome:
        return f"{rules.reason} {risk}"
    if outcome is Support.SUPPORTED:
        return f"The context covers this statement {risk}."
    if outcome is Support.CONTRADICTED:
        if flipped:
            return f"The statement reverses what the context says {risk}."
        return f"The context gives no support for this statement; very likely unfounded {risk}."
    return f"The context does not clearly support this statement {risk}."


def _encoder_note(probs: Sequence[float]) -> str:
    """What the encoder said of the statement's source, for the reason line."""
    return f"(encoder: supported {probs[0]:.2f}, unsupported {probs[2]:.2f})"
