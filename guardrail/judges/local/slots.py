"""Two kinds of contradiction a lexical match misses because the words mostly agree.

Both run after the value conflict check (:mod:`~guardrail.judges.local.conflict`) and before a
verifier's own decision, on the statement's best-matching context unit:

**Permission against prohibition.** The statement says an action is allowed ("Pregnant
women can take ibuprofen.", "It is fine to eat soft cheese.") and the unit forbids it
("Ibuprofen is contraindicated in the third trimester of pregnancy.", "must not", "should be
avoided", "is not recommended", "is not safe") — or the other way round. Each text gets a
*mode* from its cue words: modals ("can", "may", "should"), the lexicon's acceptability scale
("safe", "allowed" / "contraindicated", "avoided") and the negations around them. The two
texts must be about the same thing: every content word of the statement is in the unit,
except the cue words themselves, a generic agent ("women", "patients", "you"), a generic
action ("take", "use", "eat" — a prohibition often leaves it out) and words that share a long
prefix ("pregnant" / "pregnancy"). The unit may be narrower ("in the third trimester"): an
unrestricted permission overlaps it and is contradicted, while the restricted denial "cannot
take it in the third trimester" is a prohibition like the unit's and agrees with it.

**Slot substitution.** The statement and the unit share their frame word for word and differ
in one short slot: "The first aid kit is in *the reception area*." against "The first aid
kit is in *the kitchen* next to the sink." The statement's slot words appear nowhere in the
context (or only in a sentence about something else), and the unit fills the same slot with
content words the statement does not have: the context names another place, state or
person, so the statement is contradicted. Where the slot is a verdict ("fine" against "not
safe"), it is the permission check above that decides, never this one.

Each check returns ``None`` when it does not apply; the verifier then decides as before.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from guardrail.judges.local.lexicon import VERDICT, Lexicon
from guardrail.judges.local.rivals import rival_value
from guardrail.judges.local.values import extract
from guardrail.judges.local.verify import (
    Assessment,
    ContextIndex,
    Finding,
    Support,
    Term,
    Unit,
    bounds_a_number,
    quote,
)
from guardrail.text.stemming import stem
from guardrail.text.tokens import tokenize

__all__ = ["Mode", "mode_of", "permission_conflict", "slot_conflict", "slot_verdict"]

#: +1: the text allows the action; -1: it forbids it.
Mode = int

_ACCEPTABILITY = f"{VERDICT}acceptability"
#: Modals that allow (or, negated, forbid) an action; "must" and "should" ask for it, which
#: allows it too ("must not" forbids).
_PERMIT_MODALS = frozenset({"can", "may", "could", "must", "should", "fine", "ok", "okay"})
_MODALS = frozenset({"can", "may", "could", "must", "should"})
_FORBID_WORDS = frozenset({"cannot", "can't", "couldn't", "mustn't", "shouldn't", "mayn't"})
_NEGATIONS = frozenset({"not", "no", "never", "nobody", "none"})
#: Words after "may"/"can"/"could" that make it a possibility, not a permission.
_EPISTEMIC = frozenset(
    "cause contain lead occur happen result increase reduce affect vary differ include "
    "appear help".split()
)
#: Acceptability words that are mostly nouns in a sentence ("the work permit", "a risk").
_NOUNS = frozenset({"permit", "permits", "ban", "risk", "risks", "harm", "warning", "caution"})
#: Agents a permission or a prohibition need not name ("Ibuprofen is contraindicated ...").
_AGENTS = frozenset(
    "you i we they he she it one anyone someone everyone people person persons patient "
    "patients woman women man men adult adults user users".split()
)
#: Actions a prohibition need not name ("Ibuprofen is contraindicated" forbids taking it).
_ACTIONS = frozenset(
    "take taken taking took use used using eat eaten eating drink drinking drunk have having "
    "get getting give given do doing be consume consumed apply".split()
)
#: Shortest shared prefix for two words to count as one ("pregnant" / "pregnancy").
_PREFIX = 6
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_CASED_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
#: How far a negation reaches to the cue it turns ("is not safe", "should not be taken").
_NEGATION_REACH = 3

#: How far from a statement word a cue of the context counts.
_ANCHOR_REACH = 4
#: Words a place, state or name slot follows ("in", "at", "the", "is"): a slot elsewhere is
#: more often a verb or an adverb said another way ("characterized by" / "featuring").
_SLOT_OPENERS = frozenset(
    "in on at from to by for with near into inside outside under over behind beside "
    "the a an their his her its our your is are was were be".split()
)
#: Longest slot in the statement (words), and in the unit.
_SLOT_WORDS = 4
_RIVAL_WORDS = 8
#: Shortest shared prefix that makes two words one word in two forms.
_AKIN_PREFIX = 5
#: Words of a comparison ("more expensive" / "cheaper"): the comparatives check decides.
_COMPARING = frozenset("more less fewer most least than".split())
#: Fewest frame content words the statement and the unit share outside the slot.
_FRAME_WORDS = 2


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'"))


def mode_of(text: str, lex: Lexicon, anchors: frozenset[str] | None = None) -> Mode | None:
    """Whether ``text`` allows (+1) or forbids (-1) an action; ``None`` when it says neither
    or both, or has a negation that turns no cue ("did not say it is dangerous": the mode
    is not what the text asserts). With ``anchors`` (stems), only the cues and negations
    within a few words of an anchor count: a long sentence speaks of other things too."""
    cased = _CASED_WORD.findall(text.replace("’", "'"))
    words = [w.lower() for w in cased]
    cues = _cues(words, cased, lex)
    if not cues:
        return None
    near = _near_anchors(words, anchors)
    signs = dict(cues)
    for i, word in enumerate(words):
        if (word not in _NEGATIONS and not word.endswith("n't")) or word in _FORBID_WORDS:
            continue
        if i == 0 and word in ("no", "never"):
            continue  # a clause-initial quantifier, read below
        reach = [c for c, _ in cues if i - 1 <= c <= i + _NEGATION_REACH and c != i]
        if reach:
            turned = min(reach, key=lambda c: (abs(c - i), c))
            signs[turned] = -signs[turned]
        elif i in near:
            return None  # a negation of something else: not read
    if words[0] in ("no", "never") and 0 not in signs:
        first = min(signs)
        if not any(w in _NEGATIONS or w.endswith("n't") for w in words[1:first]):
            signs[first] = -signs[first]  # "No amount of alcohol is safe"
    found = {m for i, m in signs.items() if i in near}
    return found.pop() if len(found) == 1 else None


def _limit_restated(statement: str, unit: str, lex: Lexicon) -> bool:
    """``unit`` forbids going past an amount ("must not work *more than 40* hours", "nicht
    mehr als 20") and ``statement`` allows up to an amount ("can work *up to* 40 hours"):
    both set a maximum, which the value check compares; the permission against the
    prohibition is no conflict."""
    tokens = tokenize(unit, "lexical")
    if not any(
        bounds_a_number(tokens, i, lex) for i, t in enumerate(tokens) if lex.is_negation(t.lower)
    ):
        return False
    return any(v.bound > 0 for v in extract(statement))


def _cues(words: list[str], cased: list[str], lex: Lexicon) -> list[tuple[int, Mode]]:
    """The positions of the words that allow (+1) or forbid (-1), before negations."""
    cues: list[tuple[int, Mode]] = []
    for i, word in enumerate(words):
        if word == "may" and i > 0 and cased[i] == "May":
            continue  # the month
        if word in _FORBID_WORDS:
            cues.append((i, -1))
        elif word in _PERMIT_MODALS:
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if word in ("may", "can", "could") and nxt in _EPISTEMIC:
                continue
            cues.append((i, 1))
        elif word not in _NOUNS and not _purpose(words, i):
            for key, sign in lex.polar_keys.get(stem(word), ()):
                if key == _ACCEPTABILITY:
                    cues.append((i, 1 if sign > 0 else -1))
                    break
    verdicts = {i for i, _ in cues if words[i] not in _PERMIT_MODALS}
    # "should be avoided", "must be safe": the verdict word says it, not the modal
    return [(i, m) for i, m in cues if not (words[i] in _MODALS and verdicts & {i + 1, i + 2})]


#: Words before "to" that make what follows an obligation ("have to avoid"), not a purpose.
_OBLIGING = frozenset(
    "have has had need needs needed ought got want wants told asked advised required "
    "important best better able".split()
)


def _purpose(words: list[str], i: int) -> bool:
    """ "... with food *to avoid* stomach pain": a purpose, which neither allows nor forbids
    the action; "you have to avoid it" is still an obligation."""
    return i >= 2 and words[i - 1] == "to" and words[i - 2] not in _OBLIGING


def _near_anchors(words: list[str], anchors: frozenset[str] | None) -> set[int]:
    """The positions within :data:`_ANCHOR_REACH` words of an anchor (all without anchors)."""
    if anchors is None:
        return set(range(len(words)))
    hits = [i for i, w in enumerate(words) if _anchored(stem(w), anchors)]
    return {
        j
        for i in hits
        for j in range(max(0, i - _ANCHOR_REACH), min(len(words), i + _ANCHOR_REACH + 1))
    }


def _anchored(key: str, anchors: frozenset[str]) -> bool:
    return key in anchors or _shares_prefix(key, anchors)


def _shares_prefix(word: str, others: frozenset[str]) -> bool:
    if len(word) < _PREFIX:
        return False
    return any(len(o) >= _PREFIX and o[:_PREFIX] == word[:_PREFIX] for o in others)


def _loose(term: Term) -> bool:
    """A statement word a permission or a prohibition may leave out."""
    low = term.surface.lower()
    return low in _AGENTS or low in _ACTIONS or low in _PERMIT_MODALS or low in _FORBID_WORDS


def _verdict_word(term: Term) -> bool:
    return any(key == _ACCEPTABILITY for key, _ in term.polar)


def permission_conflict(
    assessment: Assessment, index: ContextIndex, lex: Lexicon
) -> Finding | None:
    """Contradicted when the statement allows what a context unit about the same thing
    forbids, or forbids what it allows; supported when both forbid (or both allow) the same
    action and the unit adds no scope the statement lacks (see the module docstring). The
    best-matching unit is tried first, then the others; ``None`` when none decides."""
    if assessment.best is None or not assessment.terms:
        return None
    said = mode_of(assessment.core, lex)
    if said is None:
        return None
    if assessment.framing % 2 == 1:
        said = -said
    units = [assessment.best.unit, *(u for u in index.units if u is not assessment.best.unit)]
    for unit in units:
        if not _about_the_same(assessment.terms, unit):
            continue
        found = mode_of(unit.text, lex, _anchor_stems(assessment.terms))
        if found is None:
            continue
        if found != said:
            if found < 0 and _limit_restated(assessment.core, unit.text, lex):
                continue  # "must not work more than 40 hours" / "can work up to 40 hours"
            what = "forbids what the statement allows" if found < 0 else "allows what it forbids"
            return Finding(Support.CONTRADICTED, f"The context {what}: {quote(unit.text)}")
        if _no_scope_added(assessment.terms, unit, lex):
            return Finding(Support.SUPPORTED, f"The context states: {quote(unit.text)}")
    return None


def _anchor_stems(terms: Sequence[Term]) -> frozenset[str]:
    """The stems of the statement's words a permission or a prohibition is about."""
    return frozenset(t.stem for t in terms if not _loose(t) and not _verdict_word(t)) | frozenset(
        t.stem for t in terms if t.surface.lower() in _ACTIONS
    )


def _matches(term: Term, unit: Unit) -> bool:
    return (
        term.stem in unit.stems
        or not term.same.isdisjoint(unit.same)
        or _shares_prefix(term.stem, unit.stems)
    )


def _about_the_same(terms: Sequence[Term], unit: Unit) -> bool:
    """Every word of the statement but the loose ones is in ``unit``, and one at least."""
    anchored = False
    for term in terms:
        if _loose(term) or _verdict_word(term):
            continue
        if not _matches(term, unit):
            return False
        anchored = True
    return anchored


def _no_scope_added(terms: Sequence[Term], unit: Unit, lex: Lexicon) -> bool:
    """The unit's content words are all in the statement (cue words aside): it is no
    narrower than the statement ("in the third trimester" the statement lacks)."""
    said = {t.stem for t in terms} | {k for t in terms for k in t.same}
    for word in _words(unit.text):
        if not lex.is_content(word) or word in _PERMIT_MODALS or word in _FORBID_WORDS:
            continue
        if word in _AGENTS or word in _ACTIONS:
            continue
        key = stem(word)
        if any(k == _ACCEPTABILITY for k, _ in lex.polar_keys.get(key, ())):
            continue
        if key not in said and not _shares_prefix(key, frozenset(said)):
            return False
    return True


def slot_conflict(assessment: Assessment, index: ContextIndex, lex: Lexicon) -> Finding | None:
    """Contradicted when the statement and its best unit share their frame and fill one short
    slot with different content words (see the module docstring); else ``None``."""
    best = assessment.best
    if best is None or not best.missing or best.opposed:
        return None
    said = _words(assessment.core)
    unit = _words(best.unit.text)
    opcodes = [
        op
        for op in difflib.SequenceMatcher(
            None, [stem(w) for w in said], [stem(w) for w in unit]
        ).get_opcodes()
        if op[0] != "equal"
    ]
    if not opcodes or not any(op[2] > op[1] for op in opcodes):
        return None  # the statement has no words of its own
    s0, s1 = min(op[1] for op in opcodes), max(op[2] for op in opcodes)
    u0, u1 = min(op[3] for op in opcodes), max(op[4] for op in opcodes)
    slot, rival = said[s0:s1], unit[u0:u1]
    inside = [w for w in said[s0:s1] if w in unit[u0:u1]]
    if any(lex.is_content(w) for w in inside):
        return None  # two slots apart, with frame words between them
    content = [w for w in slot if lex.is_content(w)]
    rivals = [w for w in rival if lex.is_content(w) and w not in said]
    if not content or not rivals or len(slot) > _SLOT_WORDS or len(rival) > _RIVAL_WORDS:
        return None
    if any(w in _NEGATIONS or w.endswith("n't") for w in (*slot, *rival)):
        return None  # a negation is polarity, not a slot
    if any(_akin(w, r) for w in content for r in rival):
        return None  # the same word inflected or spelt another way
    before = said[s0 - 1 : s0]
    opener = before[0] if before else slot[0]
    if opener not in _SLOT_OPENERS or any(w in lex.auxiliaries for w in (*slot, *rival)):
        return None  # a place, state or name follows a preposition, an article or "is"
    if any(_valued(w, lex) for w in (*before, *slot)) or any(w in _COMPARING for w in rival):
        return None  # values, units and comparisons are the value checks' to decide
    if any(_valued(w, lex) for w in rival) and _dated(assessment.core):
        return None  # "the end of June" against "30 June": the date check decides
    frame = [w for w in (*said[:s0], *said[s1:]) if lex.is_content(w)]
    if len(frame) < _FRAME_WORDS:
        return None
    missing = {t.surface.lower() for t in best.missing}
    if any(w in missing for w in frame) or not all(w in missing for w in content):
        return None  # the frame must match, the slot must not
    if _verdict_slot(slot, rival, lex) or _stated_with_frame(content, frame, index):
        return None
    return Finding(
        Support.CONTRADICTED,
        f"The context says {' '.join(rival)}, not {' '.join(slot)}: {quote(best.unit.text)}",
    )


def _akin(a: str, b: str) -> bool:
    """One word in two forms ("take" / "takes", "collection" / "collected")."""
    if stem(a) == stem(b):
        return True
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    shortest = min(len(a), len(b))
    if shared == shortest >= 3:
        return True  # one word is the other with an ending ("take" / "takes")
    return shared >= _AKIN_PREFIX and shared >= 0.6 * shortest


def _dated(text: str) -> bool:
    """Whether ``text`` gives a date."""
    return any(v.kind == "date" for v in extract(text))


def _valued(word: str, lex: Lexicon) -> bool:
    """A number, an ordinal, or a comparison word."""
    return (
        any(c.isdigit() for c in word) or lex.number_value(word) is not None or word in _COMPARING
    )


def _verdict_slot(slot: Sequence[str], rival: Sequence[str], lex: Lexicon) -> bool:
    """Either side is a modal or a verdict word: the permission check decides such slots."""
    return any(
        w in _PERMIT_MODALS
        or w in _FORBID_WORDS
        or any(k.startswith(VERDICT) for k, _ in lex.polar_keys.get(stem(w), ()))
        for w in (*slot, *rival)
    )


def _stated_with_frame(content: Sequence[str], frame: Sequence[str], index: ContextIndex) -> bool:
    """Some context sentence has a slot word together with most of the frame: the slot may
    be stated there, so it is no substitution."""
    slot_stems = {stem(w) for w in content}
    frame_stems = {stem(w) for w in frame}
    for unit in index.units:
        if slot_stems & unit.stems and 2 * len(frame_stems & unit.stems) >= len(frame_stems):
            return True
    return False


def slot_verdict(assessment: Assessment, index: ContextIndex, lex: Lexicon) -> Finding | None:
    """The first of :func:`permission_conflict`, :func:`slot_conflict` and
    :func:`~guardrail.judges.local.rivals.rival_value` that decides."""
    return (
        permission_conflict(assessment, index, lex)
        or slot_conflict(assessment, index, lex)
        or rival_value(assessment, index, lex)
    )
