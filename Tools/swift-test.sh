#!/usr/bin/env bash
# make test's Swift part: runs the whole test suite and, when anything failed, repeats the failing tests' lines at the
# end, so that the last lines of a long log (all a CI page may show) name what failed and why.
set -uo pipefail
log="${TMPDIR:-/tmp}/suite-swift-test.$$.log"
trap 'rm -f "$log"' EXIT
"${SWIFT:-swift}" test --disable-xctest --explicit-target-dependency-import-check error "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# SwiftPM prints an import of an undeclared dependency as an error but goes on (swift-package-manager issue 7062).
if [ "$status" -eq 0 ] && grep -q "without declaring it a dependency" "$log"; then status=1; fi
if [ "$status" -ne 0 ]; then
	echo
	echo "== what failed (repeated from above) =="
	grep -E '^✘|recorded an issue|Fatal error|^error: |: error: |without declaring it a dependency' "$log" | grep -v 'known issue' | tail -n 60
fi
exit "$status"
