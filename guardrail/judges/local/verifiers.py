"""The offline judge's verifiers: one protocol, three implementations, one factory.

A :class:`Verifier` answers the verify tasks of :class:`~guardrail.judges.local.LocalJudge`:
given statements and one context, a :class:`~guardrail.judges.local.verify.Finding` (supported,
contradicted or unknown, with a one-line reason) per statement.

=========== ======================= ===========================================================
name        class                   how it decides
=========== ======================= ===========================================================
``rules``   :class:`RulesVerifier`  the lexical rules of :mod:`~guardrail.judges.local.verify`
``trained`` :class:`TrainedVerifier` a small model over the same matching pass
                                    (:mod:`~guardrail.judges.local.trained`, ``verifier.json``)
``encoder`` :class:`EncoderVerifier` the same kind of model stacked on a fine-tuned MiniLM
                                    cross-encoder (:mod:`~guardrail.judges.local.encoder`;
                                    needs the ``encoder`` extra)
=========== ======================= ===========================================================

To add a verifier, write a class with the protocol's three members and pass an instance to
``LocalJudge(verifier=...)``, or register it with :func:`register_verifier` to name it in a
policy as ``judge: local:NAME``.

Each verifier keeps a small LRU of preprocessed contexts, because every verify call for one
answer sends the same context.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from guardrail.exceptions import ConfigError
from guardrail.judges.local import ages, medicines
from guardrail.judges.local.conflict import Conflict, ConflictCheck
from guardrail.judges.local.encoder import EncoderModel, context_sentences, window
from guardrail.judges.local.features import (
    ContextProfile,
    Features,
    checkable,
    context_kind,
    context_profile,
    extract,
    polarity,
    reverses,
)
from guardrail.judges.local.lexicon import VERDICT, Lexicon
from guardrail.judges.local.records import RecordFacts, record_finding
from guardrail.judges.local.replies import (
    is_resolved,
    reply_values,
    reply_verdict,
    turn_question,
)
from guardrail.judges.local.slots import slot_verdict
from guardrail.judges.local.structured import json_to_prose
from guardrail.judges.local.trained import VerifierModel
from guardrail.judges.local.verify import (
    CORES_KEPT,
    Assessment,
    ContextIndex,
    Finding,
    Support,
    Term,
    Thresholds,
    assess,
    index_context,
    quote,
)
from guardrail.lang.context import current_language
from guardrail.registry import Capabilities, Registry
from guardrail.text.stemming import stem

MODEL = "local-rules-v1"
TRAINED_MODEL = "local-trained-v1"
ENCODER_MODEL = "local-encoder-v2"
#: Windows (and factoid findings) remembered per context (one per statement source read
#: against it).
_WINDOWS_KEPT = 4096


@runtime_checkable
class Verifier(Protocol):
    """What :class:`~guardrail.judges.local.LocalJudge` needs from a verifier."""

    #: The judge's name in verdicts and reports (e.g. ``"local-trained"``).
    name: str
    #: The model label of the judge's responses (e.g. ``"local-trained-v1"``).
    model: str

    def check(
        self,
        statements: Sequence[str],
        context: str,
        *,
        sources: Sequence[str] | None = None,
        rt4chart: bool = False,
    ) -> list[Finding]:
        """One finding per statement. ``sources[i]`` is the factoid statement ``i`` was made
        from (a MetaRAG variant's factoid; the statement itself when ``None``); ``rt4chart``
        selects RT4CHART's operating point where a verifier has one."""
        ...

    def fitted(self) -> list[tuple[str, dict[str, Any]]]:
        """The fitted models this verifier reads, as (what, provenance metadata) pairs."""
        ...


@dataclass(frozen=True)
class Prepared:
    """One context preprocessed for a verifier."""

    index: ContextIndex
    profile: ContextProfile | None = None
    sentences: tuple[str, ...] = ()
    #: The encoder's window per source text read against this context (a factoid's variants
    #: all read the factoid: its window is found once).
    windows: dict[str, str] = field(default_factory=dict)
    #: The conflict check over this context (its per-sentence values are read once).
    conflicts: ConflictCheck | None = None
    #: The yes/no attributes of a JSON record context (``None`` for other contexts).
    records: RecordFacts | None = None
    #: The first letters of the context's words, to find a medicine it names (see
    #: :func:`~guardrail.judges.local.medicines.named`).
    medicines: frozenset[str] = frozenset()
    #: The matching pass per statement core (see :func:`~guardrail.judges.local.verify.assess`).
    cores: dict[str, Any] = field(default_factory=dict)
    #: The trained features per statement core (they do not depend on the framing).
    features: dict[str, Features] = field(default_factory=dict)
    #: A factoid's own finding (``None``: nothing to weigh) per (factoid, RT4CHART operating
    #: point): its variants each read it (:meth:`TrainedVerifier.from_factoid`), it is found once.
    factoids: dict[tuple[str, bool], Finding | None] = field(default_factory=dict)


class LexicalVerifier:
    """What every packaged verifier shares: the lexicon, thresholds and the context cache.

    ``prose`` verifiers read a JSON context as prose and profile it for the trained features.
    """

    name: str
    model: str
    prose: ClassVar[bool] = True

    def __init__(
        self,
        *,
        thresholds: Thresholds | None = None,
        cache_size: int = 32,
        lexicon: Lexicon | None = None,
    ) -> None:
        if cache_size < 1:
            raise ConfigError("cache_size must be >= 1")
        self.thresholds = thresholds or Thresholds()
        self.cache_size = cache_size
        self._lexicon = lexicon
        self._last_lexicon: tuple[str, Lexicon] | None = None
        self._cache: OrderedDict[tuple[str, str], Prepared] = OrderedDict()

    @property
    def lexicon(self) -> Lexicon:
        """The lexicon given to the constructor, else the one of the language being read
        (:func:`guardrail.lang.context.current_language`), loaded on first use so that
        constructing a verifier does no I/O."""
        if self._lexicon is not None:
            return self._lexicon
        code = current_language()
        last = self._last_lexicon  # read once: another thread may replace it meanwhile
        if last is not None and last[0] == code:
            return last[1]
        found = Lexicon.for_language(code)
        self._last_lexicon = (code, found)
        return found

    def fitted(self) -> list[tuple[str, dict[str, Any]]]:
        return []

    def prepare(self, context: str) -> Prepared:
        """``context`` preprocessed (cached by content: the text itself is the key, so a
        repeated context costs one dict lookup, its hash being kept on the string)."""
        key = (current_language(), context)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        profile: ContextProfile | None = None
        sentences: tuple[str, ...] = ()
        if self.prose:
            text = json_to_prose(context)
            index = index_context(text, self.lexicon)
            profile = context_profile(text, structured=text is not context)
            sentences = tuple(context_sentences(index))
        else:
            index = index_context(context, self.lexicon)
        prepared = Prepared(
            index,
            profile,
            sentences,
            conflicts=ConflictCheck(index, self.lexicon),
            records=RecordFacts.of(context, self.lexicon),
            medicines=medicines.named(context),
        )
        self._cache[key] = prepared
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return prepared

    def assess(self, statement: str, prepared: Prepared) -> Assessment:
        """The lexical matching pass of ``statement`` against a prepared context."""
        return assess(statement, prepared.index, self.lexicon, self.thresholds, prepared.cores)

    def read(self, statement: str, context: str) -> tuple[Assessment, Features]:
        """The matching pass and the trained features of one statement."""
        prepared = self.prepare(context)
        a = self.assess(statement, prepared)
        return a, self.features(a, prepared)

    def features(self, assessment: Assessment, prepared: Prepared) -> Features:
        """The trained verifier's features of an assessed statement."""
        assert prepared.profile is not None, "features need a prose verifier"
        memo = prepared.features if self.thresholds == Thresholds() else None
        found = memo.get(assessment.core) if memo is not None else None
        if found is None:
            found = extract(assessment, prepared.index, prepared.profile, self.lexicon)
            if memo is not None and len(memo) < CORES_KEPT:
                memo[assessment.core] = found
        return found

    def conflict(
        self,
        statement: str,
        assessment: Assessment,
        prepared: Prepared,
        reply: Sequence[str] = (),
    ) -> Conflict | None:
        """A value of ``statement`` that its best context unit states differently (of a
        statement read with its question, a value of its ``reply`` words)."""
        assert prepared.conflicts is not None
        return prepared.conflicts.check(statement, assessment, reply)

    def value_verdict(
        self,
        statement: str,
        assessment: Assessment,
        prepared: Prepared,
        reply: Sequence[str] | None = None,
    ) -> Finding | None:
        """The conflict check's finding, when it decides ``statement``: a conflicting value
        (or its denial), a yes/no attribute a JSON record states otherwise, a comparison the
        same or the other way round, or a match once values are normalized. ``reply``: the
        reply words of a statement read with its question (by default, those recorded for
        ``statement``); a value of the question's own ("the 7am flight" in "Which terminal for
        the 7am flight?") is what the user said, not what the reply claims, and is not held
        against it."""
        if reply is None:
            reply = reply_values(statement)
        found = self.conflict(statement, assessment, prepared, reply)
        if found is not None:
            return found.finding()
        slotted = slot_verdict(assessment, prepared.index, self.lexicon)
        if slotted is not None:
            return slotted
        if prepared.records is not None:
            fact = prepared.records.conflict(assessment.core or statement)
            if fact is not None:
                return record_finding(fact, framed=assessment.framing % 2 == 1)
        assert prepared.conflicts is not None
        compared = prepared.conflicts.compared(statement, assessment)
        if compared is not None:
            return compared
        return prepared.conflicts.agrees(statement, assessment)

    def check(
        self,
        statements: Sequence[str],
        context: str,
        *,
        sources: Sequence[str] | None = None,
        rt4chart: bool = False,
    ) -> list[Finding]:
        """The conflict check first (it decides clear contradictions, the negations of
        contradicted statements, and statements that match a context unit once values are
        normalized); every other statement goes to :meth:`decide`."""
        prepared = self.prepare(context)
        origins = list(statements) if sources is None else list(sources)
        out: list[Finding | None] = []
        rest: list[tuple[str, str, Assessment]] = []
        read: list[Assessment] = []
        for statement, source in zip(statements, origins, strict=True):
            a = self.assess(statement, prepared)
            read.append(a)
            finding = reply_verdict(statement, source, a, prepared.index, self.lexicon)
            finding = finding or self.value_verdict(statement, a, prepared, reply_values(source))
            out.append(finding)
            if finding is None:
                rest.append((statement, source, a))
        decided = iter(self.decide(rest, prepared, rt4chart) if rest else [])
        found = [f if f is not None else next(decided) for f in out]
        asker = ages.asker_age(turn_question()) if current_language() == "en" else None
        if asker is not None:  # read once a turn: most questions give no age
            found = [_another_age(f, a, asker) for f, a in zip(found, read, strict=True)]
        return [_medicine_named(f, s, prepared) for f, s in zip(found, origins, strict=True)]

    def decide(
        self, items: Sequence[tuple[str, str, Assessment]], prepared: Prepared, rt4chart: bool
    ) -> list[Finding]:
        """This verifier's findings for (statement, source, assessment) items."""
        raise NotImplementedError


class RulesVerifier(LexicalVerifier):
    """The lexical rules: deterministic, no fitted parts."""

    name = "local-rules"
    model = MODEL
    prose = False

    def decide(
        self, items: Sequence[tuple[str, str, Assessment]], prepared: Prepared, rt4chart: bool
    ) -> list[Finding]:
        return [a.finding for _, _, a in items]


class TrainedVerifier(LexicalVerifier):
    """A small model (``verifier.json``) over the rules' matching pass; polarity applied after."""

    name = "local-trained"
    model = TRAINED_MODEL

    def __init__(
        self,
        model: VerifierModel | None = None,
        *,
        model_path: str | Path | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.model_path = model_path
        self._model = model
        if model is None and model_path is not None:
            self._model = VerifierModel.load(model_path)  # a bad path fails here, not mid-answer

    @property
    def fitted_model(self) -> VerifierModel:
        """The model, read on first use (so the constructor does no I/O)."""
        if self._model is None:
            self._model = VerifierModel.load(self.model_path)
        return self._model

    def fitted(self) -> list[tuple[str, dict[str, Any]]]:
        return [("verifier", self.fitted_model.meta)]

    def decide(
        self, items: Sequence[tuple[str, str, Assessment]], prepared: Prepared, rt4chart: bool
    ) -> list[Finding]:
        model = self.fitted_model
        out: list[Finding] = []
        for statement, source, a in items:
            derived = None
            if source != statement:
                derived = self.from_factoid(source, a, prepared, rt4chart)
            if derived is not None:
                out.append(derived)
                continue
            f = self.features(a, prepared)
            found = model_finding(model, a, f, None, rt4chart) if checkable(f) else a.finding
            found = _doubted(found, a, statement, model)
            found = self._condition_left_out(found, statement, prepared)
            if source == statement:
                found = _anchored(found, statement, a, prepared)
            out.append(found)
        return out

    def _condition_left_out(self, found: Finding, statement: str, prepared: Prepared) -> Finding:
        """Not supported when ``statement``'s main clause, its condition left out, affirms
        what the passage denies (:meth:`_denied_without_condition`)."""
        if found.outcome is not Support.SUPPORTED:
            return found
        main = self._denied_without_condition(statement, prepared)
        return found if main is None else _opposite(main)

    def _denied_without_condition(self, statement: str, prepared: Prepared) -> Assessment | None:
        """The main clause's matching pass when ``statement`` is a short reply read with its
        question that ends on the question's condition ("The court itself refunds the fee
        *if you win your case*.") and its main clause affirms what the passage denies
        (:func:`_denied_by_unit`): the condition's words can pull the match to a sentence
        about the condition and away from the one that answers. ``None`` otherwise."""
        if not is_resolved(statement):
            return None
        cut = _CONDITION.search(statement)
        if cut is None:
            return None
        main = self.assess(statement[: cut.start()] + ".", prepared)
        return main if _denied_by_unit(main) else None

    def from_factoid(
        self, factoid: str, variant: Assessment, prepared: Prepared, rt4chart: bool
    ) -> Finding | None:
        """A MetaRAG variant's finding read off the factoid it was made from: the factoid's
        own finding (its conflict check, else the model), reversed when the variant reverses
        the factoid (:func:`~guardrail.judges.local.features.reverses`). A synonym then
        agrees with its factoid and an antonym disagrees, whatever words the mutation brought
        in. ``None`` when the two cannot be compared or the factoid has nothing to weigh: the
        variant is then read on its own."""
        a = self.assess(factoid, prepared)
        reversed_ = reverses(variant, a)
        if reversed_ is None:
            return None
        key = (factoid, rt4chart)
        if key in prepared.factoids:
            found = prepared.factoids[key]
        else:
            found = self.value_verdict(factoid, a, prepared)
            if found is None:
                f = self.features(a, prepared)
                if checkable(f):
                    model = self.fitted_model
                    found = _doubted(model_finding(model, a, f, None, rt4chart), a, factoid, model)
                    found = self._condition_left_out(found, factoid, prepared)
                    found = _anchored(found, factoid, a, prepared)
            if len(prepared.factoids) < _WINDOWS_KEPT:
                prepared.factoids[key] = found
        if found is None or not reversed_:
            return found
        outcome = REVERSED[found.outcome]
        return Finding(outcome, f"The statement reverses its factoid. Factoid: {found.reason}")

    def risk(self, statement: str, context: str) -> float | None:
        """The probability that ``statement`` is not supported by ``context``: the cascade's
        screen (:mod:`guardrail.scoring.cascade`).

        1.0 when the statement reverses the context (polarity), when the passage denies what
        it affirms (:func:`_denied_by_unit`, with or without a reply's condition) or, with the
        model's ``rule_clash``, when the rules find a clashing number or name: such a statement
        is never settled as supported. ``None`` when there is nothing to weigh (no content words, no
        context).
        """
        prepared = self.prepare(context)
        a = self.assess(statement, prepared)
        found = self.value_verdict(statement, a, prepared)
        if found is not None and found.outcome is Support.CONTRADICTED:
            return 1.0  # a conflicting value: never settled as supported
        f = self.features(a, prepared)
        if not checkable(f):
            return None
        if _denied_by_unit(a) or self._denied_without_condition(statement, prepared):
            return 1.0  # the passage denies what the statement affirms: never settled supported
        model = self.fitted_model
        decision = model.decision
        return decision.screen_risk(
            model.probability(f),
            polarity(a).flipped(decision.trust),
            clash=a.finding.outcome is Support.CONTRADICTED,
        )


class EncoderVerifier(LexicalVerifier):
    """The trained verifier's features stacked on a MiniLM cross-encoder's probabilities.

    The network reads each statement's *source* (the factoid a MetaRAG variant was made from,
    passed by the scorer) against its context window, so a factoid's variants share one
    forward pass and differ through their lexical features and polarity.
    """

    name = "local-encoder"
    model = ENCODER_MODEL

    def __init__(
        self,
        encoder: EncoderModel | None = None,
        *,
        model_path: str | Path | None = None,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.model_path = model_path
        self._encoder = encoder

    @property
    def encoder(self) -> EncoderModel:
        """The encoder, loaded on first use (needs the ``encoder`` extra)."""
        if self._encoder is None:
            self._encoder = EncoderModel(self.model_path)
        return self._encoder

    def fitted(self) -> list[tuple[str, dict[str, Any]]]:
        return [("encoder verifier", self.encoder.meta)]

    def decide(
        self, items: Sequence[tuple[str, str, Assessment]], prepared: Prepared, rt4chart: bool
    ) -> list[Finding]:
        read = [(a, self.features(a, prepared)) for _, _, a in items]
        encoder = self.encoder
        stack = encoder.stack
        assert stack is not None  # EncoderModel() requires one unless told otherwise
        pairs = [
            self._pair(statement, source, a, prepared)
            for (statement, source, _), (a, f) in zip(items, read, strict=True)
            if checkable(f)
        ]
        probs = iter(encoder.probabilities(pairs))
        return [
            model_finding(stack, a, f, next(probs), rt4chart) if checkable(f) else a.finding
            for a, f in read
        ]

    def _pair(
        self, statement: str, source: str, assessment: Assessment, prepared: Prepared
    ) -> tuple[str, str]:
        found = prepared.windows.get(source)
        if found is None:
            if source != statement:
                assessment = self.assess(source, prepared)
            found = window(assessment, prepared.sentences, self.encoder.window_words)
            if len(prepared.windows) < _WINDOWS_KEPT:
                prepared.windows[source] = found
        return source, found


def model_finding(
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
        support=decision.cut(context_kind(features), rt4chart=rt4chart),
    )
    reason = _trained_reason(outcome, assessment.finding, p, flipped)
    if encoder is not None:
        reason = f"{reason[:-1] if reason.endswith('.') else reason} {_encoder_note(encoder)}."
    return Finding(outcome, reason)


def _another_age(found: Finding, a: Assessment, asker: tuple[int, int]) -> Finding:
    """Contradicted, when supported by a sentence that gives its fact for one age group and
    the turn's question puts the asker (aged ``asker``) outside it ("my 4 year old" against
    "Children 6-11 years: 10 drops"; see :mod:`~guardrail.judges.local.ages`)."""
    if found.outcome is not Support.SUPPORTED or a.best is None:
        return found
    if a.negations:
        return found  # "Not at the pharmacy": what the asker cannot have
    group = ages.outside(asker, a.best.unit.text)
    if group is None or ages.names_group(a.core or "", group):
        return found  # "it's 16 and up there": the group's rule, not the asker's case
    return Finding(
        Support.CONTRADICTED,
        f"The context says this of ages {group[0]} to {group[1]}, which the question rules "
        f"out: {quote(a.best.unit.text)}",
    )


def _medicine_named(found: Finding, source: str, prepared: Prepared) -> Finding:
    """Not supported when the statement (read from ``source``, the factoid it was made from)
    names a medicine the context never names (see :mod:`~guardrail.judges.local.medicines`):
    one drug swapped for another shares every other word with the passage. A statement read
    with its question is asked only about its reply's words: "How often do I take the
    amoxicillin?" names the medicine, the reply "Every eight hours." does not."""
    if found.outcome is not Support.SUPPORTED:
        return found
    words = reply_values(source) if is_resolved(source) else re.findall(r"\w+", source)
    other = medicines.unnamed_medicine(words, prepared.medicines)
    if other is None:
        return found
    return Finding(Support.UNKNOWN, f"The context does not name {other}.")


def _denied_by_unit(a: Assessment) -> bool:
    """The statement, with no negation of its own, affirms what its best unit denies: a
    negation of the unit's main clause governs two or more of the statement's words the unit
    holds ("do not use a home Doppler" against "Use your home Doppler to check first"), the
    polarity is reversed and the unit covers :data:`_DENIED_COVERAGE` of the statement or more.
    Only the unit's :attr:`~guardrail.judges.local.verify.Unit.denials` count: a negation in a
    relative or conditional clause ("Complaints *that we cannot resolve* may be referred") or
    one that bounds an amount is not the unit's denial."""
    best = a.best
    read = polarity(a)
    if best is None or a.negations or not read.parity or read.coverage < _DENIED_COVERAGE:
        return False
    core = f" {(a.core or '').lower()} "
    if any(f" {w} " in core for w in _INSTEAD):
        return False  # "call the unit *rather than* waiting": a denial of its own
    missing = {id(t) for t in best.missing} | {id(t) for t in best.opposed}
    held = [t for t in a.terms if id(t) not in missing and t.number is None]
    return any(sum(1 for t in held if _governed(t, scope)) >= 2 for scope in best.unit.denials)


def _governed(term: Term, scope: frozenset[str]) -> bool:
    """A negation's ``scope`` holds ``term``: its stem, or its verdict ("can" in "people
    from outside can enter" against "visits are not permitted")."""
    if term.stem in scope or stem(term.surface.lower()) in scope:
        return True
    return any(key in scope for key, _ in term.polar if key.startswith(VERDICT))


#: The condition a resolved statement ends on (the question's own: "... if you win your case").
_CONDITION = re.compile(r"\s+(?:if|when|once|unless)\s+\S.*$", re.IGNORECASE)
#: Coverage a unit needs before its denial of the statement's words is believed.
_DENIED_COVERAGE = 0.4
#: Words that deny what they introduce ("*rather than* waiting"), in every language.
_INSTEAD = (
    "rather than", "instead of", "in place of", "plutôt que", "au lieu de", "en lugar de",
    "en vez de", "invece di", "anziché", "em vez de", "em lugar de", "statt", "anstatt",
    "in plaats van",
)  # fmt: skip


def _doubted(found: Finding, a: Assessment, statement: str, model: VerifierModel) -> Finding:
    """Not supported when the statement affirms what its best unit denies
    (:func:`_denied_by_unit`), or when ``statement`` is a short reply read with its question
    that denies what the context unit it matches says, even loosely ("No, it isn't given
    during pregnancy." against "Pregnant women are offered the vaccine"): in a short reply
    every word counts, so a denial and its affirmation are never both supported there."""
    if found.outcome is not Support.SUPPORTED:
        return found
    if _denied_by_unit(a):
        return _opposite(a)
    if not is_resolved(statement):
        return found
    read = polarity(a)
    if not (read.negated and read.doubtful(model.decision.trust)):
        return found  # a stray negation in the unit does not deny an affirmative reply
    return _opposite(a)


def _opposite(a: Assessment) -> Finding:
    """NOT SURE: the statement's best unit may say the opposite of it."""
    reason = f"The context may say the opposite: {quote(a.best.unit.text) if a.best else ''}"
    return Finding(Support.UNKNOWN, reason.rstrip(": "))


def _anchored(found: Finding, statement: str, a: Assessment, prepared: Prepared) -> Finding:
    """Supported, when undecided, if the statement's sentence gives every value it states
    (see :mod:`~guardrail.judges.local.anchors`). Read on a factoid, never on a variant by
    itself: an antonym that swaps a word the passage does not use keeps its values too."""
    if found.outcome is not Support.UNKNOWN:
        return found
    assert prepared.conflicts is not None
    return prepared.conflicts.anchored(statement, a) or found


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


#: A finding of a factoid, as it applies to a variant that reverses the factoid.
REVERSED = {
    Support.SUPPORTED: Support.CONTRADICTED,
    Support.CONTRADICTED: Support.SUPPORTED,
    Support.UNKNOWN: Support.UNKNOWN,
}


def _encoder_note(probs: Sequence[float]) -> str:
    """What the encoder said of the statement's source, for the reason line."""
    return f"(encoder: supported {probs[0]:.2f}, unsupported {probs[2]:.2f})"


#: Builds a verifier: ``factory(thresholds=..., cache_size=..., [model_path=...])``.
VerifierFactory = Callable[..., Verifier]
#: The verifiers a judge spec can name (``local:NAME``), in the order they are listed; a
#: verifier that reads a model file declares ``Capabilities(reads_model=True)``.
VERIFIER_REGISTRY: Registry[VerifierFactory] = Registry("local verifier")


def register_verifier(
    name: str,
    factory: VerifierFactory,
    *,
    reads_model: bool = False,
    replace: bool = False,
) -> None:
    """Make ``local:NAME`` (in a policy's ``judge``, on the command line) verify with the
    verifier ``factory`` builds. ``factory`` is called with ``thresholds`` and
    ``cache_size`` keywords (accept and ignore what you do not use), plus ``model_path`` when
    ``reads_model`` is true and a model file is named (``judge_model``)."""
    if not name or ":" in name or any(c.isspace() for c in name):
        raise ConfigError(f"verifier name {name!r} must be one word without ':'")
    VERIFIER_REGISTRY.register(
        name,
        factory,
        capabilities=Capabilities(offline=True, reads_model=reads_model),
        replace=replace,
    )


register_verifier("rules", RulesVerifier)
register_verifier("trained", TrainedVerifier, reads_model=True)
register_verifier("encoder", EncoderVerifier, reads_model=True)
#: The packaged verifiers' names (``local:NAME``).
VERIFIERS: tuple[str, ...] = VERIFIER_REGISTRY.registered()
#: What ``local`` (no verifier named) means: the best offline verifier on held-out RAGTruth.
DEFAULT_VERIFIER = "trained"


def make_verifier(
    name: str = DEFAULT_VERIFIER,
    *,
    model_path: str | Path | None = None,
    thresholds: Thresholds | None = None,
    cache_size: int = 32,
) -> Verifier:
    """The verifier registered as ``name`` (:func:`register_verifier`); ``model_path`` points
    one that reads a model at another model file (trained) or directory (encoder)."""
    entry = VERIFIER_REGISTRY.find(name)
    if entry is None:
        known = ", ".join(VERIFIER_REGISTRY.registered())
        raise ConfigError(f"verifier must be one of {known}, got {name!r}")
    options: dict[str, Any] = {"thresholds": thresholds, "cache_size": cache_size}
    if model_path is not None:
        if not entry.capabilities.reads_model:
            raise ConfigError(f"model_path needs a verifier that reads a model, not {name!r}")
        options["model_path"] = model_path
    return entry.value(**options)
