"""Every documentation page can be found by following links from README.md or the docs home,
and the README stays a front door (short, linking every capability it lists)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.docs.blocks import ROOT, pages

_LINK = re.compile(r"\]\(((?!https?://|mailto:)[^)#\s]+\.md)(?:#[^)]*)?\)")
START = (ROOT / "README.md", ROOT / "docs" / "index.md")


def links(page: Path) -> set[Path]:
    """The Markdown pages ``page`` links to by relative path (outside code blocks too)."""
    text = page.read_text(encoding="utf-8")
    return {(page.parent / target).resolve() for target in _LINK.findall(text)}


def reachable(start: tuple[Path, ...] = START) -> set[Path]:
    seen = {p.resolve() for p in start}
    todo = list(seen)
    while todo:
        for target in links(todo.pop()):
            if target not in seen and target.is_file():
                seen.add(target)
                todo.append(target)
    return seen


def test_every_docs_page_is_reachable_from_the_readme_or_the_home():
    """A page nobody links to is a page nobody reads: each one is reached by links."""
    found = reachable()
    lost = [p.relative_to(ROOT).as_posix() for p in pages() if p.resolve() not in found]
    assert not lost, f"no chain of links from README.md or docs/index.md reaches: {lost}"


def test_the_walk_follows_links_only():
    """The walk itself: a page linked from nowhere is not found (a made-up start proves it)."""
    assert (ROOT / "docs" / "index.md").resolve() not in reachable((ROOT / "docs/release.md",))
    assert (ROOT / "docs" / "proxy.md").resolve() in reachable((ROOT / "README.md",))


def test_the_readme_reaches_the_docs_home():
    """The README links the site's home page, so one start is enough for a reader."""
    assert (ROOT / "docs" / "index.md").resolve() in reachable((ROOT / "README.md",))


def test_the_readme_links_each_capability_it_lists():
    """Every row of 'What it does' links to the page that explains it (Topics excepted: the
    policies page covers it), and the README stays under 200 lines."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## What it does", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| **")]
    names = [re.match(r"\| \*\*(.+?)\*\*", row).group(1) for row in rows]  # type: ignore[union-attr]
    for wanted in ("Proxy", "Streaming", "Adapters", "Telemetry", "Extending", "Testing"):
        assert wanted in names
    pairs = zip(names, rows, strict=True)
    unlinked = [n for n, row in pairs if "](docs/" not in row and n != "Topics"]
    assert not unlinked, unlinked
    assert len(text.splitlines()) <= 200
