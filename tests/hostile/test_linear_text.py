"""Every parser and splitter that reads request or reply text runs in linear time: each
pathological form, at 1 MB, finishes well inside a generous bound (a forked child is killed
past it). The forms come in two halves: the development half (the forms reported against
the previous version, used while fixing) and the held-out test half (written afterwards)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from guardrail.proxy.request import read_chat_request
from guardrail.sanitize import clean_text
from guardrail.scoring.parsing import (
    parse_mutations,
    parse_numbered_verdicts,
    parse_statements,
    parse_verdict,
)
from guardrail.scoring.templates import defuse, has_marker, strip_echoed_fence
from guardrail.streaming.sentences import SentenceSplitter
from guardrail.text.sentences import split_sentences
from tests.hostile._bounded import SIZE, seconds_within


def _system(text: str) -> Callable[[], object]:
    body = {"messages": [{"role": "system", "content": text}, {"role": "user", "content": "q?"}]}
    return lambda: read_chat_request(body)


def _streamed(text: str, chunk: int = 20) -> Callable[[], object]:
    def run() -> None:
        splitter = SentenceSplitter()
        for i in range(0, len(text), chunk):
            splitter.feed(text[i : i + chunk])
        splitter.flush()

    return run


def _times(piece: str) -> str:
    return piece * (SIZE // len(piece))


DEVELOPMENT: dict[str, Callable[[], object]] = {
    "<context> repeated without a closing tag": _system(_times("<context>")),
    "verdict of dashes": lambda: parse_verdict("-" * SIZE),
    "hold-mode stream without punctuation, 20-char chunks": _streamed(_times("word ")),
}

HELD_OUT: dict[str, Callable[[], object]] = {
    "<context> then a broken closing tag, repeated": _system(_times("<context>x</contex")),
    "<context> then a run of '<'": _system("<context>" + "<" * SIZE),
    "verdict: 'Answer:' then separators": lambda: parse_verdict("Answer:" + _times(" -")),
    "verdict of open braces": lambda: parse_verdict("{" * SIZE),
    "verdict: YES then separators without NO": lambda: parse_verdict("YES" + _times(" ,")),
    "statements of open braces": lambda: parse_statements("{" * SIZE),
    "statements of open brackets": lambda: parse_statements("x" + "[" * SIZE),
    "statements of unclosed code fences": lambda: parse_statements(_times("```")),
    "statements of quotes": lambda: parse_statements("[" + '"\\' * (SIZE // 2)),
    "mutations of open braces": lambda: parse_mutations("{" * SIZE, 3),
    "numbered verdicts: a number then spaces": lambda: parse_numbered_verdicts("1" + " " * SIZE, 3),
    "numbered verdicts: '1.' then tabs": lambda: parse_numbered_verdicts("1." + "\t" * SIZE, 2),
    "hold-mode stream of dots": _streamed("." * SIZE),
    "hold-mode stream of 'e.g.' without a space": _streamed(_times("e.g.")),
    "hold-mode stream, one character a chunk": _streamed(_times("ab ")[: SIZE // 4], chunk=1),
    "plain sentences of dots": lambda: split_sentences("." * SIZE, rules="plain"),
    "prose sentences of dots": lambda: split_sentences("." * SIZE, rules="prose"),
    "prose: one long word then a period": lambda: split_sentences("a" * SIZE + ".", rules="prose"),
    "prose: many short sentences": lambda: split_sentences(_times("X. "), rules="prose"),
    "prose: abbreviations only": lambda: split_sentences(_times("Dr. "), rules="prose"),
    "passages of dots": lambda: split_sentences("." * SIZE, rules="passages"),
    "passages of numbered lines": lambda: split_sentences(_times("\n1. a"), rules="passages"),
    "passages of glued sentences": lambda: split_sentences(_times("ab.Cd"), rules="passages"),
    "fence defuser: marker starts without DATA": lambda: defuse(_times("[END DAT")),
    "fence detector: marker starts": lambda: has_marker(_times("[ BEGIN DAT ")),
    "echoed fence then closing lines": lambda: strip_echoed_fence(
        "[BEGIN DATA x]\n" + _times("[END DATA")
    ),
    "lone surrogates": lambda: clean_text("\ud800" * SIZE),
}


@pytest.mark.parametrize("name", sorted(DEVELOPMENT))
def test_development_form_is_linear(name: str) -> None:
    """A form from the report finishes inside the bound at 1 MB."""
    seconds_within(DEVELOPMENT[name])


@pytest.mark.parametrize("name", sorted(HELD_OUT))
def test_held_out_form_is_linear(name: str) -> None:
    """A held-out pathological form finishes inside the bound at 1 MB."""
    seconds_within(HELD_OUT[name])
