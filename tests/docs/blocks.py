"""Read the fenced code blocks of the documentation, with the marks that say how each is tested.

Every fenced block of ``README.md`` and ``docs/**/*.md`` is one of:

* **run**: ``python`` blocks run as a script, ``bash`` blocks with ``bash -e -o pipefail``,
  both in a scratch folder that holds links to the repository's ``policies/`` and
  ``examples/`` (so ``guardrail eval examples/data/sample.jsonl`` works as on a fresh clone),
  with ``guardrail`` and ``python`` on ``PATH``; the blocks of one page run in order in one
  folder, so a later block sees the files an earlier one wrote. A non-zero exit fails.
* **parsed**: ``yaml`` and ``json`` blocks must parse (a YAML policy must also load as one).
* **output**: a block right after ``<!-- docs-test: output -->`` is the standard output of the
  last block that ran before it, compared line by line (trailing spaces ignored); ``...``
  stands for any text, as in doctest.
* **skipped**: a block right after ``<!-- docs-test: skip REASON -->`` is not run; the reason
  (it needs an API key, starts a server that runs until stopped, installs packages ...) is
  required.
* **run when available**: a block right after ``<!-- docs-test: needs PART -->`` (``postgres``,
  ``ray``, ``clingo``) runs like any other where that part is installed; elsewhere the rest of
  the page is skipped, except under ``CI=true``, where it fails (CI installs every part).

Any other block (``text`` or no language, unmarked) fails ``test_every_block_is_tested``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = {"python", "bash"}
PARSE = {"yaml", "json"}
_MARK = re.compile(r"<!--\s*docs-test:\s*(skip|output|needs)\b\s*(.*?)\s*-->")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)(.*)$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    mark: str  # "" | "skip" | "output" | "needs"
    reason: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def kind(self) -> str:
        """run | parse | output | skip | unmarked."""
        if self.mark == "needs":
            return "run" if self.lang in RUN else "unmarked"
        if self.mark:
            return self.mark
        if self.lang in RUN:
            return "run"
        if self.lang in PARSE:
            return "parse"
        return "unmarked"


def pages() -> list[Path]:
    """README.md and every Markdown page of the site (the build hook is not a page)."""
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.parts)
    return [ROOT / "README.md", *docs]


def blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence, lang = opening.group(1), opening.group(2), opening.group(3).lower()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            line = lines[j]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            j += 1
        prev = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        mark = _MARK.search(prev)
        found.append(
            Block(
                page=page,
                line=i + 1,
                lang=lang,
                code="\n".join(body) + "\n",
                mark=mark.group(1) if mark else "",
                reason=mark.group(2) if mark else "",
            )
        )
        i = j + 1
    return found


def output_matches(expected: str, actual: str) -> bool:
    """``actual`` equals ``expected`` up to trailing spaces, with ``...`` matching any text."""

    def norm(text: str) -> str:
        return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()).strip()

    pattern = ".*?".join(re.escape(part) for part in norm(expected).split("..."))
    return re.fullmatch(pattern, norm(actual), flags=re.DOTALL) is not None
