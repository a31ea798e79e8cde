"""The import graph of ``guardrail/``: no cycles, and the runtime never imports the training code.

Every module is parsed with :mod:`ast` (nothing is imported). An edge ``A -> B`` means running
``A`` can run ``B``'s module code:

* ``import a.b.c`` is an edge to ``a.b.c`` and to the packages ``a`` and ``a.b``, whose
  ``__init__`` runs first; the same for the package of ``from a.b import c`` (plus ``a.b.c`` when
  ``c`` is a submodule). ``importlib.import_module("a.b")`` with a literal name counts too.
* An importer's own enclosing packages are left out: they are already initialised (or being
  initialised) when its code runs, so importing one again runs nothing. ``from pkg import name``
  of a *name* defined in an enclosing ``pkg/__init__`` still counts, since it needs that code.
* Imports under ``if TYPE_CHECKING:`` never run; they are ignored by the import-time checks
  and counted by the strict ones (a type-only import is still a dependency: two modules whose
  types need each other are one module in two files).

Imports inside functions count as well (``deferred``): a cycle closed by a function-level
import still means two modules that need each other, only hidden; so the strict reading of
"no import cycles" is checked along with the import-time one. Cycles are looked for between
modules and between the package's parts (``guardrail.scoring``, ``guardrail.judges`` with its
``local`` subpackage, ``guardrail.models``, ...), where two were once found:
``scoring -> localize -> judges.local -> scoring`` (through the training code, now in
``guardrail.training``) and ``localize -> scoring -> localize`` (tokens, now in
``guardrail.text``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "guardrail"
TRAINING = "guardrail.training"


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    deferred: bool  # inside a function: runs when the function is called, not at import time
    statement: str  # the module the import statement names

    def __str__(self) -> str:
        where = "in a function" if self.deferred else "at import"
        return f"{self.source} -> {self.target} (line {self.line}, {where})"


def module_files() -> dict[str, Path]:
    """Module name -> file, for every module of the package (packages by their __init__)."""
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def enclosing(module: str) -> list[str]:
    """``a.b.c`` -> ``["a", "a.b"]``."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def is_type_checking(test: ast.expr) -> bool:
    return ast.unparse(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


class _Imports(ast.NodeVisitor):
    """Collects (imported module, names or None, line, deferred) from one module's tree;
    with ``types``, the imports under ``if TYPE_CHECKING:`` too (counted as deferred)."""

    def __init__(self, module: str, is_package: bool, *, types: bool = False) -> None:
        self.package = module if is_package else module.rpartition(".")[0]
        self.found: list[tuple[str, tuple[str, ...] | None, int, bool]] = []
        self.depth = 0  # function nesting
        self.types = types

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_If(self, node: ast.If) -> None:
        if is_type_checking(node.test):
            if self.types:
                self.depth += 1
                for stmt in node.body:
                    self.visit(stmt)
                self.depth -= 1
            for stmt in node.orelse:
                self.visit(stmt)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.found.append((alias.name, None, node.lineno, self.depth > 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            anchor = self.package.split(".")
            anchor = anchor[: len(anchor) - node.level + 1]
            base = ".".join([*anchor, *([base] if base else [])])
        names = tuple(alias.name for alias in node.names)
        self.found.append((base, names, node.lineno, self.depth > 0))

    def visit_Call(self, node: ast.Call) -> None:
        if (
            ast.unparse(node.func) in ("importlib.import_module", "import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            self.found.append((node.args[0].value, None, node.lineno, self.depth > 0))
        self.generic_visit(node)


def edges_of(
    module: str, path: Path, known: set[str], source: str | None = None, *, types: bool = False
) -> Iterator[Edge]:
    """The edges out of ``module`` (read from ``path``, or given as ``source``)."""
    visitor = _Imports(module, path.name == "__init__.py", types=types)
    text = path.read_text(encoding="utf-8") if source is None else source
    visitor.visit(ast.parse(text, filename=str(path)))
    own = set(enclosing(module))
    for imported, names, line, deferred in visitor.found:
        if imported.partition(".")[0] != PACKAGE:
            continue
        targets = [*enclosing(imported), imported]
        needed = set()  # enclosing packages whose own names are imported
        for name in names or ():
            if f"{imported}.{name}" in known:
                targets.append(f"{imported}.{name}")
            else:
                needed.add(imported)
        for target in dict.fromkeys(targets):
            if target in known and target != module and (target not in own or target in needed):
                yield Edge(module, target, line, deferred, imported)


def import_graph(*, types: bool = False) -> list[Edge]:
    """Every edge; with ``types``, the type-only imports too."""
    files = module_files()
    known = set(files)
    return [
        edge
        for module, path in files.items()
        for edge in edges_of(module, path, known, types=types)
    ]


def cycles(edges: list[Edge]) -> list[list[Edge]]:
    """One cycle per strongly connected component that has one (Tarjan, then a walk)."""
    graph: dict[str, list[Edge]] = {}
    for edge in edges:
        graph.setdefault(edge.source, []).append(edge)
        graph.setdefault(edge.target, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for edge in graph[node]:
            if edge.target not in index:
                connect(edge.target)
                low[node] = min(low[node], low[edge.target])
            elif edge.target in on_stack:
                low[node] = min(low[node], index[edge.target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [_cycle_in(component, graph) for component in components]


def _cycle_in(component: set[str], graph: dict[str, list[Edge]]) -> list[Edge]:
    """A shortest cycle through the component's first module (breadth-first)."""
    start = min(component)
    paths: dict[str, list[Edge]] = {start: []}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for edge in sorted(graph[node], key=lambda e: e.target):
                if edge.target not in component:
                    continue
                if edge.target == start:
                    return [*paths[node], edge]
                if edge.target not in paths:
                    paths[edge.target] = [*paths[node], edge]
                    following.append(edge.target)
        frontier = following
    raise AssertionError(f"no cycle in component {sorted(component)}")


def describe(found: list[list[Edge]]) -> str:
    return "\n\n".join("\n".join(f"  {edge}" for edge in cycle) for cycle in found)


def test_no_cycle_at_import_time():
    """No two modules import each other (directly or around a loop) when they are loaded."""
    found = cycles([edge for edge in import_graph() if not edge.deferred])
    assert not found, "import cycles:\n" + describe(found)


def test_no_cycle_through_function_level_imports_either():
    """Counting the imports inside functions, the modules are still free of cycles."""
    found = cycles(import_graph())
    assert not found, "import cycles (some through function-level imports):\n" + describe(found)


def test_no_cycle_counting_type_only_imports():
    """Counting the imports under ``if TYPE_CHECKING:`` too, the modules are free of cycles
    (a protocol in the lower module stands for a type of the higher one)."""
    found = cycles(import_graph(types=True))
    assert not found, "import cycles (some through type-only imports):\n" + describe(found)


def part_of(module: str) -> str:
    """``guardrail.judges.local.trained`` -> ``guardrail.judges``; top-level modules stay."""
    return ".".join(module.split(".")[:2])


def part_edges() -> list[Edge]:
    """Edges between the package's parts (type-only imports included); each names the module
    import that makes it."""
    return [
        Edge(part_of(e.source), part_of(e.target), e.line, e.deferred, f"{e.source} -> {e.target}")
        for e in import_graph(types=True)
        if part_of(e.source) != part_of(e.target)
    ]


def test_no_cycle_between_the_package_parts():
    """The parts of the package depend on each other in one direction (function-level and
    type-only imports included): an edge names the module import that makes it."""
    between = part_edges()
    found = cycles(between)
    assert not found, "cycles between parts ([module import]):\n" + "\n\n".join(
        "\n".join(f"  {e.source} -> {e.target} [{e.statement}]" for e in cycle) for cycle in found
    )


#: The package's parts from the bottom up: a part may import its own layer and those below,
#: never one above. A new part must be placed here (the test names it).
LAYERS: tuple[tuple[str, ...], ...] = (
    # foundation: values, errors, files, settings, logs, the registry shape
    ("_version", "exceptions", "models", "validation", "_fs", "_sync", "canonical",
     "sanitize", "safe_load", "storage", "paths", "plugins", "registry", "logs",
     "model_files", "error_bodies"),
    ("text", "lang"),  # tokens, sentences; languages
    ("judges",),
    ("localize",),
    ("scoring",),
    ("actions", "queues", "audit"),
    ("policy",),
    ("topics", "telemetry", "render"),  # render: the terminal tables
    ("turn",),  # the turn pipeline
    ("streaming",),  # a driver of the pipeline
    ("guard",),  # the middleware: check and stream
    ("serving", "integrations"),  # the serving core; the framework adapters
    ("proxy", "server"),  # the two front ends on the serving core
    ("evaluation", "report", "policytest"),  # batch jobs over logs, datasets, cases
    ("probe",),
    ("training", "testing", "local_server"),
    ("cli", "__main__", ""),  # "" is the top package (its lazy public API)
)  # fmt: skip


def layer_of(part: str) -> int | None:
    name = part.removeprefix(PACKAGE).removeprefix(".")
    return next((i for i, names in enumerate(LAYERS) if name in names), None)


def test_every_part_has_a_layer():
    """Each part of the package is placed in :data:`LAYERS`."""
    parts = {part_of(m) for m in module_files()}
    assert not sorted(p for p in parts if layer_of(p) is None)


def test_no_import_runs_up_the_layers():
    """No part imports a part of a higher layer (function-level and type-only imports
    included): the file list reads as the architecture, bottom up."""
    upward = [
        f"{e.source} (layer {layer_of(e.source)}) -> {e.target} (layer {layer_of(e.target)})"
        f" [{e.statement}, line {e.line}]"
        for e in part_edges()
        if (layer_of(e.source) or 0) < (layer_of(e.target) or 0)
    ]
    assert not upward, "imports up the layers:\n" + "\n".join(upward)


def test_runtime_modules_never_import_the_training_code():
    """Only scripts, benchmarks and tests use guardrail.training; no runtime module does."""
    leaks = [
        str(edge)
        for edge in import_graph()
        if edge.target.startswith(TRAINING) and not edge.source.startswith(TRAINING)
    ]
    assert not leaks


def test_graph_sees_imports_where_they_hide():
    """The walker finds function-level, relative and importlib imports, skips TYPE_CHECKING,
    and records enclosing packages only when their own code is needed."""
    source = """
from typing import TYPE_CHECKING
from . import sibling
from guardrail.pkg import helper
from guardrail.pkg.sub import name
from guardrail.pkg import CONSTANT
if TYPE_CHECKING:
    from guardrail.other import Hidden
def later():
    import importlib
    importlib.import_module("guardrail.lazy")
"""
    known = {"guardrail.pkg", "guardrail.pkg.mod", "guardrail.pkg.sibling", "guardrail.pkg.sub",
             "guardrail.pkg.helper", "guardrail.other", "guardrail.lazy"}  # fmt: skip
    path = ROOT / "build" / "mod.py"
    seen = {
        (edge.target, edge.deferred)
        for edge in edges_of("guardrail.pkg.mod", path, known, source=source)
    }
    assert seen == {
        ("guardrail.pkg", False),  # CONSTANT: the enclosing package's own code is needed
        ("guardrail.pkg.sibling", False),
        ("guardrail.pkg.helper", False),
        ("guardrail.pkg.sub", False),
        ("guardrail.lazy", True),
    }
    with_types = {
        (edge.target, edge.deferred)
        for edge in edges_of("guardrail.pkg.mod", path, known, source=source, types=True)
    }
    assert with_types - seen == {("guardrail.other", True)}


def test_cycles_reports_a_loop_and_nothing_else():
    def edge(a: str, b: str) -> Edge:
        return Edge(a, b, 1, False, b)

    loop = [edge("a", "b"), edge("b", "c"), edge("c", "a")]
    assert cycles([*loop, edge("c", "d"), edge("d", "e")]) == [loop]
    assert cycles([edge("a", "b"), edge("b", "c"), edge("a", "c")]) == []
