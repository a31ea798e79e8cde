"""Rule-based synonym and antonym mutations of a factoid.

Synonyms must keep the meaning; antonyms must contradict it. Every rule edits the factoid's
own words (so a verifier sees the same content words), in a fixed order, so output is
deterministic. Rules, best first:

* antonyms: toggle the negation at the main auxiliary/copula ("is" -> "is not", "cannot" ->
  "can", "does not cause" -> "causes", "discovered" -> "did not discover"), in a language
  module's own words outside English ("no tome" -> "tome"); for a factoid with no negation,
  its plain denial ("It is not true that ..."), which the verifier reads against the
  factoid's own finding; swap a word for its lexicon antonym ("safe" -> "unsafe",
  "increases" -> "decreases"); finally other wrappers ("It is false that ..."). Never "not
  not". A second opposite word comes after the denial because it is a poor antonym of a
  factoid the context contradicts on another word ("the smallest movement in <the wrong
  country>" is false twice over).
* synonyms: swap a word for its lexicon synonym ("safe" -> "harmless"); move a trailing
  time/place phrase to the front; expand or contract "is not"/"isn't"; digits <-> number words
  (English only); finally a neutral wrapper ("It is true that ...", "In fact, ...").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from guardrail.judges.local.lexicon import Lexicon
from guardrail.lang.context import current_language
from guardrail.lang.registry import language
from guardrail.text.edits import capitalize_first, ensure_period
from guardrail.text.tokens import Token, tokenize

_MODALS = frozenset({"can", "could", "will", "would", "should", "shall", "may", "might", "must"})
_COPULAS = frozenset({"is", "are", "was", "were", "am"})
_HAVE = frozenset({"has", "have", "had"})
_DO = frozenset({"do", "does", "did"})
_RELATIVE = frozenset({"that", "which", "who", "whom", "whose", "if", "when", "because"})
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "its", "their"})
_PLURAL_PRONOUNS = frozenset({"they", "we", "you", "i", "people", "children", "women", "men"})
_MOVABLE_PREPS = frozenset({"in", "during", "throughout", "after", "before", "since", "until"})
#: Words after which an "-ed" form is an adjective or participle, not a finite past verb.
_NOT_BEFORE_PAST = _COPULAS | _HAVE | _DETERMINERS | frozenset({"been", "being", "and", "or"})
#: Words after which a bare verb form is a verb ("to permit", "can close", "they open").
_VERB_LEADS = _MODALS | _DO | _PLURAL_PRONOUNS | frozenset({"to", "also", "often", "usually"})
_CLAUSE_WORDS = frozenset({"that", "which", "who", "whom", "whose", "because", "and", "or", "but"})
_DIGIT_WORDS = {
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "10": "ten",
    "11": "eleven",
    "12": "twelve",
    "20": "twenty",
}
_WORD_DIGITS = {v: k for k, v in _DIGIT_WORDS.items()}
#: Capitalized first words with these endings are ordinary words, not names ("Smoking").
_COMMON_SUFFIXES = ("ing", "tion", "sion", "ness", "ity", "ment", "ance", "ence", "ism", "ology")
_SUPPORTIVE_WRAPS = ("It is true that {}", "In fact, {}", "It is the case that {}", "Indeed, {}")
_NEGATING_WRAPS = (
    "It is not true that {}",
    "It is false that {}",
    "It is not the case that {}",
    "It is untrue that {}",
)
_AFFIRMING_WRAPS = ("It is true that {}", "It is the case that {}")


def _wraps() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The supportive, affirming and negating wrappers of the language being read: a German
    statement is wrapped in German ("Es stimmt nicht: ..."), not in English."""
    lang = language(current_language())
    if lang is None or not lang.supportive_wraps or not lang.negating_wraps:
        return _SUPPORTIVE_WRAPS, _AFFIRMING_WRAPS, _NEGATING_WRAPS
    return lang.supportive_wraps, lang.supportive_wraps[:2], lang.negating_wraps


Edit = tuple[int, int, str]


def _apply(text: str, edits: list[Edit]) -> str:
    out = text
    for start, end, repl in sorted(edits, key=lambda e: e[0], reverse=True):
        out = out[:start] + repl + out[end:]
    out = re.sub(r"\s{2,}", " ", out)
    out = re.sub(r"\s+([,.;:!?])", r"\1", out)
    return ensure_period(capitalize_first(out.strip()))


def _match_case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _decap(text: str, lex: Lexicon) -> str:
    """Lower-case the first word when it is a common word, so it can follow a wrapper."""
    toks = tokenize(text, "lexical")
    if not toks or not toks[0].is_word or toks[0].text == "I" or toks[0].text.isupper():
        return text
    first = toks[0].lower
    if first in lex.stopwords or first.endswith(_COMMON_SUFFIXES):
        return text[: toks[0].start] + toks[0].text.lower() + text[toks[0].end :]
    return text


def _core(factoid: str) -> str:
    return factoid.strip().rstrip(".!。！").strip()


def _wrap(template: str, factoid: str, lex: Lexicon) -> str:
    return ensure_period(template.format(_decap(_core(factoid), lex)))


class Mutator:
    """Generates ``count`` synonyms or antonyms of a factoid."""

    def __init__(self, lex: Lexicon) -> None:
        self.lex = lex
        #: "does not" -> "doesn't" (the contraction table read backwards)
        self._contract = {v: k for k, v in lex.contractions.items()}

    # -- public ---------------------------------------------------------------------------------

    def synonyms(self, factoid: str, count: int) -> list[str]:
        """``count`` meaning-preserving rewrites, best first, distinct where possible."""
        candidates = self._synonym_candidates(factoid)
        supportive, _, _ = _wraps()
        return self._take(factoid, count, candidates, supportive, supportive, ())

    def antonyms(self, factoid: str, count: int) -> list[str]:
        """``count`` contradictions of the factoid, best first, distinct where possible."""
        candidates = self._antonym_candidates(factoid)
        _, affirming, negating = _wraps()
        if self._is_negated(tokenize(factoid, "lexical")):
            # wrapping a negated factoid in "It is not true that" reads as a double negation:
            # affirm the un-negated rewrite instead, and wrap only as a last resort
            return self._take(factoid, count, candidates, (), affirming, negating)
        return self._take(factoid, count, candidates, negating, affirming, ())

    # -- shared ---------------------------------------------------------------------------------

    def _take(
        self,
        factoid: str,
        count: int,
        candidates: Iterator[str],
        factoid_wraps: tuple[str, ...],
        best_wraps: tuple[str, ...],
        fallback_wraps: tuple[str, ...],
    ) -> list[str]:
        """Rule outputs first, then wrappers of the factoid, then wrappers of the best rewrite."""
        if count <= 0:
            return []
        out: list[str] = []
        seen = {" ".join(ensure_period(factoid.strip()).lower().split())}

        def add(text: str) -> bool:
            key = " ".join(text.lower().split())
            if text and key not in seen:
                seen.add(key)
                out.append(text)
            return len(out) >= count

        for cand in candidates:
            if add(cand):
                return out
        best = out[0] if out else None
        for template in factoid_wraps:
            if add(_wrap(template, factoid, self.lex)):
                return out
        if best is not None:
            for template in best_wraps:
                if add(_wrap(template, best, self.lex)):
                    return out
        for template in fallback_wraps:
            if add(_wrap(template, factoid, self.lex)):
                return out
        pool = out or [ensure_period(factoid.strip()) or "."]
        while len(out) < count:  # more variants asked for than distinct rules exist
            out.append(pool[len(out) % len(pool)])
        return out

    # -- antonyms -------------------------------------------------------------------------------

    def _is_negated(self, tokens: list[Token]) -> bool:
        return any(
            t.is_word and self.lex.is_negation(t.lower) and not _answers(tokens, i)
            for i, t in enumerate(tokens)
        )

    def _antonym_candidates(self, factoid: str) -> Iterator[str]:
        tokens = tokenize(factoid, "lexical")
        toggled = self._toggle_negation(factoid, tokens)
        if toggled:
            yield toggled
        if not self._is_negated(tokens):
            yield _wrap(_wraps()[2][0], factoid, self.lex)
        yield from self._lexicon_swaps(factoid, tokens, self.lex.antonym_forms, self.lex.antonyms)

    def _toggle_negation(self, text: str, tokens: list[Token]) -> str | None:
        """Remove the first negation, or add one at the main verb. None when neither applies."""
        removed = self._remove_negation(text, tokens)
        if removed is not None:
            return removed
        if self._is_negated(tokens) or language(current_language()) is not None:
            return None  # the negation is inserted by English rules only ("is" -> "is not")
        return self._insert_negation(text, tokens)

    def _remove_negation(self, text: str, tokens: list[Token]) -> str | None:
        lang = language(current_language())
        if lang is not None:
            return _unnegate(text, tokens, lang.unnegate, lang.concord)
        lex = self.lex
        for i, tok in enumerate(tokens):
            low = tok.lower
            if not tok.is_word or _answers(tokens, i):
                continue
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if low in lex.contractions:  # isn't, doesn't, can't ...
                expanded = lex.contractions[low]
                aux = expanded.split()[0]
                if aux == "cannot":
                    return _apply(text, [(tok.start, tok.end, _match_case(tok.text, "can"))])
                if aux in _DO:
                    return self._undo_do_support(text, tokens, i, i, aux)
                return _apply(text, [(tok.start, tok.end, _match_case(tok.text, aux))])
            if low == "cannot":
                return _apply(text, [(tok.start, tok.end, _match_case(tok.text, "can"))])
            if low == "not":
                if nxt is not None and nxt.lower in ("only", "just", "merely"):
                    continue
                prev = tokens[i - 1] if i > 0 else None
                if prev is not None and prev.lower in _DO:
                    return self._undo_do_support(text, tokens, i - 1, i, prev.lower)
                start = prev.end if prev is not None else tok.start
                return _apply(text, [(start, tok.end, "")])
            if low == "never":
                return _apply(text, [(tok.start, tok.end, "")])
            if low == "no" and nxt is not None and nxt.is_word and i > 0:
                repl = {"longer": "still", "one": "someone"}.get(nxt.lower)
                if repl is not None:
                    return _apply(text, [(tok.start, nxt.end, repl)])
                return _apply(text, [(tok.start, tok.end, "some")])
            if low in ("none", "nothing", "nobody", "no", "neither", "nor", "nowhere"):
                return None  # no clean removal; callers fall back to wrappers
        return None

    def _undo_do_support(
        self, text: str, tokens: list[Token], aux_i: int, not_i: int, aux: str
    ) -> str:
        """``does not cause`` -> ``causes``; ``did not discover`` -> ``discovered``."""
        verb_i = not_i + 1
        while verb_i < len(tokens) and (
            tokens[verb_i].lower in ("always", "usually", "really")
            or (
                tokens[verb_i].lower.endswith("ly")
                and len(tokens[verb_i].lower) > 4
                and not self.lex.morph.is_known_verb_form(tokens[verb_i].lower)
            )
        ):
            verb_i += 1  # "does not necessarily lead" -> "leads"
        if verb_i >= len(tokens) or not tokens[verb_i].is_word:
            return _apply(text, [(tokens[aux_i].start, tokens[not_i].end, tokens[aux_i].text)])
        verb = tokens[verb_i]
        base = verb.lower
        form = {"does": "s", "did": "ed", "do": ""}[aux]
        new_verb = self.lex.morph.inflect(base, form)
        aux_tok = tokens[aux_i]
        new_verb = _match_case(aux_tok.text, new_verb) if aux_i == 0 else new_verb
        return _apply(text, [(aux_tok.start, verb.end, new_verb)])

    def _insert_negation(self, text: str, tokens: list[Token]) -> str | None:
        for i, tok in enumerate(tokens):
            if i == 0 or not tok.is_word:
                continue
            low = tok.lower
            prev = tokens[i - 1].lower
            if prev in _RELATIVE:
                continue
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if low in _COPULAS or (low in _MODALS and low != "can"):
                return _apply(text, [(tok.end, tok.end, " not")])
            if low == "can":
                return _apply(text, [(tok.start, tok.end, _match_case(tok.text, "cannot"))])
            if low in _DO and nxt is not None and nxt.is_word:
                return _apply(text, [(tok.end, tok.end, " not")])
            if low in _HAVE:
                if nxt is not None and nxt.is_word and self._is_participle(nxt.lower):
                    return _apply(text, [(tok.end, tok.end, " not")])
                aux = {"has": "does", "have": "do", "had": "did"}[low]
                return _apply(text, [(tok.start, tok.end, f"{aux} not have")])
            verb = self._finite_verb(tok, tokens[i - 1])
            if verb is not None:
                base, form = verb
                aux = {"s": "does", "ed": "did", "": "do"}[form]
                return _apply(text, [(tok.start, tok.end, f"{aux} not {base}")])
        return None

    def _is_participle(self, word: str) -> bool:
        if word in ("been", "got", "gotten"):
            return True
        analysis = self.lex.morph.analyze(word)
        if analysis is not None:
            return analysis[1] in ("ed", "en")
        return word.endswith("ed") and len(word) > 4

    def _finite_verb(self, tok: Token, prev: Token) -> tuple[str, str] | None:
        """(base, form) when ``tok`` looks like the main finite verb, else None."""
        low = tok.lower
        if low in self.lex.stopwords or prev.lower in _DETERMINERS or prev.lower == "to":
            return None
        analysis = self.lex.morph.guess_base(low)
        if analysis is None:
            return None
        base, form = analysis
        if form in ("ed", "en") and low.endswith(("ed", "t", "n", "d")):
            past = self.lex.morph.past(base)
            if past != low:
                return None  # a participle only ("written"), not a finite past verb
            if not self.lex.morph.is_known_verb_form(base) or prev.lower in _NOT_BEFORE_PAST:
                return None  # "slivered almonds", "were deserted", "the provided data"
            return base, "ed"
        if form == "s":
            return base, "s"
        if form == "" and (prev.lower in _PLURAL_PRONOUNS or _looks_plural(prev)):
            return base, ""
        return None

    def _lexicon_swaps(
        self,
        text: str,
        tokens: list[Token],
        forms: dict[str, tuple[str, str]],
        table: dict[str, list[str]],
    ) -> Iterator[str]:
        for i, tok in enumerate(tokens):
            if not tok.is_word:
                continue
            entry = forms.get(tok.lower)
            if entry is None:
                continue
            before = tokens[max(0, i - 2) : i]
            if forms is self.lex.antonym_forms and any(
                self.lex.is_negation(t.lower) for t in before
            ):
                continue  # "not unsafe" would be a double negation
            if any(t.is_number or t.lower in self.lex.number_words for t in before):
                continue  # "300 metres tall" is a measurement, not a quality
            word, form = entry
            for replacement in table.get(word, [])[:1]:
                if not self._same_part_of_speech(word, form, replacement, tokens, i):
                    continue  # "lasts" (a verb) never becomes "finals"
                new = self.lex.morph.inflect(replacement, form) if form else replacement
                if any(t.lower in (new.lower(), replacement) for t in tokens):
                    continue  # "the south tower ... the north tower": both sides would match
                yield _apply(text, [(tok.start, tok.end, _match_case(tok.text, new))])

    def _same_part_of_speech(
        self, word: str, form: str, replacement: str, tokens: list[Token], i: int
    ) -> bool:
        """Whether swapping ``word`` (as inflected by ``form`` at ``tokens[i]``) for
        ``replacement`` keeps the sentence's grammar: an inflected form ("lasts", "closes")
        is a verb, so the replacement must be a verb too ("lasts" never becomes "finals"); a
        bare word that could be a verb is read as one where a verb stands (after "to", a
        modal, "do", a negation or a plural pronoun) and then needs a verb, elsewhere a
        verb replacement only after a copula ("is closed" -> "is open"; "a work permit"
        never becomes "a work allow")."""
        morph = self.lex.morph
        word_verb = morph.is_known_verb_form(word)
        replacement_verb = morph.is_known_verb_form(replacement)
        if form:
            return replacement_verb
        prev = tokens[i - 1].lower if i > 0 else ""
        if not word_verb:
            # an adjective or noun: a verb-capable replacement only where an adjective stands
            return not replacement_verb or prev in _DETERMINERS or prev in _COPULAS
        analysis = morph.analyze(tokens[i].lower)
        inflected = analysis is not None and analysis[1] in ("s", "ed")
        verbal = (
            prev in _VERB_LEADS
            or self.lex.is_negation(prev)
            or (inflected and prev not in _DETERMINERS)
        )
        if replacement_verb:
            return verbal or prev in _COPULAS
        return not verbal

    # -- synonyms -------------------------------------------------------------------------------

    def _synonym_candidates(self, factoid: str) -> Iterator[str]:
        tokens = tokenize(factoid, "lexical")
        swaps = list(
            self._lexicon_swaps(factoid, tokens, self.lex.synonym_forms, self.lex.synonyms)
        )
        if swaps:
            yield swaps[0]
        fronted = self._front_phrase(factoid, tokens)
        if fronted:
            yield fronted
        yield from swaps[1:]
        contracted = self._toggle_contraction(factoid, tokens)
        if contracted:
            yield contracted
        numbers = self._toggle_numbers(factoid, tokens)
        if numbers:
            yield numbers

    def _front_phrase(self, text: str, tokens: list[Token]) -> str | None:
        """ "X is contraindicated in the third trimester." -> "In the third trimester, X is ..."."""
        words = [t for t in tokens if t.is_word or t.is_number]
        if len(words) < 5:
            return None
        end_tok = (
            tokens[-1] if tokens and not (tokens[-1].is_word or tokens[-1].is_number) else None
        )
        body_end = end_tok.start if end_tok is not None else len(text)
        for i in range(len(tokens) - 2, 1, -1):
            tok = tokens[i]
            if tok.lower not in _MOVABLE_PREPS:
                continue
            tail = tokens[i:]
            tail_words = [t for t in tail if t.is_word or t.is_number]
            if len(tail_words) > 9 or any(t.text in ",;:()" for t in tail):
                return None
            if any(t.lower in _CLAUSE_WORDS or self._looks_verbal(t.lower) for t in tail[1:]):
                return None
            if tokens[i - 1].lower == "than":
                return None  # "faster in May than in June": the phrase belongs to "than"
            head = text[: tok.start].strip()
            head_tokens = tokenize(head, "lexical")
            if len([t for t in head_tokens if t.is_word]) < 2:
                return None
            if not any(self._looks_verbal(t.lower) for t in head_tokens):
                return None
            phrase = text[tok.start : body_end].strip()
            return ensure_period(f"{capitalize_first(phrase)}, {_decap(head, self.lex)}")
        return None

    def _looks_verbal(self, word: str) -> bool:
        lex = self.lex
        if word in lex.auxiliaries or word in lex.contractions or word == "cannot":
            return True
        analysis = lex.morph.analyze(word)
        return analysis is not None and analysis[1] in ("s", "ed", "en")

    def _toggle_contraction(self, text: str, tokens: list[Token]) -> str | None:
        lex = self.lex
        reverse = self._contract
        for i, tok in enumerate(tokens):
            if tok.lower in lex.contractions:
                expanded = lex.contractions[tok.lower]
                return _apply(text, [(tok.start, tok.end, _match_case(tok.text, expanded))])
            if tok.lower == "cannot":
                return _apply(text, [(tok.start, tok.end, _match_case(tok.text, "can't"))])
            if i + 1 < len(tokens) and tokens[i + 1].lower == "not":
                pair = f"{tok.lower} not"
                if pair in reverse:
                    short = _match_case(tok.text, reverse[pair])
                    return _apply(text, [(tok.start, tokens[i + 1].end, short)])
        return None

    def _toggle_numbers(self, text: str, tokens: list[Token]) -> str | None:
        if language(current_language()) is not None:
            return None  # the number words are English ("20" is not "twenty" in Italian)
        edits: list[Edit] = []
        for tok in tokens:
            glued = tok.end < len(text) and (text[tok.end].isalnum() or text[tok.end] in "-:.,")
            glued = glued or (tok.start > 0 and text[tok.start - 1] in "$€£¥:-")
            if glued:
                continue  # "3rd", "2-year", "$3", "9:00": not a number word's place
            if tok.text in _DIGIT_WORDS:
                edits.append((tok.start, tok.end, _DIGIT_WORDS[tok.text]))
            elif tok.lower in _WORD_DIGITS:
                edits.append((tok.start, tok.end, _WORD_DIGITS[tok.lower]))
        return _apply(text, edits) if edits else None


def _unnegate(
    text: str, tokens: list[Token], table: Mapping[str, str], concord: frozenset[str] = frozenset()
) -> str | None:
    """``text`` without its negation, by a language module's table (every word of the first
    negation: French "ne ... pas" loses both, "ne ... ni A ni B" all three, "ne ... rien"
    becomes "... quelque chose"); ``None`` when it has none. After a ``concord`` word the
    negation's next word is rewritten too; a second elided negation is another negation."""
    edits: list[Edit] = []
    opened = False
    for i, tok in enumerate(tokens):
        low = tok.lower.replace("’", "'")
        elided = low[: low.find("'") + 1] if "'" in low[:-1] else ""
        if elided and elided in table:  # "n'est" -> "est"
            if opened:
                break
            edits.append((tok.start, tok.start + len(elided), table[elided]))
            opened = True
            continue
        if low not in table or _answers(tokens, i):
            continue
        repl = table[low]
        if repl:
            edits.append((tok.start, tok.end, _match_case(tok.text, repl)))
        else:
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            end = nxt.start if nxt is not None and not low.endswith("'") else tok.end
            edits.append((tok.start, end, ""))
        if low.endswith("'") or low in concord:
            opened = True
            continue
        break  # one negation: "ne" / "n'" goes with the "pas" after it, "ni" with "ni"
    if not edits:
        return None
    return capitalize_first(_apply(text, edits)) if edits[0][0] == 0 else _apply(text, edits)


#: What follows a "no" that opens a statement and only answers the question ("No, ...").
_ANSWER_BREAK = frozenset({",", "!", ";", "–", "—"})


def _answers(tokens: list[Token], i: int) -> bool:
    """Whether ``tokens[i]`` opens the text and is set off as a reply ("Nein, ...", "No, ...")
    rather than negating what follows: an antonym keeps it and negates the rest."""
    return i == 0 and len(tokens) > 1 and tokens[1].text in _ANSWER_BREAK


def _looks_plural(tok: Token) -> bool:
    low = tok.lower
    return (
        tok.is_word
        and len(low) > 3
        and low.endswith("s")
        and not low.endswith(("ss", "us", "is", "'s"))
    )
