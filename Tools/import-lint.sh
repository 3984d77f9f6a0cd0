#!/usr/bin/env bash
# Import discipline (issue 31), two checks:
#   Tools/import-lint.sh                 the `suite` executable imports SuiteHost only of this package's modules
#                                        (docs/architecture.md); part of `make lint`.
#   Tools/import-lint.sh swift build …   runs the command with SwiftPM's explicit-import check and fails when it finds
#                                        a target importing a package module it does not declare (SwiftPM prints the
#                                        error but still exits 0: swift-package-manager issue 7062).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -gt 0 ]; then
	log="$(mktemp)"
	trap 'rm -f "$log"' EXIT
	"$@" --explicit-target-dependency-import-check error 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	if grep -q "without declaring it a dependency" "$log"; then
		echo
		echo "== imports of undeclared dependencies (add the target to its dependencies in Package.swift) =="
		grep "without declaring it a dependency" "$log" | sort -u
		exit 1
	fi
	exit "$status"
fi
modules=$(ls -d Modules/*/ Plugins/*/ 2>/dev/null | xargs -n1 basename | grep -v '^suite$' | grep -v '^SuiteHost$')
pattern="^(@_exported |public |package |internal )?import ($(echo $modules | tr ' ' '|'))$"
found=$(grep -nE "$pattern" Modules/suite/*.swift || true)
if [ -n "$found" ]; then
	echo "error: the suite executable imports SuiteHost only (it re-exports what the commands use):"
	echo "$found"
	exit 1
fi
echo "import-lint: Modules/suite imports SuiteHost only"
