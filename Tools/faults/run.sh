#!/usr/bin/env bash
# `make faults`: the fault harnesses one after another, briefly (a few seconds each; part of CI), or at full length
# with --full (`make faults FULL=1`). Each prints its figures as a table; this fails when any of them fails, and a
# harness that could not run (no network namespaces here) is a failure too, never a pass.
set -uo pipefail
cd "$(dirname "$0")/../.."
SUITE_BIN_DIR=${SUITE_BIN_DIR:-$(swift build --show-bin-path)}
export SUITE_BIN_DIR
full=0
[ "${1:-}" = "--full" ] && full=1
failed=()

step() {  # step NAME COMMAND...
    local name=$1
    shift
    echo
    echo "== $name: $*"
    if ! "$@"; then failed+=("$name"); fi
}

step "replica checker self-test" python3 Tools/faults/replicas.py --self-test
if [ $full -eq 1 ]; then
    step "bank (Jepsen's), SQLite and PostgreSQL" python3 Tools/faults/bank/bank.py --seconds 60
    step "replicas under network faults" python3 Tools/faults/replicas.py --seconds 120 --phase 4
    # Throughput figures need the release build; the 600 s soak is the issue's.
    swift build -c release --product suite >/dev/null
    step "load and soak (release)" env SUITE_BIN_DIR="$(swift build -c release --show-bin-path)" \
        python3 Tools/faults/load/load.py --soak-seconds 600
    step "cache under 64 clients (60 s a store)" env SUITE_CACHE_STRESS_SECONDS=60 \
        swift test --skip-build --disable-xctest --filter CacheConcurrentLimitTests
else
    step "bank (Jepsen's), SQLite and PostgreSQL" python3 Tools/faults/bank/bank.py --seconds 5
    step "replicas under network faults" python3 Tools/faults/replicas.py --seconds 8 --phase 1.5
    # Brief: the debug build, up to 64 connections and a 20 s soak: errors and memory, not throughput.
    step "load and soak (brief, debug build)" python3 Tools/faults/load/load.py --step-seconds 2 \
        --max-connections 64 --soak-seconds 20
fi

echo
if [ ${#failed[@]} -gt 0 ]; then
    echo "make faults: FAILED: ${failed[*]}"
    exit 1
fi
echo "make faults: every harness held its promises"
