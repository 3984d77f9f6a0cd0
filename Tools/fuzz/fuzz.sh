#!/usr/bin/env bash
# `make fuzz`: builds Tools/fuzz/Harnesses with address sanitizer and libFuzzer's coverage into .build-fuzz, runs each
# harness for FUZZ_SECONDS (60 by default) from its seed corpus, and prints a table. Exits 1 when any harness found a
# crash, a hang (an input running longer than FUZZ_TIMEOUT seconds) or ran out of memory; the input is kept under
# .build-fuzz/findings/<harness>/ (replay: .build-fuzz/debug/SuiteFuzz <harness> <file>).
#   FUZZ_SECONDS=300 make fuzz                    longer runs
#   FUZZ_HARNESSES="json rules" make fuzz         some harnesses only
#   FUZZ_ARGS="-max_len=65536" make fuzz          more libFuzzer flags
#   FUZZ_PARALLEL=3 make fuzz                     three harnesses at a time
set -uo pipefail
cd "$(dirname "$0")/../.."
SWIFT=${SWIFT:-swift}
SECONDS_EACH=${FUZZ_SECONDS:-60}
TIMEOUT=${FUZZ_TIMEOUT:-10}
SCRATCH=.build-fuzz

runtime=$(ls "$(dirname "$(readlink -f "$(command -v "$SWIFT")")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -1)
if [ -z "$runtime" ]; then
    echo "error: libclang_rt.fuzzer_no_main-x86_64.a not found in the Swift toolchain" >&2
    echo "hint: make fuzz needs a Linux Swift toolchain (swift.org builds ship libFuzzer)" >&2
    exit 2
fi

# Every Swift module compiled with address sanitizer and libFuzzer's coverage (-sanitize=fuzzer at the frontend only,
# so the driver does not link libFuzzer's own main); SUITE_FUZZ turns on the driver call in Harnesses/main.swift.
echo "building SuiteFuzz (address sanitizer, libFuzzer coverage) in $SCRATCH…"
if ! $SWIFT build --scratch-path "$SCRATCH" --product SuiteFuzz \
    -Xswiftc -sanitize=address -Xswiftc -Xfrontend -Xswiftc -sanitize=fuzzer -Xswiftc -DSUITE_FUZZ \
    -Xlinker "$runtime" -Xlinker -lstdc++ 2>&1 | grep -v "Cannot export local symbol"; then
    echo "error: the fuzz build failed" >&2
    exit 2
fi
binary=$SCRATCH/debug/SuiteFuzz
harnesses=${FUZZ_HARNESSES:-$("$binary" list 2>&1 | sed -n 's/^harnesses: //p')}

# Swift's runtime keeps caches for the process's life: leak reports would be noise, not findings.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
PARALLEL=${FUZZ_PARALLEL:-1}
mkdir -p "$SCRATCH/rows"

# One harness: libFuzzer for SECONDS_EACH, then its row of the table in $SCRATCH/rows/<harness>.
fuzz_one() {
    local harness=$1
    local work=$SCRATCH/corpus/$harness findings=$SCRATCH/findings/$harness log=$SCRATCH/logs/$harness.log
    mkdir -p "$work" "$findings" "$(dirname "$log")"
    local seeds=Tools/fuzz/corpus/$harness
    local extra=()
    [ -f "Tools/fuzz/dictionaries/$harness.dict" ] && extra+=("-dict=Tools/fuzz/dictionaries/$harness.dict")
    local before
    before=$(ls "$findings" | wc -l)
    echo "fuzzing $harness for ${SECONDS_EACH}s (log: $log)"
    # shellcheck disable=SC2086
    "$binary" "$harness" -max_total_time="$SECONDS_EACH" -timeout="$TIMEOUT" -rss_limit_mb=2048 \
        -artifact_prefix="$findings/" -print_final_stats=1 "${extra[@]}" ${FUZZ_ARGS:-} "$work" \
        $([ -d "$seeds" ] && echo "$seeds") >"$log" 2>&1
    local status=$?
    local after runs cov ft corpus found newest
    after=$(ls "$findings" | wc -l)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -ao 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    ft=$(grep -ao 'ft: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    corpus=$(ls "$work" | wc -l)
    found=$((after - before))
    if [ "$status" -ne 0 ] && [ "$found" -eq 0 ]; then found=1; fi
    newest=$(ls -t "$findings" | head -1)
    printf '%-18s %10s %7s %7s %7s %8s  %s\n' "$harness" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$found" \
        "$([ "$found" -ne 0 ] && echo "$findings/$newest ($log)")" >"$SCRATCH/rows/$harness"
}

for harness in $harnesses; do
    rm -f "$SCRATCH/rows/$harness"
    fuzz_one "$harness" &
    while [ "$(jobs -rp | wc -l)" -ge "$PARALLEL" ]; do wait -n; done
done
wait

failed=0
echo
printf '%-18s %10s %7s %7s %7s %8s  %s\n' harness runs cov ft corpus crashes finding
for harness in $harnesses; do
    if [ -f "$SCRATCH/rows/$harness" ]; then cat "$SCRATCH/rows/$harness"; else echo "$harness: no result"; failed=1; fi
    [ -f "$SCRATCH/rows/$harness" ] && [ "$(awk '{print $6}' "$SCRATCH/rows/$harness")" != 0 ] && failed=1
done
echo "(${SECONDS_EACH}s each; cov and ft are libFuzzer's coverage counters at the end of the run)"
exit $failed
