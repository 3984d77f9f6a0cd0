#!/bin/sh
# Every *.rules file here must be refused at load with FILE:LINE:COLUMN, never run.
# Usage: check-refusals.sh [path to suite]   (default: suite on PATH)
suite=${1:-suite}
cd "$(dirname "$0")" || exit 2
failed=0
for rules in *.rules; do
  out=$("$suite" rules test "$rules" --cases any.yaml 2>&1)
  status=$?
  if [ $status -ne 0 ] && printf '%s\n' "$out" | grep -Eq "^error: $rules:[0-9]+:[0-9]+: "; then
    echo "ok    $rules: $(printf '%s\n' "$out" | head -1)"
  else
    echo "FAIL  $rules (status $status): $(printf '%s\n' "$out" | head -2 | tr '\n' ' ')"
    failed=1
  fi
done
exit $failed
