"""Defensive parsers for judge output. They never raise and never return NaN.

Each returns the parsed value and, when the text did not follow the requested format, a
:class:`~guardrail.scoring.failures.ParseFailure`: a short note naming the fallback rule that
was applied, its causes (``empty``, ``unparsable``, ``placeholder``, ...) and whether nothing
in the reply could be used (all recorded in ``JudgeCall``):

* :func:`parse_statements` (factoids, variants): a JSON array of strings (or an object holding
  one, as structured output returns it), possibly inside a code fence or surrounded by prose;
  a truncated array (e.g. cut by ``max_tokens``) keeps its complete strings; otherwise one item
  per line with bullets, numbers and ``Label:`` prefixes stripped.
* :func:`parse_verdict`: a JSON ``{"verdict": ..., "reason": ...}`` object, else the first of
  ``NOT SURE`` / ``YES`` / ``NO`` as a word at the start (after an optional ``Answer:``), else
  anywhere; the rest of the first line is the reason. No label found -> ``NOT SURE`` with
  failure ``"no label; treated as NOT SURE"``.

A reply that carries no signal is a failure, never an empty success: an empty reply, JSON items
that are not strings, the prompt's own placeholders (``"..."``, ``"<statement>"``, ``YES|NO|NOT
SURE``) and a leading echo of the prompt's data fence are all recorded, so the scorer can fall
back (the answer's sentences as factoids) or declare the judge unusable.

Every parser is linear in the reply's length (no pattern here can backtrack over a run of the
reply more than once: JSON objects, arrays and code fences are found with string searches,
and the label and numbered-line patterns use possessive quantifiers), and a reply longer than
:data:`MAX_REPLY_CHARS` is cut to that length before parsing, with cause ``truncated`` noted:
a server that ignores ``max_tokens`` cannot make one check parse megabytes.
"""

from __future__ import annotations

import json
import re

from guardrail.models import Label, ParseCause
from guardrail.scoring.failures import ParseFailure, failure, join
from guardrail.scoring.templates import strip_echoed_fence

#: Replies are cut to this many characters before parsing (about 16,000 tokens: far above the
#: ``max_tokens`` any scorer asks for, far below what makes a parse slow).
MAX_REPLY_CHARS = 64_000
_FENCE_MARK = "```"
_FENCE_LANG = re.compile(r"(?:json|JSON)?\s*+")
_FENCE_LINE = re.compile(r"^\s*```\w*\s*$")
#: A quoted JSON string, or an unterminated one (no group 2): consuming the unterminated
#: rest of the line keeps ``finditer`` from rescanning it from every later quote.
_QUOTED = re.compile(r'"((?:[^"\\\n]|\\.)*+)(")?')
_BULLET = re.compile(r"^\s*(?:[-*•·]+|\(?\d{1,3}[.):]|\(?[a-zA-Z][.)])\s+")
_PREFIX = re.compile(
    r"^\s*(?:good\s+)?(?:synonym|antonym|negation|paraphrase|fact|factoid|statement|output)"
    r"\s*\d*\s*:\s*",
    re.IGNORECASE,
)
#: Possessive runs: two ``\W*`` in a row would try every split of a run of punctuation.
_LABEL_AT_START = re.compile(
    r"^\W*+(?:answer\s*+[:\-]\s*+)?\W*+(NOT\s++SURE|NOT_SURE|UNSURE|YES|NO)\b[\s.:,\-–—)]*+(.*)",
    re.IGNORECASE | re.DOTALL,
)
_LABEL_ANYWHERE = re.compile(r"\b(NOT\s+SURE|YES|NO)\b")


_PLACEHOLDER = re.compile(
    r"^[\s<\[{(\"'`]*(?:\.\.\.|…|_+|"
    r"(?:(?:a|an|the|first|second|third|another|good|your)\s+)*"
    r"(?:statement|factoid|fact|sentence|synonym|antonym|variant|paraphrase|negation|text|"
    r"string|item|claim|reason|explanation|answer)s?(?:\s*[#\d]+)?(?:\s*(?:\.\.\.|…))?)"
    r"[\s>\]})\"'`.:,]*$",
    re.IGNORECASE,
)


def _fenced_bodies(text: str) -> list[str]:
    """The bodies of the complete code fences in ``text`` (a JSON reply inside one), in order."""
    parts = text.split(_FENCE_MARK)
    return [_FENCE_LANG.sub("", parts[i], count=1) for i in range(1, len(parts) - 1, 2)]


def _unfenced(text: str) -> str:
    """``text`` with every complete code fence replaced by its body (an unpaired last fence
    mark stays)."""
    parts = text.split(_FENCE_MARK)
    out = [parts[0]]
    for i in range(1, len(parts) - 1, 2):
        out.extend((_FENCE_LANG.sub("", parts[i], count=1), parts[i + 1]))
    if len(parts) % 2 == 0:
        out.extend((_FENCE_MARK, parts[-1]))
    return "".join(out)


def _outermost(text: str, open_: str, close: str) -> str | None:
    """From the first ``open_`` to the last ``close`` after it, or ``None``."""
    start = text.find(open_)
    end = text.rfind(close)
    return text[start : end + 1] if 0 <= start < end else None


def _bounded(text: str) -> tuple[str, ParseFailure | None]:
    """``text`` cut to :data:`MAX_REPLY_CHARS`, and a note when it was longer."""
    if len(text) <= MAX_REPLY_CHARS:
        return text, None
    note = f"reply of {len(text)} characters; parsed the first {MAX_REPLY_CHARS}"
    return text[:MAX_REPLY_CHARS], failure("truncated", note)


def is_placeholder(item: str) -> bool:
    """True for template placeholders a model copies instead of answering (``"..."``,
    ``<statement>``, ``synonym 1``, ``[factoid]``) and for items with no letter or digit."""
    return not any(c.isalnum() for c in item) or bool(_PLACEHOLDER.match(item))


def _unquote(body: str) -> str:
    try:
        return str(json.loads(f'"{body}"'))
    except (json.JSONDecodeError, ValueError):
        return body


def _clean_item(item: str) -> str:
    item = item.strip().strip('",').strip()
    item = _BULLET.sub("", item)
    item = _PREFIX.sub("", item)
    return item.strip().strip('"').strip()


def _json_list(value: object) -> list[object] | None:
    """``value`` if it is a list; the first list in an object (``{"factoids": [...]}``, as a
    structured-output reply holds it); else ``None``."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for inner in value.values():
            if isinstance(inner, list):
                return inner
    return None


def _try_json(text: str) -> tuple[list[str], ParseFailure | None] | None:
    """The strings of the first JSON list found, and a note when some items were not strings."""
    candidates = [*_fenced_bodies(text), text]
    for cand in candidates:
        blobs = (cand.strip(), _outermost(cand, "{", "}"), _outermost(cand, "[", "]"))
        for blob in blobs:
            if blob is None:
                continue
            try:
                value = _json_list(json.loads(blob))
            except (json.JSONDecodeError, ValueError, RecursionError):
                continue
            if value is None:
                continue
            items = [str(v).strip() for v in value if isinstance(v, (str, int, float))]
            odd = sum(1 for v in value if not isinstance(v, (str, int, float)))
            note = f"{odd} JSON item(s) not strings; dropped"
            return items, failure("non_string_items", note) if odd else None
    return None


def _is_json_object(text: str) -> bool:
    if not text.startswith("{"):
        return False
    try:
        return isinstance(json.loads(text), dict)
    except (json.JSONDecodeError, ValueError, RecursionError):
        return False


def _drop_placeholders(
    items: list[str], found: ParseFailure | None
) -> tuple[list[str], ParseFailure | None]:
    """``items`` without template placeholders; the reply is unusable when only they were
    there."""
    kept = [s for s in items if s and not is_placeholder(s)]
    dropped = sum(1 for s in items if s) - len(kept)
    if dropped:
        note = f"{dropped} placeholder item(s) dropped"
        found = join(found, failure("placeholder", note, unusable=not kept))
    return kept, found


_ECHOED_FENCE = "reply began with an echo of the prompt's data fence"


def parse_statements(text: str) -> tuple[list[str], ParseFailure | None]:
    """Parse a list of sentences. Returns ``(items, failure)``.

    ``[]`` is a valid answer (nothing to list); an empty reply is not (cause ``empty``).
    """
    if not text or not text.strip():
        return [], failure("empty", "empty reply", unusable=True)
    text, cut = _bounded(text)
    text, echoed = strip_echoed_fence(text)
    echo = join(cut, failure("echoed_fence", _ECHOED_FENCE) if echoed else None)
    if not text.strip():
        return [], join(echo, failure("empty", "nothing after it", unusable=True))
    as_json = _try_json(text)
    if as_json is not None:
        raw, odd = as_json
        items, found = _drop_placeholders([_clean_item(s) for s in raw], join(echo, odd))
        if not items and odd is not None and found is not None and not found.unusable:
            found = found.as_unusable("no usable item")
        return items, found
    stripped = _unfenced(text)
    stripped = "\n".join(x for x in stripped.splitlines() if not _FENCE_LINE.match(x)).strip()
    if _is_json_object(stripped):
        note = "a JSON object without a list of items"
        return [], join(echo, failure("unparsable", note, unusable=True))
    if stripped.startswith("["):
        # A truncated or malformed array (e.g. cut by max_tokens): keep the complete strings.
        recovered = [
            _clean_item(_unquote(m.group(1)))
            for m in _QUOTED.finditer(stripped)
            if m.group(2) is not None
        ]
        items = [s for s in recovered if s]
        note = f"malformed JSON array; recovered {len(items)} complete item(s)"
        return _drop_placeholders(items, join(echo, failure("truncated", note, unusable=not items)))
    lines = [_clean_item(line) for line in stripped.splitlines()]
    items = [line for line in lines if line and line not in {"[", "]", "```"}]
    items, found = _drop_placeholders(items, echo)
    if not items and (found is None or not found.unusable):
        found = join(found, failure("unparsable", "no usable item", unusable=True))
    return items, found


_ALL_LABELS = re.compile(r"YES\W+NO\W+(?:OR\W+)?NOT\s+SURE", re.IGNORECASE)
_LABEL_WORDS = {"YES": Label.YES, "NO": Label.NO, "NOT SURE": Label.NOT_SURE}


def _json_verdict(body: str) -> tuple[Label, str] | None:
    """``{"verdict": "YES", "reason": "..."}`` (any key holding a label), as structured
    output returns it; ``None`` when ``body`` holds no such object."""
    blob = _outermost(body, "{", "}")
    if blob is None:
        return None
    try:
        value = json.loads(blob)
    except (json.JSONDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    for key in ("verdict", "label", "answer"):
        raw = value.get(key)
        if isinstance(raw, str):
            label = _LABEL_WORDS.get(re.sub(r"[\s_]+", " ", raw.strip().upper()))
            if label is not None:
                reason = value.get("reason")
                return label, (reason.strip()[:300] if isinstance(reason, str) else "")
    return None


def parse_verdict(text: str) -> tuple[Label, str, ParseFailure | None]:
    """Parse ``YES|NO|NOT SURE`` and a one-line reason. Returns ``(label, reason, failure)``."""
    body = (text or "").strip()
    if not body:
        empty = failure("empty", "empty reply; treated as NOT SURE", unusable=True)
        return Label.NOT_SURE, "", empty
    body, cut = _bounded(body)
    body, echoed = strip_echoed_fence(body)
    body = body.strip()
    echo = join(cut, failure("echoed_fence", _ECHOED_FENCE) if echoed else None)
    if not body:
        return Label.NOT_SURE, "", join(echo, failure("empty", "nothing after it", unusable=True))
    if body.startswith("{"):
        as_json = _json_verdict(body)
        if as_json is not None:
            return as_json[0], as_json[1], echo
    first = body.splitlines()[0]
    if _ALL_LABELS.search(first):
        note = "reply repeats the answer format (YES, NO, NOT SURE); treated as NOT SURE"
        return Label.NOT_SURE, first[:300], join(echo, failure("placeholder", note, unusable=True))
    label, reason, found = _text_verdict(body)
    return label, reason, join(echo, found)


def _text_verdict(body: str) -> tuple[Label, str, ParseFailure | None]:
    match = _LABEL_AT_START.match(body)
    found: ParseFailure | None = None
    if match:
        raw, rest = match.group(1), match.group(2)
    else:
        anywhere = _LABEL_ANYWHERE.search(body.upper())
        if anywhere is None:
            return (
                Label.NOT_SURE,
                body.splitlines()[0][:300] if body else "",
                failure("unparsable", "no label; treated as NOT SURE", unusable=True),
            )
        raw, rest = anywhere.group(1), body[anywhere.end() :]
        found = failure("label_not_at_start", "label not at start; took the first label found")
    norm = re.sub(r"[\s_]+", " ", raw.upper())
    label = {"YES": Label.YES, "NO": Label.NO}.get(norm, Label.NOT_SURE)
    lines = rest.strip().lstrip(".:,-–—*_ ").splitlines()
    reason = lines[0].strip() if lines else ""
    return label, reason[:300], found


# --- the cheaper protocols' batch replies --------------------------------------------------------

#: A numbered line's head: ``1.``, ``(2)``, ``[3]:``; what follows is read by :func:`_numbered`.
_NUMBER_HEAD = re.compile(r"\s*+[\[(]?(\d{1,4})[\])]?")


def _numbered(line: str) -> tuple[int, str] | None:
    """``(number, text)`` of a ``<n>. text`` line: the number, optional punctuation, white
    space, then some text. String operations, so a line of spaces costs one pass."""
    head = _NUMBER_HEAD.match(line)
    if head is None:
        return None
    rest = line[head.end() :]
    after_space = rest.lstrip()
    text = ""
    if after_space[:1] in (".", ")", ":", "-") and after_space[1:2].isspace():
        text = after_space[1:].strip()
    if not text and len(after_space) < len(rest):
        text = after_space.strip()
    return (int(head.group(1)), text) if text else None


def _strings(value: object) -> tuple[list[str], int]:
    """The usable strings of a JSON list, and how many placeholders were dropped."""
    if not isinstance(value, list):
        return [], 0
    items = [_clean_item(v) for v in value if isinstance(v, str) and v.strip()]
    kept = [s for s in items if s and not is_placeholder(s)]
    return kept, len(items) - len(kept)


def parse_mutations(
    text: str, n: int
) -> tuple[list[tuple[list[str], list[str]]], ParseFailure | None]:
    """Parse a ``mutate_all`` reply: ``{"1": {"synonyms": [...], "antonyms": [...]}, ...}``.

    Returns one ``(synonyms, antonyms)`` pair per factoid (empty lists where the reply has
    nothing usable for it) and a failure naming the factoids that were missing, or ``None``.
    The reply is unusable when no factoid got a usable variant. Never raises.
    """
    if not (text or "").strip():
        return [([], []) for _ in range(n)], failure("empty", "empty reply", unusable=True)
    body, cut = _bounded(text.strip())
    body, echoed = strip_echoed_fence(body)
    echo = join(cut, failure("echoed_fence", _ECHOED_FENCE) if echoed else None)
    fenced = _fenced_bodies(body)
    if fenced:
        body = fenced[0].strip()
    data: object = None
    blob = _outermost(body, "{", "}")
    if blob is not None:
        try:
            data = json.loads(blob)
        except (ValueError, RecursionError):
            data = None
    if isinstance(data, dict) and isinstance(data.get("factoids"), list):
        # The structured-output shape: {"factoids": [{"synonyms": [...], ...}, ...]}.
        data = {str(i): entry for i, entry in enumerate(data["factoids"], start=1)}
    if not isinstance(data, dict):
        note = "no JSON object of mutations; all filled"
        return [([], []) for _ in range(n)], join(echo, failure("unparsable", note, unusable=True))
    out: list[tuple[list[str], list[str]]] = []
    missing: list[int] = []
    placeholders = 0
    for i in range(1, n + 1):
        entry = data.get(str(i))
        if not isinstance(entry, dict):
            missing.append(i)
            out.append(([], []))
            continue
        synonyms, syn_dropped = _strings(entry.get("synonyms"))
        antonyms, ant_dropped = _strings(entry.get("antonyms"))
        placeholders += syn_dropped + ant_dropped
        out.append((synonyms, antonyms))
    unusable = not any(synonyms or antonyms for synonyms, antonyms in out)
    gaps = failure("missing_items", f"no mutations for factoid(s) {', '.join(map(str, missing))}")
    dropped = failure("placeholder", f"{placeholders} placeholder variant(s) dropped")
    found = join(echo, gaps if missing else None, dropped if placeholders else None)
    if unusable:
        found = (found or failure("too_few_items", "no usable variant")).as_unusable()
    return out, found


def parse_numbered_verdicts(
    text: str, n: int
) -> tuple[list[tuple[Label, str, bool]], ParseFailure | None]:
    """Parse a ``verify_batch`` reply: one ``<n>. YES|NO|NOT SURE. reason`` line per item.

    Each item is parsed on its own (:func:`parse_verdict`): an unparsable or missing item is
    NOT SURE with ``parsed=False``, never a failed call. Returns ``(label, reason, parsed)`` per
    item and a failure note naming the items that needed a fallback, or ``None``.
    """
    found: dict[int, str] = {}
    body, cut = _bounded(text or "")
    body, _echoed = strip_echoed_fence(body)
    structured = _json_verdict_list(body)
    if structured is not None:
        for number, verdict in enumerate(structured[:n], start=1):
            found[number] = verdict
    for line in body.splitlines() if structured is None else []:
        numbered = _numbered(line)
        if numbered is not None:
            number, said = numbered
            if 1 <= number <= n and number not in found:
                found[number] = said
    items: list[tuple[Label, str, bool]] = []
    fallbacks: list[int] = []
    if not (text or "").strip():
        empty = failure("empty", "empty reply; every item NOT SURE", unusable=True)
        return [(Label.NOT_SURE, "", False)] * n, empty
    causes: list[ParseFailure] = []
    for i in range(1, n + 1):
        if i not in found:
            items.append((Label.NOT_SURE, "", False))
            fallbacks.append(i)
            continue
        label, reason, item_failure = parse_verdict(found[i])
        items.append((label, reason, item_failure is None))
        if item_failure is not None:
            fallbacks.append(i)
            causes.append(item_failure)
    if not fallbacks:
        return items, cut
    note = f"item(s) {', '.join(map(str, fallbacks))} unparsed or missing; NOT SURE"
    cause: ParseCause = "missing_items" if found else "unparsable"
    signal = any(parsed or label is not Label.NOT_SURE for label, _, parsed in items)
    summary = failure(cause, note, unusable=not signal)
    if len(fallbacks) > len(causes):  # some items were missing, not just garbled
        missed = ParseFailure(summary.note, _causes(summary, *causes), summary.unusable)
        return items, join(cut, missed)
    return items, join(cut, ParseFailure(note, _causes(*causes), summary.unusable))


def _causes(*parts: ParseFailure) -> tuple[ParseCause, ...]:
    return tuple(dict.fromkeys(c for p in parts for c in p.causes))


def _json_verdict_list(body: str) -> list[str] | None:
    """The verdicts of a structured ``{"verdicts": [{"verdict": ..., "reason": ...}]}``
    reply, each re-serialised for :func:`parse_verdict`; ``None`` for any other text."""
    stripped = body.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except (json.JSONDecodeError, ValueError, RecursionError):
        return None
    items = _json_list(value)
    if items is None:
        return None
    return [json.dumps(v) if isinstance(v, dict) else str(v) for v in items]
