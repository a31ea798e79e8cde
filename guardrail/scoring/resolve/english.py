"""English rules for reading a short answer with its question.

The question's form says how a bare reply becomes a statement:

* **auxiliary inversion** (a yes/no question): "Can pregnant women take ibuprofen?" + "No." ->
  "Pregnant women cannot take ibuprofen."; do-support is undone ("Does X need Y?" + "Yes." ->
  "X needs Y."); a negated question ("Isn't X free?") asks about the positive statement, so
  "Yes" affirms "X is free" and "No" denies it;
* **wh-questions**: the reply fills the question's gap ("When can X apply?" + "After six
  months." -> "X can apply after six months."; "Who approves expenses?" + "Anna Schmidt." ->
  "Anna Schmidt approves expenses."; "How many tablets can an adult take?" + "Eight." -> "An
  adult can take eight tablets.");
* **echoes and pronouns**: "Yes, they can." / "It does, in the morning." / "No, the employee
  must." reuse the question's own noun phrases for the pronoun or the other subject;
* **follow-up sentences** (:func:`resolve_follow`): after a bare reply, "It must be done
  within two weeks." names the question's noun phrase for its "it" or "they".

A rule that cannot place the reply returns nothing, and the answer is decomposed as it was
written: the guard then finds no verifiable statement and the policy's ``on_error`` decides.
Nothing here is a parser of English at large; each rule is small and named in the statements
it makes (``ResolvedStatement.rule``).
"""

from __future__ import annotations

import re

from guardrail.scoring.resolve._en_follow import named, resolve_follow
from guardrail.scoring.resolve._en_grammar import (
    AUX,
    DETERMINERS,
    NEGATED,
    PREPOSITIONS,
    PRONOUNS,
    Clause,
    Made,
    agrees_with_negative_tag,
    asked_piece,
    clause,
    has_finite,
    is_verb,
    morphology,
    question_sentence,
    split_words,
)
from guardrail.scoring.resolve._en_polar import LEAD, imperative, read_reply, resolve_polar
from guardrail.scoring.resolve._en_wh import MAX_VALUE_WORDS, WhQuestion, resolve_wh, wh_question

LANGUAGE = "en"

__all__ = [
    "LANGUAGE",
    "abstains",
    "lead_end",
    "question_parts",
    "question_text",
    "resolve_follow",
    "resolve_sentence",
]

#: Longest reply sentence (in words) read as leaning on its question.
MAX_WORDS = 14


def resolve_sentence(question: str, reply_text: str) -> list[Made]:
    """Self-contained statements for one reply sentence that leans on ``question``; [] when
    the sentence stands on its own or no rule applies. A preposition the question leaves at
    its end and the reply repeats is said once ("... have to be in by?" + "By 17 March." ->
    "... has to be in by 17 March.")."""
    return [
        (_DOUBLED.sub(r"\1", text), rule) for text, rule in _resolve_sentence(question, reply_text)
    ]


#: A preposition said twice in a row: the question's stranded one and the reply's first word.
_DOUBLED = re.compile(
    r"\b(by|to|in|on|at|for|from|with|about|into|until|till|after|before)\s+\1\b", re.IGNORECASE
)


def _resolve_sentence(question: str, reply_text: str) -> list[Made]:
    dash = _DASH.search(reply_text)
    if dash is not None:
        # "Yep, for free - just keep it on a lead.": the reply, then a sentence as written
        head, tail = split_words(reply_text[: dash.start()]), split_words(reply_text[dash.end() :])
        if head and len(tail) >= 2 and tail[0][:1].isalpha() and tail[0].lower() not in _CLOCK:
            leading = resolve_sentence(question, reply_text[: dash.start()])
            written = reply_text[dash.end() :].strip()
            written = written[:1].upper() + written[1:]
            written = written if written.endswith((".", "!", "?")) else f"{written}."
            return [*leading, (written, "as_written")] if leading else []
    words = split_words(reply_text)
    if not words or len(words) > MAX_WORDS:
        return []
    agreeing = _AGREEING.match(reply_text)
    if agreeing is not None and agrees_with_negative_tag(question):
        # "I shouldn't take it with milk, right?" + "Right." agrees: no, you shouldn't
        return resolve_sentence(question, "No" + reply_text[agreeing.end("word") :])
    asked = question_sentence(question)
    if not asked:
        return []
    first = asked[0].lower()
    if first in AUX or first in NEGATED:
        chosen = _alternative(asked, words)
        if chosen is not None:  # "Is it on Monday or Tuesday?" + "Tuesday."
            return [
                (text, "alternative")
                for text, _ in resolve_sentence(" ".join(chosen) + "?", "Yes.")
                if text
            ]
        reply = read_reply(reply_text)
        found = clause(asked[0], asked[1:])
        if reply is None or found is None:
            return []
        made, negated = found
        if _is_request(made, asked):
            return []  # "Could you send me the form?" + "Sure." is an offer, not a claim
        return _fragments_joined(
            [
                (named(question, text) if rule == "as_written" else text, rule)
                for text, rule in resolve_polar(made, negated, reply)
                if text
            ]
        )
    q = wh_question(asked)
    contrast = _CONTRAST.search(reply_text)
    if q is not None and contrast is not None and split_words(reply_text[: contrast.start()]):
        # "The Deposit Protection Service, not the agency.": the value is what comes first
        return resolve_sentence(question, reply_text[: contrast.start()] + ".")
    if q is None or len(words) > MAX_VALUE_WORDS or has_finite(words) or _restates(q, words):
        return []
    label = q.wh == "where" and len(words) == 2 and words[1][:1].isdigit()  # "Stand 12."
    if (
        len(words) > 1
        and not label
        and (imperative(words[0], words[1]) or _instruction(asked, words))
    ):
        # "Take it to Mrs Patel.": the value is what the instruction's last preposition takes
        value = _instructed_value(words)
        return [] if value is None else [(t, r) for t, r in resolve_wh(q, value) if t]
    bound = _BOUND.match(reply_text) is not None  # "No more than eight." is a value
    if not bound and LEAD.match(reply_text) is not None and read_reply(reply_text) is not None:
        return []  # "Yes." to a wh-question: nothing to place
    return [(text, rule) for text, rule in resolve_wh(q, words) if text]


#: Contractions typed without their apostrophe ("whats", "isnt", "dont", "im"), as written
#: with it. "its", "ill", "id", "wed" and "well" are words of their own and left alone.
_TYPED = re.compile(
    r"\b(?:(?P<s>what|where|when|who|how|that|there)s"
    r"|(?P<nt>is|are|was|were|do|does|did|has|have|had|should|could|would|must|need|ca|wo)nt"
    r"|(?P<pronoun>i)(?P<rest>m|ve)|(?P<re>you|they|we)re)\b",
    re.IGNORECASE,
)


def _typed(found: re.Match[str]) -> str:
    if found["s"]:
        return f"{found['s']}'s"
    if found["nt"]:
        return f"{found['nt']}n't"
    if found["pronoun"]:
        return f"I'{found['rest']}"
    return f"{found['re']}'re"


#: Question words as typed in a hurry ("wot time", "wich form", "hw long"); not "wat" (Dutch
#: for "what") nor "wen" (German for "whom"), which an English reading must not take up.
_SPELLED = {"wot": "what", "wht": "what", "wich": "which", "whitch": "which", "hw": "how"}
_SPELLED_WORD = re.compile(r"^\s*(" + "|".join(_SPELLED) + r")\b", re.IGNORECASE)


def question_text(question: str) -> str:
    """The question as the rules read it: a question word typed in a hurry as its opening
    word ("wot time", "wich form") spelled out, and contractions typed without their
    apostrophe ("whats the fee", "isnt it free", "im 17") written with it."""
    question = _SPELLED_WORD.sub(
        lambda m: m.group().replace(m.group(1), _SPELLED[m.group(1).lower()]),
        question,
        count=1,
    )
    return _TYPED.sub(_typed, question)


#: "and" before a second question of its own: a wh-word, or an auxiliary and its subject
#: ("how often do I take it *and can I* drink with it", "when does it open *and is there* a
#: fee"); "if I am late and do not call" goes on with one question.
_SECOND_QUESTION = re.compile(
    r"(?:\s*,\s*|\s+)and\s+(?=(?:(?:for|from|until|till|by|at|in|on|to|with)\s+)?"
    r"(?:who|what|which|when|where|how|why|whose)\b"
    r"|(?:is|are|was|were|do|does|did|can|could|will|would|should|shall|may|might|must|have"
    r"|has|need)(?:n't)?\s+(?:i|you|we|they|he|she|it|there|my|your|his|her|our|their|the"
    r"|a|an|this|that|these|those)\b)",
    re.IGNORECASE,
)


def question_parts(question: str) -> list[str]:
    """The questions ``question`` asks, in order: two or more when its last interrogative
    sentence joins questions of their own with "and" ("What is the fee, and how long does it
    take?"), each with the sentences before it (a premise stays with every part); the
    question itself otherwise. A part without a clause of its own ("..., and for how
    long?") is left out: a reply to it is read as written."""
    asked = asked_piece(question)
    at = question.rfind(asked) if asked else -1
    if at < 0:
        return [question]
    pieces = _SECOND_QUESTION.split(asked.rstrip(" ?"))
    if len(pieces) < 2:
        return [question]
    before = question[:at]
    parts = [pieces[0], *(p for p in pieces[1:] if _has_clause(p))]
    return [f"{before}{p.strip()}?" for p in parts]


def _has_clause(part: str) -> bool:
    """A question of its own: an auxiliary after its wh-words ("how long does it take"), not
    a bare wh-phrase ("for how long", "how much")."""
    return any(w.lower() in AUX or w.lower() in NEGATED for w in split_words(part))


#: A contrast after a reply's value ("Desk 4, not Desk 5."): the value is the part before it.
_CONTRAST = re.compile(r"\s*,\s*(?:but\s+)?not\s+\w", re.IGNORECASE)
#: A reply that agrees with what the asker said ("Right.", "Correct, ...").
_AGREEING = re.compile(
    r"^\s*(?P<word>right|correct|exactly|that's right|that is right|that's correct)\b",
    re.IGNORECASE,
)
#: A dash between a reply and a sentence of its own (a range "8 - 10" has no words after it).
_DASH = re.compile(r"\s+[-–—]\s+")
_CLOCK = frozenset({"am", "pm", "a.m.", "p.m.", "noon", "midnight"})
#: A bound that opens with "no" or "not" ("No more than eight.", "Not before 9."): a value.
_BOUND = re.compile(
    r"^\s*(?:no|not)\s+(?:more|less|fewer|later|earlier|sooner|longer|further|before|after"
    r"|until|till)\b",
    re.IGNORECASE,
)


#: Words that open a condition a reply puts on its yes or no ("Yes, if you're destitute."):
#: such a fragment stays a sentence of its own (joined, its words would match a passage's
#: condition for another case).
_CONDITIONS = frozenset({"if", "unless", "provided", "once"})


def low_first(words: list[str]) -> str:
    return words[0].lower() if words else ""


def _fragments_joined(made: list[Made]) -> list[Made]:
    """A reply's verbless words after its yes or no ("Yes, free of charge.") finish the
    statement before them when they go on from its last word ("The test is free of charge.")
    and are dropped when that statement already says them; a fragment is no statement."""
    out: list[Made] = []
    for text, rule in made:
        words = split_words(text)
        verbless = len(words) <= 4 and not {w.lower() for w in words} & (AUX | set(NEGATED))
        if rule != "as_written" or not out or not verbless or low_first(words) in _CONDITIONS:
            out.append((text, rule))
            continue
        before, before_rule = out[-1]
        said = [w.lower() for w in split_words(before)]
        low = [w.lower() for w in words]
        if said and low[0] == said[-1]:
            joined = before.rstrip(".!") + " " + " ".join(words[1:]) + "."
            out[-1] = (joined, before_rule)
        elif not set(low) <= set(said):
            out.append((text, rule))
    return out


def _alternative(asked: list[str], reply: list[str]) -> list[str] | None:
    """The question with its "X or Y" narrowed to the one the reply names ("Do I pay in cash
    or by card?" + "By card." -> "Do I pay by card"); None when the reply names neither.
    The second option runs to the end; the first is as long (from its preposition, when the
    second opens with one: "before or after food", "in cash or by card")."""
    low = [w.lower() for w in asked]
    if "or" not in low[2:] or not reply:
        return None
    at = len(low) - 1 - low[::-1].index("or")
    second = low[at + 1 :]
    if not second:
        return None
    begin = at - len(second)
    if second[0] in PREPOSITIONS:
        found = [i for i in range(at - 1, 0, -1) if low[i] in PREPOSITIONS]
        begin = found[0] if found else begin
    if begin < 1:
        return None
    first = low[begin:at]
    said = [w.lower() for w in reply]
    if said[-len(second) :] == second:
        kept = asked[:begin] + asked[at + 1 :]
    elif said[-len(first) :] == first:
        kept = asked[:at]
    else:
        return None
    return kept if len(kept) > 1 else None


#: Object pronouns right after a reply's first word make that word a verb ("Hand *it* in").
_OBJECT_PRONOUNS = frozenset({"it", "them"})


def _instruction(asked: list[str], words: list[str]) -> bool:
    """Whether a reply to a wh-question is an instruction the lexicon's verb list may miss:
    its first word takes an object pronoun ("Hand it in at reception.") or is the question's
    own verb ("How long should I avoid alcohol?" + "Avoid alcohol for two days.")."""
    first = words[0].lower()
    if not first.isalpha() or first in PRONOUNS or first in PREPOSITIONS or first in DETERMINERS:
        return False
    if words[1].lower() in _OBJECT_PRONOUNS:
        return True
    asked_words = {w.lower() for w in asked[1:]} - AUX - set(NEGATED)
    if len(words) < 3 or not words[1][:1].islower():
        return False  # "Form FR-2.": a name that opens with a verb-like word
    return first in asked_words and is_verb(first, morphology())


def _instructed_value(words: list[str]) -> list[str] | None:
    """The name, place or time an instruction points to ("Take it to *Mrs Patel*", "Go to
    *Desk 4*"), after its last preposition; None when that is no name or number."""
    low = [w.lower() for w in words]
    at = max((i for i, w in enumerate(low) if w in PREPOSITIONS), default=-1)
    value = words[at + 1 :] if at > 0 else []
    if not value or len(value) > 5:
        return None
    if not any(w[:1].isupper() or w[:1].isdigit() for w in value):
        return None
    return value


def _restates(q: WhQuestion, words: list[str]) -> bool:
    """Whether the reply repeats the question's predicate ("Who chairs the committee?" +
    "Maria chairs the committee."): a sentence of its own, whatever its verb looks like."""
    rest = [w.lower() for w in q.rest]
    if len(rest) < 2:
        return False
    low = [w.lower() for w in words]
    return any(low[i : i + len(rest)] == rest for i in range(len(low) - len(rest) + 1))


#: A yes or no that is a sentence of its own ("No. They should ask a doctor.").
_LEAD_SENTENCE = re.compile(LEAD.pattern.replace(r"(?P<sep>[,.;:!—–-]+)?", r"(?P<sep>[.!]+)"), re.I)


#: A question that asks for a time of day ("What time…?", "When does it open?", "How late…?").
_ASKS_TIME = re.compile(
    r"\b(?:what|which)\s+(?:time|times|hours)\b|\bwhen\b|\bhow\s+(?:late|early|soon)\b"
    r"|\b(?:opening|visiting|office)\s+(?:hours|times)\b|\bcut[- ]?off\b",
    re.IGNORECASE,
)


def asks_time(question: str) -> bool:
    """Whether ``question``'s asked sentence asks for a time of day (a date or a time): a
    bare hour in its reply ("From 9.", "2 till 4.") may be a clock time."""
    return _ASKS_TIME.search(" ".join(question_sentence(question))) is not None


def premise(question: str) -> str:
    """The words of ``question`` outside the sentence it asks ("how much do we get? *we're in
    a self-catered flat*", "*I ordered express delivery*, when will it come?")."""
    asked = {w.lower() for w in question_sentence(question)}
    words = re.findall(r"[\w'’-]+", question)
    return " ".join(w for w in words if w.lower() not in asked)


def lead_end(reply_text: str) -> int | None:
    """Where a yes or no that closes with "." or "!" ends, when more follows ("No. They
    should ask a doctor."): the sentence splitter keeps such a short piece with the next
    sentence. None otherwise."""
    found = _LEAD_SENTENCE.match(reply_text)
    if found is None or not reply_text[found.end() :].strip():
        return None
    return found.end("sep")


#: Verbs that make "Can you ...?" a request to the assistant rather than a question about
#: what one can do ("Can you get a refund?").
_REQUEST_VERBS = frozenset(
    "tell send help give explain show remind book check find recommend describe list "
    "summarise summarize write translate call email forward".split()
)


def _is_request(made: Clause, asked: list[str]) -> bool:
    """ "Could you send me the form?": the asker's own "you" (not an "I" the statement turned
    into "you": "Can I give it to my son?")."""
    if [w.lower() for w in made.subject] != ["you"] or not made.verb or not made.predicate:
        return False
    if len(asked) < 2 or asked[1].lower() != "you":
        return False
    return made.aux in ("could", "would", "will") or made.predicate[0].lower() in _REQUEST_VERBS


# -- abstentions ----------------------------------------------------------------------------

_ABSTAIN = re.compile(
    r"""^(?:(?:sorry|unfortunately|i'?m\ afraid|i\ am\ afraid)[,.!]?\s+)?(?:
      i\s+(?:really\s+)?(?:don'?t|do\s+not)\s+know
    | i\s+(?:don'?t|do\s+not)\s+have\s+(?:any\s+|enough\s+)?(?:information|data|details)
    | i(?:'m|\s+am)\s+(?:not\s+(?:sure|certain|able\s+to)|unsure|unable\s+to)
    | i\s+(?:can'?t|cannot|can\s+not|couldn'?t|could\s+not|was\s+unable\s+to)\s+
        (?:answer|say|tell|find|help|determine|confirm|provide|verify|know)
    | i\s+(?:have|had)\s+no\s+(?:information|data|details|answer)
    | (?:the\s+)?(?:provided\s+|given\s+|retrieved\s+|available\s+)?
        (?:sources?|context|passages?|documents?|information|texts?)\s+
        (?:provided\s+|given\s+)?(?:do|does|did)\s*(?:n'?t|\s+not)\s+
        (?:say|mention|contain|provide|include|state|specify|answer|cover|tell|address)
    | (?:i\s+am\s+|i'm\s+)?unable\s+to\s+(?:answer|say|tell|find|determine|confirm)
    | there\s+is\s+(?:no|not\s+enough)\s+information
    | (?:no|not\s+enough)\s+information\s+(?:is\s+)?(?:available|given|provided|about|on)
    | that\s+is\s+not\s+(?:something\s+i\s+can|covered)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_COURTESY = re.compile(
    r"^(?:sorry|i'?m\s+sorry|i\s+am\s+sorry|i\s+apologi[sz]e|unfortunately|thank\s+you|thanks"
    r"|please\s+(?:ask|contact|consult|check|see|refer|speak|talk)"
    r"|you\s+(?:may|might)\s+want\s+to\s+(?:ask|contact|consult|check|speak|talk))\b",
    re.IGNORECASE,
)


#: A refusal that goes on to say something ("I don't know the hour, but it opens at 8").
_GOES_ON = re.compile(r"\b(?:but|however|although|though|except)\b", re.IGNORECASE)


def abstains(sentences: list[str]) -> bool:
    """Whether the answer's sentences only decline to answer (at least one says so, the
    others are courtesy: "Sorry.", "Please ask your doctor.")."""
    said = [s.strip().replace("’", "'") for s in sentences if s.strip()]
    refusals = [s for s in said if _ABSTAIN.match(s) and not _GOES_ON.search(s)]
    return bool(refusals) and all(s in refusals or _COURTESY.match(s) for s in said)
