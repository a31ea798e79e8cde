"""Defensive parsers for judge output. They never raise and never return NaN.

Each returns the parsed value and, when the text did not follow the requested format, a short
``failure`` string naming the fallback rule that was applied (recorded in ``JudgeCall``):

* :func:`parse_statements` (factoids, variants): a JSON array of strings, possibly inside a
  code fence or surrounded by prose; a truncated array (e.g. cut by ``max_tokens``) keeps its
  complete strings; otherwise one item per line with bullets, numbers and ``Label:`` prefixes
  stripped. Empty or non-string items are dropped.
* :func:`parse_verdict`: the first of ``NOT SURE`` / ``YES`` / ``NO`` as a word at the start
  (after an optional ``Answer:``), else anywhere; the rest of the first line is the reason.
  No label found -> ``NOT SURE`` with failure ``"no label; treated as NOT SURE"``.
"""

from __future__ import annotations

import json
import re

from guardrail.models import Label

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_ARRAY = re.compile(r"\[.*\]", re.DOTALL)
_FENCE_LINE = re.compile(r"^\s*```\w*\s*$")
_QUOTED = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_BULLET = re.compile(r"^\s*(?:[-*•·]+|\(?\d{1,3}[.):]|\(?[a-zA-Z][.)])\s+")
_PREFIX = re.compile(
    r"^\s*(?:good\s+)?(?:synonym|antonym|negation|paraphrase|fact|factoid|statement|output)"
    r"\s*\d*\s*:\s*",
    re.IGNORECASE,
)
_LABEL_AT_START = re.compile(
    r"^\W*(?:answer\s*[:\-]\s*)?\W*(NOT\s+SURE|NOT_SURE|UNSURE|YES|NO)\b[\s.:,\-–—)]*(.*)",
    re.IGNORECASE | re.DOTALL,
)
_LABEL_ANYWHERE = re.compile(r"\b(NOT\s+SURE|YES|NO)\b")


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


def _try_json(text: str) -> list[str] | None:
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for cand in candidates:
        for blob in (cand.strip(), *(m.group(0) for m in _ARRAY.finditer(cand))):
            try:
                value = json.loads(blob)
            except (json.JSONDecodeError, ValueError):
                continue
            if isinstance(value, list):
                return [str(v).strip() for v in value if isinstance(v, (str, int, float))]
    return None


def parse_statements(text: str) -> tuple[list[str], str | None]:
    """Parse a list of sentences. Returns ``(items, failure)``."""
    if not text or not text.strip():
        return [], None
    as_json = _try_json(text)
    if as_json is not None:
        items = [_clean_item(s) for s in as_json]
        return [s for s in items if s], None
    stripped = _FENCE.sub(r"\1", text)
    stripped = "\n".join(x for x in stripped.splitlines() if not _FENCE_LINE.match(x)).strip()
    if stripped.startswith("["):
        # A truncated or malformed array (e.g. cut by max_tokens): keep the complete strings.
        recovered = [_clean_item(_unquote(m)) for m in _QUOTED.findall(stripped)]
        items = [s for s in recovered if s]
        return items, f"malformed JSON array; recovered {len(items)} complete item(s)"
    lines = [_clean_item(line) for line in stripped.splitlines()]
    items = [
        line
        for line in lines
        if line and line not in {"[", "]", "```"} and any(c.isalnum() for c in line)
    ]
    return items, None


def parse_verdict(text: str) -> tuple[Label, str, str | None]:
    """Parse ``YES|NO|NOT SURE`` and a one-line reason. Returns ``(label, reason, failure)``."""
    body = (text or "").strip()
    match = _LABEL_AT_START.match(body)
    failure: str | None = None
    if match:
        raw, rest = match.group(1), match.group(2)
    else:
        anywhere = _LABEL_ANYWHERE.search(body.upper())
        if anywhere is None:
            return (
                Label.NOT_SURE,
                body.splitlines()[0][:300] if body else "",
                ("no label; treated as NOT SURE"),
            )
        raw, rest = anywhere.group(1), body[anywhere.end() :]
        failure = "label not at start; took the first label found"
    norm = re.sub(r"[\s_]+", " ", raw.upper())
    label = {"YES": Label.YES, "NO": Label.NO}.get(norm, Label.NOT_SURE)
    lines = rest.strip().lstrip(".:,-–—*_ ").splitlines()
    reason = lines[0].strip() if lines else ""
    return label, reason[:300], failure


# --- the cheaper protocols' batch replies --------------------------------------------------------

_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_NUMBERED = re.compile(r"^\s*[\[(]?(\d{1,4})[\])]?\s*[.):\-]?\s+(.*\S)\s*$")


def _strings(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    return [_clean_item(v) for v in value if isinstance(v, str) and v.strip()]


def parse_mutations(text: str, n: int) -> tuple[list[tuple[list[str], list[str]]], str | None]:
    """Parse a ``mutate_all`` reply: ``{"1": {"synonyms": [...], "antonyms": [...]}, ...}``.

    Returns one ``(synonyms, antonyms)`` pair per factoid (empty lists where the reply has
    nothing usable for it) and a failure note naming the factoids that were missing, or
    ``None``. Never raises.
    """
    body = (text or "").strip()
    fenced = _FENCE.search(body)
    if fenced:
        body = fenced.group(1).strip()
    data: object = None
    match = _OBJECT.search(body)
    if match:
        try:
            data = json.loads(match.group(0))
        except ValueError:
            data = None
    if not isinstance(data, dict):
        return [([], []) for _ in range(n)], "no JSON object of mutations; all filled"
    out: list[tuple[list[str], list[str]]] = []
    missing: list[int] = []
    for i in range(1, n + 1):
        entry = data.get(str(i))
        if not isinstance(entry, dict):
            missing.append(i)
            out.append(([], []))
            continue
        out.append((_strings(entry.get("synonyms")), _strings(entry.get("antonyms"))))
    failure = f"no mutations for factoid(s) {', '.join(map(str, missing))}" if missing else None
    return out, failure


def parse_numbered_verdicts(text: str, n: int) -> tuple[list[tuple[Label, str, bool]], str | None]:
    """Parse a ``verify_batch`` reply: one ``<n>. YES|NO|NOT SURE. reason`` line per item.

    Each item is parsed on its own (:func:`parse_verdict`): an unparsable or missing item is
    NOT SURE with ``parsed=False``, never a failed call. Returns ``(label, reason, parsed)`` per
    item and a failure note naming the items that needed a fallback, or ``None``.
    """
    found: dict[int, str] = {}
    for line in (text or "").splitlines():
        match = _NUMBERED.match(line)
        if match:
            number = int(match.group(1))
            if 1 <= number <= n and number not in found:
                found[number] = match.group(2)
    items: list[tuple[Label, str, bool]] = []
    fallbacks: list[int] = []
    for i in range(1, n + 1):
        if i not in found:
            items.append((Label.NOT_SURE, "", False))
            fallbacks.append(i)
            continue
        label, reason, failure = parse_verdict(found[i])
        items.append((label, reason, failure is None))
        if failure is not None:
            fallbacks.append(i)
    if not fallbacks:
        return items, None
    return items, f"item(s) {', '.join(map(str, fallbacks))} unparsed or missing; NOT SURE"
