#!/usr/bin/env bash
# Counts each module's `public` declarations (a line starting with `public`, after any attributes; `public import`
# lines are not declarations): those an app sees, those behind `@_spi(…)` (engines and plugins), and both together.
# Usage: Tools/public-count.sh [module…]   (default: the libraries an app imports, and SuiteHost and SuitePluginKit)
set -euo pipefail
cd "$(dirname "$0")/.."
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
    modules=(SuiteHost SuitePluginKit Documents Cache StorageAccounting Analytics Sync WorkTracking SuiteHTTP SuiteCore)
fi
printf '%-18s %8s %8s %8s\n' module app @_spi all
for module in "${modules[@]}"; do
    lines=$(git grep -hE '^\s*(@[^ ]+ )*public ' -- "Modules/$module/*.swift" | grep -v 'public import' || true)
    total=$(printf '%s' "$lines" | grep -c . || true)
    spi=$(printf '%s' "$lines" | grep -c '@_spi' || true)
    printf '%-18s %8s %8s %8s\n' "$module" "$((total - spi))" "$spi" "$total"
done
