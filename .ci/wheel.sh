#!/usr/bin/env bash
# The wheel works on its own: build it, install it into a fresh venv, and from an unrelated
# directory answer a /paper command through the shell and search the bundled catalogue.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m build --wheel --outdir "$work/dist" . >"$work/build.log" 2>&1 || {
    cat "$work/build.log"
    exit 1
}
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$work"/dist/*.whl

mkdir "$work/elsewhere"
cd "$work/elsewhere"
env -u PYTHONPATH PAPERBOT_DATABASE_URL="sqlite:///$work/paperbot.db" \
    "$work/venv/bin/python" -m bot shell --once "/paper graph sparsification" | tee "$work/shell.out"
grep -q "Graph Sparsification" "$work/shell.out"
env -u PYTHONPATH "$work/venv/bin/python" -m bot search --corpus catalogue mixture of experts \
    | tee "$work/search.out"
grep -qi "mixture" "$work/search.out"
# The semantic re-ranking runs from the installed package: model, vocabulary, stored vectors
# (a question BM25 finds no decisive answer to, so the model is asked: bot/search/model_rule.py).
env -u PYTHONPATH "$work/venv/bin/python" -m bot search --json -k 3 --corpus catalogue \
    can a model tell it is ignoring the prompt >"$work/search.json"
"$work/venv/bin/python" -c '
import json, sys
hits = json.load(open(sys.argv[1]))
assert hits and all(hit["semantic_score"] is not None for hit in hits), hits
' "$work/search.json"
echo "wheel: OK"
