#!/usr/bin/env bash
# Build the sdist and the wheel, check them, and use the wheel as a user would: installed into
# a fresh virtual environment (no --system-site-packages, no clone on the path), it must run
# the demo and `guardrail check` from a folder outside the source tree. A file the package
# needs but no package-data pattern ships (a policy, model file, template, schema) fails here.
#
#   bash scripts/check_wheel.sh [OUT_DIR]     # the built files stay in OUT_DIR (default: a temp dir)
#
# The fresh environment installs the wheel's dependencies from the package index (pip's cache
# makes a second run quick); the extras are not installed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
DIST=${1:-$WORK/dist}
export PIP_DISABLE_PIP_VERSION_CHECK=1
unset PYTHONPATH

step() { printf '\n== %s\n' "$*"; }

step "build the sdist and the wheel"
# From a copy of the files git knows (tracked or new, not ignored): a stale *.egg-info left by
# an editable install would otherwise add files that no package-data pattern ships.
mkdir "$WORK/src"
git ls-files -z --cached --others --exclude-standard \
  | xargs -0 tar -cf - --no-recursion --ignore-failed-read 2>/dev/null | tar -xf - -C "$WORK/src"
rm -rf "$DIST"
python -m build --outdir "$DIST" "$WORK/src" >"$WORK/build.log" 2>&1 \
  || { cat "$WORK/build.log"; exit 1; }
ls -l "$DIST"
WHEEL=$(ls "$DIST"/*.whl)

step "twine check (the metadata and the README render on the package index)"
python -m twine check --strict "$DIST"/*

step "the wheel's contents"
python scripts/wheel_contents.py "$WHEEL"

step "a fresh virtual environment with the wheel"
python -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install --quiet "$WHEEL"
export PATH="$WORK/venv/bin:$PATH"

step "the installed package, from a folder outside the source tree"
mkdir "$WORK/user"
cd "$WORK/user"
python - "$ROOT" <<'PY'
import sys
from importlib.metadata import version
from pathlib import Path

import guardrail

where = Path(guardrail.__file__).resolve()
assert Path(sys.argv[1]).resolve() not in where.parents, f"imported from the clone: {where}"
assert version("guardrail-rag") == guardrail.__version__, "two versions"
print(f"guardrail {guardrail.__version__} from {where.parent}")
PY
test "$(guardrail --version)" = "guardrail $(python -c 'import guardrail; print(guardrail.__version__)')"
guardrail policy init
guardrail policy validate policies/default.yaml

step "guardrail check"
code=0
guardrail check -q "Can pregnant women take ibuprofen?" \
  -a "Yes, ibuprofen is safe throughout pregnancy." \
  -c "Ibuprofen is contraindicated in the third trimester of pregnancy." --fail-on-flag || code=$?
test "$code" = 1 || { echo "an unsupported answer: exit $code, not 1 (flagged)"; exit 1; }
guardrail check --policy policies/default.yaml --audit-log audit.jsonl \
  -q "When is the library open?" -a "The library is open on Saturdays from 10:00 to 14:00." \
  -c "The city library is open on Saturdays from 10:00 to 14:00." --fail-on-flag
guardrail audit verify audit.jsonl

step "the demo"
cp -r "$ROOT/examples" .
python examples/demo.py --out demo >demo.txt
grep -q "escalate -> queue" demo.txt || { cat demo.txt; echo "the demo escalated nothing"; exit 1; }
guardrail audit verify demo/audit.jsonl
guardrail review list --db demo/review.sqlite3 --audit-log demo/audit.jsonl

step "serve and proxy without the server extra"
guardrail serve --help >/dev/null
guardrail proxy --help >/dev/null
code=0
guardrail serve --policy policies/default.yaml --tokens-env UNSET 2>serve.err || code=$?
test "$code" = 2 || { cat serve.err; echo "serve without the server extra: exit $code, not 2"; exit 1; }
test "$(wc -l <serve.err)" = 1 && grep -q "pip install" serve.err || { cat serve.err; exit 1; }

step "wheel check passed"
