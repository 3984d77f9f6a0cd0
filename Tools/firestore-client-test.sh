#!/usr/bin/env bash
# Google's Python client (google-cloud-firestore, from PyPI, in a venv under .build) against `suite serve`'s Firestore
# gRPC port, as apps use it against Google's emulator: Tests/FirestoreClient (pytest). Part of `make test`.
# Fails on any failure, and on any skipped test (conftest.py). Extra arguments go to pytest (-k NAME, -x, ...).
# FIRESTORE_REFERENCE=google runs the same tests against Google's own emulator (gcloud's
# google-cloud-cli-firestore-emulator package, with Java), to check the tests themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
SUITE_BIN_DIR=${SUITE_BIN_DIR:-$(swift build --show-bin-path)}
VENV=.build/firestore-venv
FIRESTORE_VERSION=2.34.1
PYTEST_VERSION=9.2.0
PYYAML_VERSION=6.0.2
if ! "$VENV/bin/python" -c "import sys, yaml, pytest, google.cloud.firestore as f
sys.exit(f.__version__ != '$FIRESTORE_VERSION' or pytest.__version__ != '$PYTEST_VERSION' or yaml.__version__ != '$PYYAML_VERSION')" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "google-cloud-firestore==$FIRESTORE_VERSION" "pytest==$PYTEST_VERSION" \
        "pyyaml==$PYYAML_VERSION"  # the rules tables (Tests/SuiteServerTests/RulesCases)
fi
# No __pycache__ or .pytest_cache left in the source tree.
export PYTHONDONTWRITEBYTECODE=1
SUITE_BIN_DIR=$SUITE_BIN_DIR exec "$VENV/bin/python" -m pytest -q Tests/FirestoreClient "$@"
