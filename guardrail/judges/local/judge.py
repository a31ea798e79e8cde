"""``LocalJudge``: the embedded offline judge — no network, no API key, no model weights.

It answers every scorer task (:mod:`guardrail.judges.base` lists them and their inputs) in the
text format the LLM prompts ask for, so the scorers parse its replies with the parsers they use
for LLMs. Decomposition and mutation are rules; verification is the
:class:`~guardrail.judges.local.verifiers.Verifier` the judge was built with. It reads
``request.inputs`` only (never the prompt) and is deterministic. A MetaRAG variant's verify
request may carry the factoid it was made from (``factoid``; ``factoids`` for a batch).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from guardrail.exceptions import ConfigError, JudgeRequestError
from guardrail.judges import base as task
from guardrail.judges.base import JudgeRequest, JudgeResponse
from guardrail.judges.local.decompose import Decomposer
from guardrail.judges.local.inputs import context_of, count_of, flat, text_of, texts_of
from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.mutate import Mutator
from guardrail.judges.local.verifiers import DEFAULT_VERIFIER, Verifier, make_verifier
from guardrail.judges.local.verify import Support, Thresholds
from guardrail.lang import OFFLINE_JUDGE_LANGUAGES, detect
from guardrail.lang.context import current_language, reset_language, set_language
from guardrail.lang.registry import has_tables
from guardrail.registry import Capabilities

_T = TypeVar("_T")

_METARAG = {Support.SUPPORTED: "YES", Support.CONTRADICTED: "NO", Support.UNKNOWN: "NOT SURE"}
_RT4CHART = {
    Support.SUPPORTED: "ENTAILED",
    Support.CONTRADICTED: "CONTRADICTED",
    Support.UNKNOWN: "BASELESS",
}


#: Shared prompt prefixes (instructions and context) whose word count is remembered.
_PREFIXES_KEPT = 16


def prompt_words(prompt: str, shared: int = 0) -> int:
    """``len(prompt.split())``, counting the ``shared`` leading characters (the part every
    call of a stage repeats) once per prefix when no word straddles its end."""
    if 0 < shared < len(prompt) and (prompt[shared - 1].isspace() or prompt[shared].isspace()):
        return _words_in(prompt[:shared]) + len(prompt[shared:].split())
    return len(prompt.split())


@lru_cache(maxsize=_PREFIXES_KEPT)
def _words_in(text: str) -> int:
    return len(text.split())


#: Texts whose language the judge remembers (a turn's context is read by many requests).
_LANGUAGES_KEPT = 256
_languages_seen: dict[str, str] = {}


def reading_language(inputs: Mapping[str, Any]) -> str:
    """The language to read a request in: its context's (or, without one, its own text's),
    when the judge has words for it; English otherwise. Detections are remembered per text."""
    sample = ""
    if "context" in inputs or "passages" in inputs:
        sample = context_of(inputs)
    if not sample.strip():
        for key in ("text", "factoid", "statement", "claim", "factoids", "statements"):
            if inputs.get(key):
                sample = text_of(inputs, key)
                break
    if not sample.strip():
        return "en"
    code = _languages_seen.get(sample)
    if code is None:
        found = detect(sample).language
        code = found if has_tables(found) else "en"
        _remember([sample], code)
    return code


def _remember(texts: list[str], code: str) -> None:
    """Remember ``texts`` as written in ``code`` (the oldest are forgotten first)."""
    for text in texts:
        while len(_languages_seen) >= _LANGUAGES_KEPT:
            _languages_seen.pop(next(iter(_languages_seen)), None)
        _languages_seen[text] = code


class LocalJudge:
    """Offline judge for MetaRAG and RT4CHART tasks.

    ``verifier`` answers the verify tasks: a :class:`~.verifiers.Verifier` instance, or the name
    of a packaged one (``"rules"``, ``"trained"``, ``"encoder"``; ``model_path`` then points a
    fitted one at another model). ``support_threshold`` and ``conflict_threshold`` are the
    coverage (0..1) a context sentence needs before the rules answer YES, or call a clash a NO.
    ``cache_size`` bounds how many preprocessed contexts the verifier keeps.

    :attr:`languages` are those it verifies; a policy reads them to decide what a turn in
    any other language gets (:mod:`guardrail.policy.languages`).
    """

    #: No network, no key, no model server.
    capabilities: ClassVar[Capabilities] = Capabilities(offline=True)
    languages: ClassVar[tuple[str, ...]] = OFFLINE_JUDGE_LANGUAGES

    def __init__(
        self,
        *,
        verifier: Verifier | str = DEFAULT_VERIFIER,
        model_path: str | Path | None = None,
        support_threshold: float = Thresholds.support,
        conflict_threshold: float = Thresholds.conflict,
        cache_size: int = 32,
    ) -> None:
        if not 0.0 <= support_threshold <= 1.0 or not 0.0 <= conflict_threshold <= 1.0:
            raise ConfigError("thresholds must be within [0, 1]")
        if isinstance(verifier, str):
            thresholds = Thresholds(support=support_threshold, conflict=conflict_threshold)
            verifier = make_verifier(
                verifier, model_path=model_path, thresholds=thresholds, cache_size=cache_size
            )
        elif model_path is not None:
            raise ConfigError("model_path names a packaged verifier's model; pass a name")
        self.verifier: Verifier = verifier
        self._decomposers: dict[str, Decomposer] = {}
        self._mutators: dict[str, Mutator] = {}
        self._tasks: dict[str, Callable[[Mapping[str, Any]], str]] = {
            task.DECOMPOSE: self._decompose,
            task.CLAIMS: self._decompose,
            task.SYNONYM: lambda inputs: self._variants(inputs, self.mutator.synonyms),
            task.ANTONYM: lambda inputs: self._variants(inputs, self.mutator.antonyms),
            task.MUTATE_ALL: self._mutate_all,
            task.VERIFY: self._verify,
            task.VERIFY_BATCH: self._verify_batch,
            task.LOCAL_VERIFY: self._rt4chart,
            task.GLOBAL_VERIFY: self._rt4chart,
        }

    @property
    def name(self) -> str:
        return self.verifier.name

    @property
    def lexicon(self) -> Lexicon:
        """The verifier's lexicon when it has one, else the packaged one for the language
        being read (read on first use: constructing a judge does no I/O)."""
        found = getattr(self.verifier, "lexicon", None)
        return found if isinstance(found, Lexicon) else Lexicon.for_language(current_language())

    @property
    def decomposer(self) -> Decomposer:
        """The decomposer for the language being read (one per language, built on first use)."""
        return self._per_language(self._decomposers, Decomposer)

    @property
    def mutator(self) -> Mutator:
        """The mutator for the language being read (one per language, built on first use)."""
        return self._per_language(self._mutators, Mutator)

    def _per_language(self, built: dict[str, _T], make: Callable[[Lexicon], _T]) -> _T:
        code = current_language()
        found = built.get(code)
        if found is None:
            found = built.setdefault(code, make(self.lexicon))
        return found

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        text = self.answer(request.task, request.inputs)
        return JudgeResponse(
            text=text,
            model=self.verifier.model,
            prompt_tokens=prompt_words(request.prompt, request.shared_prefix),
            completion_tokens=len(text.split()),
        )

    def answer(self, task: str, inputs: Mapping[str, Any]) -> str:
        """The reply text for one task (synchronous core of :meth:`complete`), read in the
        language of the request's text (:func:`reading_language`)."""
        handler = self._tasks.get(task)
        if handler is None:
            raise JudgeRequestError(f"local judge: unknown task {task!r}")
        token = set_language(reading_language(inputs))
        try:
            return handler(inputs)
        finally:
            reset_language(token)

    def _decompose(self, inputs: Mapping[str, Any]) -> str:
        factoids = self.decomposer.decompose(text_of(inputs, "text"))
        # the claims are in the answer's language: their mutation requests need no detection
        _remember(factoids, current_language())
        return json.dumps(factoids, ensure_ascii=False)

    def _variants(self, inputs: Mapping[str, Any], make: Callable[[str, int], list[str]]) -> str:
        return "\n".join(flat(make(text_of(inputs, "factoid"), count_of(inputs))))

    def _mutate_all(self, inputs: Mapping[str, Any]) -> str:
        count = count_of(inputs)
        reply = {
            str(n): {
                "synonyms": flat(self.mutator.synonyms(factoid, count)),
                "antonyms": flat(self.mutator.antonyms(factoid, count)),
            }
            for n, factoid in enumerate(texts_of(inputs, "factoids"), start=1)
        }
        return json.dumps(reply, ensure_ascii=False)

    def _verify(self, inputs: Mapping[str, Any]) -> str:
        statement = text_of(inputs, "statement")
        source = text_of(inputs, "factoid") if inputs.get("factoid") else statement
        (f,) = self.verifier.check([statement], context_of(inputs), sources=[source])
        return f"{_METARAG[f.outcome]}. {f.reason}"

    def _verify_batch(self, inputs: Mapping[str, Any]) -> str:
        statements = texts_of(inputs, "statements")
        sources = texts_of(inputs, "factoids") if inputs.get("factoids") else None
        if sources is not None and len(sources) != len(statements):
            raise JudgeRequestError("local judge: 'factoids' must pair with 'statements'")
        found = self.verifier.check(statements, context_of(inputs), sources=sources)
        return "\n".join(f"{n}. {_METARAG[f.outcome]}. {f.reason}" for n, f in enumerate(found, 1))

    def _rt4chart(self, inputs: Mapping[str, Any]) -> str:
        (f,) = self.verifier.check([text_of(inputs, "claim")], context_of(inputs), rt4chart=True)
        return f"{_RT4CHART[f.outcome]}. {f.reason}"
