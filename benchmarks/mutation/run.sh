#!/usr/bin/env bash
# Mutation testing of theory/ and the core numerics formulas with mutmut 3 (notes: benchmarks/mutation/README.md).
#
# mutmut runs the tests against mutated copies of the sources in ./mutants, importing them by module
# name. This repository maps contrastive_bounds.theory -> theory/ etc. (setuptools package-dir), which
# mutmut cannot follow, so the script stages a copy laid out as the import layout
# ($STAGE/contrastive_bounds/{theory,numerics,properties}, tests/, a pyproject.toml with the mutmut
# settings below) and runs mutmut there. Nothing in the working tree is modified.
#
# Usage: benchmarks/mutation/run.sh [scope]      scope: core (default), schedules, theory (all of theory/) or smoke
# Env:   STAGE (default ${TMPDIR:-/tmp}/contrastive-bounds-mutation), MUTMUT_JOBS (default 2)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SCOPE=${1:-core}
STAGE=${STAGE:-${TMPDIR:-/tmp}/contrastive-bounds-mutation}
JOBS=${MUTMUT_JOBS:-2}
PY=${PYTHON:-$ROOT/.venv/bin/python}

case "$SCOPE" in
  core) MUTATE='"contrastive_bounds/theory/_alignment.py", "contrastive_bounds/theory/_alignment_values.py", "contrastive_bounds/theory/_kramers.py"'
        TESTS='"tests/theory/test_alignment.py", "tests/theory/test_kramers.py"'
        [ -f "$ROOT/tests/theory/test_formula_values.py" ] && TESTS="$TESTS, \"tests/theory/test_formula_values.py\"" ;;
  smoke) MUTATE='"contrastive_bounds/theory/_alignment_values.py"'
         TESTS='"tests/theory/test_alignment.py"' ;;
  schedules) MUTATE='"contrastive_bounds/theory/_schedules.py"'
         TESTS='"tests/theory/test_schedules.py", "tests/theory/test_formula_values.py"' ;;
  theory) MUTATE='"contrastive_bounds/theory/*.py"'
          TESTS='"tests/theory"' ;;
  *) echo "scope must be 'core', 'schedules', 'theory' or 'smoke', got '$SCOPE'" >&2; exit 2 ;;
esac

rm -rf "$STAGE"
mkdir -p "$STAGE/contrastive_bounds"
cp "$ROOT/contrastive_bounds/__init__.py" "$STAGE/contrastive_bounds/"
for pkg in theory numerics properties; do
  (cd "$ROOT" && find "$pkg" -name '*.py' -o -name '*.json' -o -name '*.toml' | grep -v __pycache__ |
     while read -r f; do mkdir -p "$STAGE/contrastive_bounds/$(dirname "$f")"; cp "$f" "$STAGE/contrastive_bounds/$f"; done)
done
cp -r "$ROOT/tests" "$STAGE/tests"
find "$STAGE" -name __pycache__ -prune -exec rm -rf {} +
cat > "$STAGE/pyproject.toml" <<TOML
[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-ra --import-mode=importlib -p no:cacheprovider"

[tool.mutmut]
source_paths = ["contrastive_bounds"]
only_mutate = [$MUTATE]
pytest_add_cli_args_test_selection = [$TESTS]
pytest_add_cli_args = ["-q", "-x", "-p", "no:randomly"]
process_isolation = "forkserver"
timeout_multiplier = 10.0
mutate_only_covered_lines = true
# messages are not formulas: statements that raise, and lines that are string literals (message and
# description continuations), are not mutated
do_not_mutate_patterns = ["^\\\\s*raise ", "^\\\\s*f?[\\"']"]
TOML

cd "$STAGE"
export JAX_PLATFORMS=cpu HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-ci}
start=$(date +%s)
"$PY" -m mutmut run --max-children "$JOBS" || true
"$PY" -m mutmut results --all true > "$STAGE/results.txt" 2>&1 || "$PY" -m mutmut results > "$STAGE/results.txt" 2>&1 || true
echo "wall: $(( $(date +%s) - start )) s" | tee -a "$STAGE/results.txt"
"$PY" - "$STAGE" <<'PYEOF'
import collections, re, sys
text = open(f"{sys.argv[1]}/results.txt").read()
counts = collections.Counter(m.group(2) for m in re.finditer(r"^\s*(\S+): (\w[\w ]*)$", text, re.M))
print("summary:", dict(counts))
PYEOF
echo "results: $STAGE/results.txt; inspect one mutant with: (cd $STAGE && $PY -m mutmut show <name>)"
