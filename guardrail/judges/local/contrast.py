"""A contrast turned around: "at A, not at B" against "at B, not at A".

A passage that sets two things against each other ("Claims are made at the Jobcentre, not at
the town hall.") and an answer that sets them the other way ("You claim at the town hall, not
the Jobcentre.") share every word and one negation each, so word coverage and negation parity
both agree. What differs is *which side* the negation denies. This check reads each "..., not
..." contrast of a sentence as two sides — the content words the negation denies (from the
negation to the next break) and those the rest of the sentence affirms — and finds a swap: the
statement denies what the passage only affirms, and affirms what the passage only denies.

Only a negation that opens a contrast counts: one after a comma, a semicolon or a dash, maybe
behind a conjunction ("..., and not at the town hall", "..., et non à la mairie"), or right
after a conjunction with no mark before it ("at the Jobcentre and not at the town hall"). The
negation words are each language's own (:attr:`~guardrail.judges.local.lexicon.Lexicon.negations`).
"Rather than", "instead of" and their kin in the other languages ("statt", "au lieu de", "en
lugar de", "invece di", "em vez de", "in plaats van") set a contrast too: the noun phrase after
them is the denied side.
"""

from __future__ import annotations

from collections.abc import Sequence

from guardrail.judges.local.lexicon import Lexicon
from guardrail.judges.local.medicines import is_medicine
from guardrail.judges.local.verify import Finding, Support, Unit, negation_positions, quote
from guardrail.text.stemming import stem
from guardrail.text.tokens import Token, tokenize

__all__ = ["instead_at", "sides", "swapped"]

#: Tokens after which a negation opens a contrast.
_OPENERS = frozenset({",", ";", "–", "—", "-"})
#: Conjunctions that may stand between that mark and the negation ("and not", "et non").
_CONJUNCTIONS = frozenset("and but or et mais ou y pero o und aber oder e ma en maar of".split())
#: Tokens that end the denied side.
_BREAKS = frozenset({",", ";", ":", ".", "!", "?", "(", ")", "–", "—"})

Sides = tuple[frozenset[str], frozenset[str]]


#: Words that set what follows them against the rest of the sentence, as "..., not ..." does
#: ("rather than the surgery", "statt beim Jobcenter", "au lieu de la mairie"), in every
#: language: each a sequence of lower-case words.
_INSTEAD = (
    ("instead", "of"), ("rather", "than"),
    ("statt",), ("anstatt",), ("anstelle",),
    ("au", "lieu"), ("plutôt", "que"),
    ("en", "lugar"), ("en", "vez"),
    ("invece",), ("anziché",), ("piuttosto", "che"),
    ("em", "vez"), ("em", "lugar"), ("ao", "invés"),
    ("in", "plaats"),
)  # fmt: skip
#: Words that join the parts of a noun phrase ("the office *of* the union", "ufficio *del*
#: personale"): the phrase an "instead" denies goes on over them.
_LINKERS = frozenset("of de du des d di del della dei da do dos das van von der".split())


#: The "instead" phrases by their first word.
_INSTEAD_BY_FIRST: dict[str, tuple[tuple[str, ...], ...]] = {}
for _cue in _INSTEAD:
    _INSTEAD_BY_FIRST[_cue[0]] = (*_INSTEAD_BY_FIRST.get(_cue[0], ()), _cue)


def instead_at(tokens: list[Token], i: int) -> int:
    """The length of an "instead" phrase (:data:`_INSTEAD`) starting at ``tokens[i]``, else 0."""
    for cue in _INSTEAD_BY_FIRST.get(tokens[i].lower, ()):
        following = tokens[i + 1 : i + len(cue)]
        if len(following) == len(cue) - 1 and all(
            t.lower == w for t, w in zip(following, cue[1:], strict=True)
        ):
            return len(cue)
    return 0


def _phrase_end(tokens: list[Token], start: int, lex: Lexicon) -> int:
    """The end of the noun phrase from ``tokens[start]``: over function words before its
    first content word and over linking words between content words, up to the next other
    function word or break ("rather than *the surgery*", "statt *bei der Ausländerbehörde*
    beim Jobcenter", "invece che *al responsabile di reparto*")."""
    end = start
    seen = False
    while end < len(tokens) and tokens[end].text not in _BREAKS:
        tok = tokens[end]
        if tok.is_word and lex.is_content(tok.lower) and not lex.is_negation(tok.lower):
            seen = True
        elif seen and tok.lower not in _LINKERS:
            break
        end += 1
    return end


def _instead_sides(tokens: list[Token], lex: Lexicon) -> list[Sides]:
    """For each "instead" phrase of ``tokens``: what the rest of the sentence affirms, and
    the noun phrase after the phrase, which it denies."""
    out: list[Sides] = []
    for i in range(len(tokens)):
        size = instead_at(tokens, i)
        if not size:
            continue
        end = _phrase_end(tokens, i + size, lex)
        denied = _content(tokens[i + size : end], lex)
        affirmed = _content(tokens[:i] + tokens[end:], lex) - denied
        if denied and affirmed:
            out.append((affirmed, denied))
    return out


def sides(tokens: list[Token], lex: Lexicon) -> list[Sides]:
    """For each negation of ``tokens`` that opens a contrast, and each "instead" phrase
    (:data:`_INSTEAD`): the stems of the content words the rest of the sentence affirms, and
    those the negation or the phrase denies."""
    out: list[Sides] = _instead_sides(tokens, lex)
    for i in negation_positions(tokens, lex):
        before = i - 1
        while before >= 0 and tokens[before].lower in _CONJUNCTIONS:
            before -= 1
        joined = before < i - 1 and before >= 0  # "X and not Y", with no comma
        if before < 0 or (tokens[before].text not in _OPENERS and not joined):
            continue
        if joined and tokens[before].text not in _OPENERS:
            before += 1  # the conjunction is no word of either side
        end = i + 1
        while end < len(tokens) and tokens[end].text not in _BREAKS:
            end += 1
        denied = _content(tokens[i + 1 : end], lex)
        affirmed = _content(tokens[:before] + tokens[end:], lex) - denied
        if denied and affirmed:
            out.append((affirmed, denied))
    return out


def _content(tokens: list[Token], lex: Lexicon) -> frozenset[str]:
    return frozenset(
        stem(t.lower)
        for t in tokens
        if t.is_word and lex.is_content(t.lower) and not lex.is_negation(t.lower)
    )


def _replaced(added: frozenset[str], dropped: frozenset[str]) -> bool:
    """The statement affirms words the sentence lacks (``added``) where the sentence affirms
    a medicine or an amount the statement lacks (``dropped``): "co-amoxiclav rather than
    amoxicillin" against "clarithromycin instead of amoxicillin" sets the same contrast about
    another medicine, which the other checks judge."""
    return bool(added) and any(is_medicine(w) or any(c.isdigit() for c in w) for w in dropped)


def swapped(
    statement: list[Token],
    units: Sequence[Unit],
    best: Unit,
    lex: Lexicon,
    *,
    framing: int = 0,
) -> Finding | None:
    """Contradicted when the statement (its tokens) sets a contrast the other way round from
    the whole passage sentence of its best unit ``best`` (one of the context's ``units``),
    supported when it sets it the same way (both reversed under a denying frame, "It is not
    true that ..."); ``None`` when neither sets a contrast the other compares."""
    mine = sides(statement, lex)
    if not mine:
        return None  # the common case: the passage sentence is not even looked up
    # the first unit of a sentence is the sentence itself; ``best`` may be one of its clauses
    sentence = next(u for u in units if u.sentence == best.sentence)
    theirs = sides(tokenize(sentence.text, "lexical"), lex)
    for affirmed, denied in mine:
        for their_affirmed, their_denied in theirs:
            only_affirmed, only_denied = (
                their_affirmed - their_denied,
                their_denied - their_affirmed,
            )
            if denied & only_affirmed and affirmed & only_denied:
                same = False
            elif (
                denied & their_denied
                and affirmed & their_affirmed
                and not (denied & only_affirmed or affirmed & only_denied)
                and not _replaced(
                    affirmed - their_affirmed - their_denied, their_affirmed - affirmed
                )
            ):
                same = True  # the same contrast, whatever each language's negations count
            else:
                continue
            if (framing % 2 == 1) != same:
                return Finding(
                    Support.SUPPORTED,
                    f"The context sets the contrast {'the same way' if same else 'the other way'}"
                    f"{'' if same else ', as the statement denies'}: {quote(sentence.text)}",
                )
            return Finding(
                Support.CONTRADICTED,
                "The context "
                + (
                    "sets the contrast the same way, which the statement denies"
                    if same
                    else "denies what the statement gives and gives what it denies"
                )
                + f": {quote(sentence.text)}",
            )
    return None
