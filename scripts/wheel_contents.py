"""Check a built wheel against the source tree: every file of the package is inside, nothing else.

    python scripts/wheel_contents.py dist/guardrail_rag-0.1.0-py3-none-any.whl

The package's files are read from the source tree (``git ls-files guardrail``, following the
``guardrail/policies`` link), so a new policy, model file, template or asset that no
package-data pattern in pyproject.toml matches fails here. Named files (the default policy, its
JSON Schema, the packaged verifier, localizer and encoder, the review page's templates and
stylesheet) must be present whatever the tree says; tests, data sets, caches and compiled
files must not be. Prints the wheel's size; exit 1 with one line per problem.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "guardrail"

#: Files a user of the installed package cannot do without, whatever the tree holds.
REQUIRED = (
    "guardrail/py.typed",
    "guardrail/policies/default.yaml",
    "guardrail/policies/policy.schema.json",
    "guardrail/judges/local/verifier.json",
    "guardrail/judges/local/lexicon.json",
    "guardrail/localize/token_model.json",
    "guardrail/judges/local/encoder/model.onnx",
    "guardrail/judges/local/encoder/tokenizer.json",
    "guardrail/judges/local/encoder/encoder.json",
    "guardrail/scoring/cascade.json",
    "guardrail/scoring/prompts/metarag_v1/manifest.json",
    "guardrail/server/templates/base.html",
    "guardrail/server/templates/queue.html",
    "guardrail/server/templates/case.html",
    "guardrail/server/static/review.css",
)
#: Path parts and suffixes that never belong in the wheel.
FORBIDDEN_PARTS = ("tests", "__pycache__", ".pytest_cache", ".mypy_cache", "data", "benchmarks")
FORBIDDEN_SUFFIXES = (".pyc", ".pyo", ".jsonl", ".sqlite3", ".log")
#: Above this the wheel carries something it should not (the encoder is ~15 MB compressed).
MAX_BYTES = 20_000_000


def source_files(root: Path = ROOT) -> set[str]:
    """The package's files in the source tree, as wheel paths (links to folders followed)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", PACKAGE], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    files: set[str] = set()
    for name in filter(None, listed):
        path = root / name
        if path.is_dir():  # a link to a folder (guardrail/policies): its tracked files
            target = path.resolve().relative_to(root.resolve())
            inner = subprocess.run(
                ["git", "ls-files", "-z", str(target)], cwd=root, capture_output=True,
                text=True, check=True,
            ).stdout.split("\0")  # fmt: skip
            files |= {name + "/" + Path(f).relative_to(target).as_posix() for f in inner if f}
        else:
            files.add(name)
    return files


def _banned(name: str) -> bool:
    parts = name.split("/")
    return any(p in FORBIDDEN_PARTS for p in parts[:-1]) or name.endswith(FORBIDDEN_SUFFIXES)


def problems(wheel: Path, expected: set[str]) -> list[str]:
    """What is wrong with ``wheel`` given the package files ``expected``; [] when nothing."""
    with zipfile.ZipFile(wheel) as archive:
        inside = {n for n in archive.namelist() if not n.endswith("/")}
    package = {n for n in inside if n.split("/", 1)[0] == PACKAGE}
    meta = inside - package
    found: list[str] = []
    found += [f"outside the package: {n}" for n in sorted(meta)
              if not n.split("/", 1)[0].endswith(".dist-info")]  # fmt: skip
    found += [f"missing (required): {n}" for n in REQUIRED if n not in package]
    found += [f"missing (in the source tree): {n}" for n in sorted(expected - package)
              if n not in REQUIRED]  # fmt: skip
    banned = {n for n in inside if _banned(n)}
    found += [f"does not belong in a wheel: {n}" for n in sorted(banned)]
    found += [f"not in the source tree: {n}" for n in sorted(package - expected - banned)]
    size = wheel.stat().st_size
    if size > MAX_BYTES:
        found.append(f"{size:,} bytes, over the {MAX_BYTES:,} limit")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=Path)
    args = parser.parse_args(argv)
    found = problems(args.wheel, source_files())
    for line in found:
        print(f"{args.wheel.name}: {line}", file=sys.stderr)
    with zipfile.ZipFile(args.wheel) as archive:
        count = sum(1 for n in archive.namelist() if not n.endswith("/"))
    size = args.wheel.stat().st_size
    print(f"{args.wheel.name}: {count} files, {size / 1e6:.1f} MB, {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
