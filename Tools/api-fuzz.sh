#!/usr/bin/env bash
# Runs schemathesis (from PyPI, in a venv under .build) against a live `suite serve` on loopback: no 5xx, every
# status, content type, header and body as /openapi.json documents them. Used by `make api-fuzz` and CI.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN_DIR=${BIN_DIR:-$(swift build --show-bin-path)}
VENV=.build/schemathesis-venv
if [ ! -x "$VENV/bin/st" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q 'schemathesis>=4,<5'
fi
DATA=$(mktemp -d)
trap 'status=$?; { kill -9 "$SERVER"; wait "$SERVER"; } 2>/dev/null || true; rm -rf "$DATA"; exit $status' EXIT
TOKEN=$("$BIN_DIR/suite" --data-dir "$DATA" users add fuzz --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
"$BIN_DIR/suite" --data-dir "$DATA" serve --port 0 --json > "$DATA/serve.out" 2>"$DATA/serve.err" &
SERVER=$!
for _ in $(seq 1 100); do [ -s "$DATA/serve.out" ] && break; sleep 0.1; done
URL=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["url"])' "$DATA/serve.out")
# /v1/changes/stream never ends (server-sent events): documented, not fuzzed.
"$VENV/bin/st" run "$URL/openapi.json" -H "Authorization: Bearer $TOKEN" --exclude-path /v1/changes/stream \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
    --request-timeout 40 --max-examples "${EXAMPLES:-25}" --seed 1
