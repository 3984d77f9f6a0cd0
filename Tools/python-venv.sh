#!/usr/bin/env bash
# The Python environment of the tools that drive `suite serve` with Google's client: a venv under .build with
# google-cloud-firestore, pytest and pyyaml from PyPI, at pinned versions, (re)made when missing or different.
# Prints the venv's python on stdout (progress and pip's output go to stderr).
# Used by Tools/firestore-client-test.sh and Tools/faults/bank/bank.py.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.build/firestore-venv
FIRESTORE_VERSION=2.34.1
PYTEST_VERSION=9.2.0
PYYAML_VERSION=6.0.2
if ! "$VENV/bin/python" -c "import sys, yaml, pytest, google.cloud.firestore as f
sys.exit(f.__version__ != '$FIRESTORE_VERSION' or pytest.__version__ != '$PYTEST_VERSION' or yaml.__version__ != '$PYYAML_VERSION')" 2>/dev/null; then
    mkdir -p .build
    python3 -m venv "$VENV" >&2
    "$VENV/bin/pip" install -q "google-cloud-firestore==$FIRESTORE_VERSION" "pytest==$PYTEST_VERSION" \
        "pyyaml==$PYYAML_VERSION" >&2  # pyyaml: the rules tables (Tests/SuiteServerTests/RulesCases)
fi
echo "$PWD/$VENV/bin/python"
