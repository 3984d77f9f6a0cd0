#!/usr/bin/env bash
# Google's Python client (google-cloud-firestore, from PyPI, in a venv under .build) against `suite serve`'s Firestore
# gRPC port, as apps use it against Google's emulator: Tests/FirestoreClient (pytest). Part of `make test`.
# Fails on any failure, and on any skipped test (conftest.py). Extra arguments go to pytest (-k NAME, -x, ...).
# FIRESTORE_REFERENCE=google runs the same tests against Google's own emulator (gcloud's
# google-cloud-cli-firestore-emulator package, with Java), to check the tests themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
SUITE_BIN_DIR=${SUITE_BIN_DIR:-$(swift build --show-bin-path)}
PYTHON=$(Tools/python-venv.sh)  # .build/firestore-venv, made or updated when needed
# No __pycache__ or .pytest_cache left in the source tree.
export PYTHONDONTWRITEBYTECODE=1
SUITE_BIN_DIR=$SUITE_BIN_DIR exec "$PYTHON" -m pytest -q Tests/FirestoreClient "$@"
