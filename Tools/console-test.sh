#!/usr/bin/env bash
# The web console in a real browser (issue 17): headless Chromium and chromedriver from Debian, Selenium from PyPI in
# a venv under .build. Part of `make test`; a missing browser fails the run. Screenshots: .build/console-test/.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN_DIR=${BIN_DIR:-$(swift build --show-bin-path)}
VENV=.build/console-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import selenium' 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q 'selenium>=4.20,<5'
fi
exec "$VENV/bin/python" Tests/Console/console_test.py --bin "$BIN_DIR/suite" --out .build/console-test "$@"
