"""What was wrong with a judge reply, from a fixed vocabulary of causes.

The parsers (:mod:`guardrail.scoring.parsing`) and the scorers return a :class:`ParseFailure`
whenever a reply did not follow the requested format. It carries a human-readable ``note``
(recorded as ``JudgeCall.parse_failure``), the ``causes`` (``JudgeCall.parse_causes``, one or
more of :data:`~guardrail.models.ParseCause`) and whether the reply was **unusable**
(``JudgeCall.reply_unusable``): nothing in it could be used, so a fallback stood in for all of
it (the answer's sentences as factoids, mechanical variants, NOT SURE, another request).
A reply that needed a fallback for part of it (a placeholder dropped, one batch item missing)
keeps ``unusable=False``: what it did say was used.

Combine failures with :func:`join`; a scorer's plain-string failure (from a plug-in) is
recorded with cause ``"other"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from guardrail.models import ParseCause


@dataclass(frozen=True)
class ParseFailure:
    """A reply's format problems: the note, its causes, and whether nothing could be used."""

    note: str
    causes: tuple[ParseCause, ...]
    unusable: bool = False

    def __str__(self) -> str:
        return self.note

    def as_unusable(self, note: str | None = None) -> ParseFailure:
        """This failure with the reply marked unusable, ``note`` (the fallback used) added."""
        text = f"{self.note}; {note}" if note else self.note
        return ParseFailure(text, self.causes, unusable=True)


def failure(cause: ParseCause, note: str, *, unusable: bool = False) -> ParseFailure:
    """One cause and its note."""
    return ParseFailure(note, (cause,), unusable)


def join(*parts: ParseFailure | None) -> ParseFailure | None:
    """The failures in ``parts`` (``None`` skipped) as one: notes joined with ``"; "``, causes
    in order (each once), unusable when any part is."""
    present = [p for p in parts if p is not None]
    if not present:
        return None
    causes = tuple(dict.fromkeys(c for p in present for c in p.causes))
    return ParseFailure(
        "; ".join(p.note for p in present), causes, any(p.unusable for p in present)
    )


def as_failure(value: ParseFailure | str | None) -> ParseFailure | None:
    """``value`` as a :class:`ParseFailure`; a plain note (a plug-in scorer's) has cause
    ``"other"`` and is not marked unusable."""
    if value is None or isinstance(value, ParseFailure):
        return value
    return ParseFailure(value, ("other",)) if value else None
