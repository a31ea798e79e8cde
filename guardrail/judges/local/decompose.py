"""Rule-based factoid decomposition: answer text -> atomic factual sentences.

Steps: split sentences; strip list bullets, markdown and lead-ins ("Yes,", "Based on the
passages,"); drop what is not a factual claim (questions, greetings, "I hope this helps",
list headers ending in ":"); split coordinated clauses into separate factoids, carrying a
shared subject over ("Marie Curie discovered polonium and radium" -> two factoids). Wording stays
the answer's own, so the scorer can align each factoid back to its span.
"""

from __future__ import annotations

import re

from guardrail.judges.local.lexicon import Lexicon
from guardrail.text.edits import capitalize_first, ensure_period
from guardrail.text.sentences import split_sentences
from guardrail.text.tokens import Token, tokenize

_BULLET = re.compile(r"^\s*(?:[-*•·>]+|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)](?=\s))\s*")
_MARKDOWN = re.compile(r"\*\*|__|^#+\s*|`")
_COORDINATORS = frozenset({"and", "but", "whereas", "while", "yet"})
_PREPOSITIONS = frozenset(
    [
        "in",
        "on",
        "at",
        "of",
        "for",
        "with",
        "by",
        "from",
        "to",
        "into",
        "during",
        "throughout",
        "after",
        "before",
        "since",
        "until",
        "under",
        "over",
        "between",
        "among",
        "across",
        "through",
        "about",
        "against",
        "within",
        "without",
        "via",
        "per",
        "like",
        "as",
    ]
)
_NO_SPLIT_BEFORE = frozenset({"between", "both", "either", "neither", "among", "from"})
_MAX_CONJUNCT_WORDS = 6
#: The most factoids one answer yields (the rest of a longer answer is not verified).
MAX_FACTOIDS = 200
#: How deep a clause is split at coordinators: at most this many + 1 factoids come of one
#: ";"-separated clause.
MAX_SPLIT_DEPTH = 8


class Decomposer:
    """Splits an answer into factoids using a :class:`Lexicon` for function words and verbs."""

    def __init__(self, lex: Lexicon) -> None:
        self.lex = lex
        leads = "|".join(re.escape(lead) for lead in lex.lead_ins)
        self._lead_in = re.compile(
            rf"^\s*(?:{leads})(?:\s*[,!:;.—–-]+\s*|(?<=that)\s+)", re.IGNORECASE
        )

    def decompose(self, text: str) -> list[str]:
        """Atomic factual sentences of ``text``, in order, without duplicates."""
        out: list[str] = []
        seen: set[str] = set()
        for start, end in split_sentences(text or "", rules="passages"):
            sentence = self._clean(text[start:end])
            if sentence is None:
                continue
            for clause in self._split(sentence):
                factoid = ensure_period(capitalize_first(clause.strip(" ,;:-—–")))
                key = " ".join(factoid.lower().split())
                if key in seen or not self._is_claim(factoid):
                    continue
                seen.add(key)
                out.append(factoid)
                if len(out) >= MAX_FACTOIDS:
                    return out
        return out

    # -- cleaning -------------------------------------------------------------------------------

    def _clean(self, sentence: str) -> str | None:
        """Strip bullets and lead-ins; None when the sentence is not a factual claim."""
        s = _MARKDOWN.sub("", _BULLET.sub("", sentence)).strip()
        for _ in range(4):
            stripped = self._lead_in.sub("", s, count=1)
            if stripped == s:
                break
            s = stripped.strip()
        if not s or s.endswith("?") or s.endswith(":"):
            return None
        head, colon, tail = s.partition(": ")
        if colon and tail.strip() and self._is_dropped(head):
            s = tail.strip()  # "Here's what I found: <claim>"
        return None if self._is_dropped(s) else s

    def _is_dropped(self, s: str) -> bool:
        low = s.lower().lstrip("\"'“(")
        for phrase in self.lex.drop_sentences:
            if low.startswith(phrase) and (
                len(low) == len(phrase) or not low[len(phrase)].isalnum()
            ):
                return True
        return re.match(r"^(?:i|we)\s+(?:hope|think you|would|'d|can help)", low) is not None

    def _is_claim(self, factoid: str) -> bool:
        words = [t for t in tokenize(factoid, "lexical") if t.is_word or t.is_number]
        if len(words) == 1 and len(words[0].text) >= 4 and not words[0].text.isascii():
            return True  # scripts written without spaces (CJK) tokenize as one "word"
        return len(words) >= 2 and any(self.lex.is_content(t.lower) for t in words)

    # -- verbs ----------------------------------------------------------------------------------

    def _is_finite(self, tok: Token, prev: Token | None) -> bool:
        """A finite verb or auxiliary (not a gerund)."""
        if not tok.is_word:
            return False
        low = tok.lower
        lex = self.lex
        if low in lex.auxiliaries or low in lex.contractions or low == "cannot":
            return True
        if prev is not None and prev.lower in ("the", "a", "an", "this", "its", "their", "to"):
            return False
        analysis = lex.morph.guess_base(low)
        if analysis is None:
            return False
        form = analysis[1]
        if form in ("s", "ed", "en"):
            return True
        return prev is not None and prev.lower in ("they", "we", "i", "you", "also", "often")

    def _first_verb(self, tokens: list[Token]) -> int | None:
        for i, tok in enumerate(tokens):
            if self._is_finite(tok, tokens[i - 1] if i else None):
                return i
        return None

    def _starts_with_verb(self, tokens: list[Token]) -> bool:
        words = [t for t in tokens if t.is_word]
        if not words:
            return False
        first = words[0]
        if first.lower in ("also", "often", "usually", "then", "later", "still", "can"):
            return len(words) > 1 or first.lower == "can"
        if first.lower in self.lex.auxiliaries or first.lower in self.lex.contractions:
            return True
        analysis = self.lex.morph.guess_base(first.lower)
        return analysis is not None and first.lower not in self.lex.stopwords

    # -- splitting ------------------------------------------------------------------------------

    def _split(self, sentence: str) -> list[str]:
        parts = [p for p in re.split(r";\s+", sentence) if p.strip()]
        parts = [piece for part in parts for piece in _dash_clauses(part)]
        out: list[str] = []
        for part in parts:
            out.extend(self._split_clause(part.strip(), depth=0))
        return out

    def _split_clause(self, text: str, depth: int) -> list[str]:
        """Split at ", and"-style boundaries first, then at bare "and"/"but"."""
        if depth > MAX_SPLIT_DEPTH:
            return [text]
        tokens = tokenize(text, "lexical")
        for comma_only in (True, False):
            for i in self._coordinators(tokens, comma_only):
                split = self._split_at(text, tokens, i)
                if split is None:
                    continue
                firsts, rest = split
                out: list[str] = []
                for first in firsts:
                    out.extend(self._split_clause(first, depth + 1) if comma_only else [first])
                return [*out, *self._split_clause(rest, depth + 1)]
        return [text]

    def _coordinators(self, tokens: list[Token], comma_only: bool) -> list[int]:
        found: list[int] = []
        depth = 0
        for i, tok in enumerate(tokens):
            if tok.text in "([{":
                depth += 1
            elif tok.text in ")]}":
                depth = max(0, depth - 1)
            if depth or tok.lower not in _COORDINATORS or i == 0 or i == len(tokens) - 1:
                continue
            after_comma = tokens[i - 1].text == ","
            if tok.lower in ("while", "whereas", "yet") and not after_comma:
                continue
            if after_comma == comma_only:
                found.append(i)
        return found

    def _split_at(self, text: str, tokens: list[Token], i: int) -> tuple[list[str], str] | None:
        """Split at coordinator ``tokens[i]``; None when it joins words, not claims."""
        left = tokens[:i]
        if left and left[-1].text == ",":
            left = left[:-1]
        right = tokens[i + 1 :]
        if not left or not right:
            return None
        left_text = text[left[0].start : left[-1].end]
        right_text = text[right[0].start :]
        left_verb = self._first_verb(left)
        if left_verb is None:
            return None
        right_has_verb = self._first_verb(right) is not None
        conj = tokens[i].lower

        if conj == "and" and left[-1].lower in _SERIAL_VERBS and self._starts_with_verb(right):
            return None  # "go and report", "come and collect": one action
        if self._starts_with_verb(right):
            subject = text[left[0].start : left[left_verb].start].strip()
            if not subject:
                return None
            verb = left[left_verb].lower
            after_verb = left[left_verb + 1] if left_verb + 1 < len(left) else None
            carry_aux = (
                verb in self.lex.auxiliaries
                and after_verb is not None
                and not self._is_participle(after_verb.lower)
                and self._is_participle(right[0].lower)
                and right[0].lower not in self.lex.auxiliaries
            )
            if carry_aux:
                subject = f"{subject} {left[left_verb].text}"
            return [left_text], f"{subject} {right_text}"
        if right_has_verb:
            return [left_text], right_text
        if conj != "and":
            return None
        return self._split_conjuncts(text, left, right, left_verb)

    def _is_participle(self, word: str) -> bool:
        analysis = self.lex.morph.guess_base(word)
        return analysis is not None and analysis[1] in ("ed", "en")

    def _split_conjuncts(
        self, text: str, left: list[Token], right: list[Token], left_verb: int
    ) -> tuple[list[str], str] | None:
        """ "X discovered A, B and C" -> "X discovered A", "... B" and "... C"."""
        right_words = [t for t in right if t.is_word or t.is_number]
        if not right_words or len(right_words) > _MAX_CONJUNCT_WORDS:
            return None
        if right_words[-1].lower in ("respectively", "forth", "more", "others"):
            return None
        head_end = left_verb
        for j in range(len(left) - 1, left_verb, -1):
            low = left[j].lower
            if low in _PREPOSITIONS or self._is_finite(left[j], left[j - 1]):
                head_end = j
                break
        ranges = (
            head_end >= 2 and left[head_end].lower in _RANGE_WORDS and left[head_end - 1].is_number
        )
        if ranges:  # "open from 2 to 4 and 6 to 8": the conjuncts are the range and what follows
            head_end -= 2
        conjunct = left[head_end + 1 :]
        if not conjunct:
            return None
        if not ranges and any(t.lower in _NO_SPLIT_BEFORE for t in left[head_end : head_end + 2]):
            return None
        last_left = [t for t in conjunct if t.is_word or t.is_number]
        if not last_left:
            return None
        if last_left[-1].is_capitalized and right_words[0].is_capitalized and len(right_words) == 1:
            return None  # "Procter and Gamble", "Romeo and Juliet"
        segments = _comma_segments(conjunct)
        if any(len([t for t in seg if t.is_word]) > _MAX_CONJUNCT_WORDS for seg in segments):
            return None
        head = text[left[0].start : left[head_end].end]
        shared = ""
        if len(right_words) > 1 and right_words[0].is_number and not right_words[1].is_number:
            # "on 4 and 18 October", "at 2 and 4 pm": a bare number shares the last one's words
            shared = " " + text[right_words[1].start : right_words[-1].end]
        firsts = [
            f"{head} {text[seg[0].start : seg[-1].end]}"
            + (shared if len(seg) == 1 and seg[0].is_number else "")
            for seg in segments
        ]
        return firsts, f"{head} {text[right[0].start :]}"


#: Verbs that, joined by "and" to the verb after them, name one action with it ("go and
#: report", "come and collect", "try and arrive").
_SERIAL_VERBS = frozenset({"go", "come", "try", "pop", "run", "hurry"})
#: A dash with a space on each side (a hyphen "-" only between words: "8 - 10" is a range).
_SPACED_DASH = re.compile(r"\s[—–]\s|(?<=[^\W\d])\s-\s(?=[^\W\d])")
#: Fewest words on each side of a dash that joins two clauses.
_DASH_SIDE_WORDS = 3


def _dash_clauses(text: str) -> list[str]:
    """``text`` cut at its one spaced dash when each side holds a clause of its own ("Raw fish
    is best avoided – sushi with cooked fish is fine."); as it is when there is none, when two
    dashes set off an aside, or when a side is too short to be a clause ("Monday – Friday")."""
    dashes = list(_SPACED_DASH.finditer(text))
    if len(dashes) != 1:
        return [text]
    left, right = text[: dashes[0].start()].strip(), text[dashes[0].end() :].strip()
    words = [len(re.findall(r"[^\W\d_]+", side)) for side in (left, right)]
    if min(words) < _DASH_SIDE_WORDS or not right[:1].isalpha():
        return [text]
    if min(_running_words(side) for side in (left, right)) < 2:
        return [text]  # "• Xbox One (while standing) — LT (hold) + RB (tap)": a label
    return [left, right[:1].upper() + right[1:]]


def _running_words(text: str) -> int:
    """Lower-case words of three letters or more outside brackets: running text has them, a
    label or a key ("Xbox One (while standing)", "LT + RB") does not."""
    bare = re.sub(r"\([^)]*\)", " ", text)
    return sum(1 for w in re.findall(r"[^\W\d_]{3,}", bare) if w.islower())


#: Words between the two ends of a range of numbers ("2 to 4", "10 till 1").
_RANGE_WORDS = frozenset({"to", "till", "until", "-", "–"})


def _comma_segments(tokens: list[Token]) -> list[list[Token]]:
    segments: list[list[Token]] = [[]]
    for tok in tokens:
        if tok.text == ",":
            segments.append([])
        else:
            segments[-1].append(tok)
    return [s for s in segments if s]
