#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, `swiftc -sanitize=fuzzer,address`) of the parsers a user's bytes reach.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 20 s, every target in Fuzz/Targets
#   FUZZ_RUNS=1000000 scripts/fuzz.sh 900 FuzzJSON        stop at a million executions (or 900 s)
#   FUZZ_JOBS=1 scripts/fuzz.sh                           one target at a time (default: one per core)
#   FUZZ_OPT=-Onone scripts/fuzz.sh 5                      unoptimised build (what the test command uses)
#
# Builds NearbyCore and NearbyStore with coverage and AddressSanitizer into .build/fuzz (checked
# arithmetic: -O, not -Ounchecked; FUZZ_OPT=-Onone compiles in a fifth of the CPU time, measured 32 s
# against 142 s, and runs slower: right for a few seconds that replay the corpus, wrong for a long
# run), then runs each target for the given time starting from its committed seeds
# (Fuzz/Corpus/<target>; new inputs go to .build/fuzz/corpus/<target>, not to git). A crash, a failed
# invariant, a leak or a hang (-timeout) stops the target: its input is saved under .build/fuzz/crashes/
# and the script exits 1. Keep a crash input as a regression seed in
# Fuzz/Regressions/ (scripts/fuzz.sh replays those first) and fix the bug.
# Execution counts and rates: the last `#N DONE` line of each target's log in .build/fuzz/logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-20}
shift || true
OUT=.build/fuzz
mkdir -p "$OUT/modules" "$OUT/bin" "$OUT/logs" "$OUT/crashes"
OPT=${FUZZ_OPT:--O}
FLAGS=(-sanitize=fuzzer,address "$OPT" -parse-as-library -g)
# The C modules' folders (module maps over headers), one list for every step below.
C_MODULES=(-I Sources/CPROJ -I Sources/CPrefetch -I Sources/CMalloc -I Sources/CSQLite)
# No allocation stacks: recording one per malloc costs the readers about a sixth of their time. To see
# where a reported block was allocated, replay the saved input with ASAN_OPTIONS=malloc_context_size=30.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:malloc_context_size=0}


stamp=$(find Sources/NearbyCore Sources/NearbyStore Fuzz/Targets -name '*.swift' -newer "$OUT/built" 2>/dev/null | head -1 || true)
# A build with other optimisation flags is a different build: the stamp file holds them.
if [[ ! -f $OUT/built || -n $stamp || $(cat "$OUT/built") != "$OPT" ]]; then
    echo "fuzz: building the libraries with coverage (a few minutes)" >&2
    # From a snapshot of the sources, so editing them meanwhile cannot break the build.
    rm -rf "$OUT/src" && mkdir -p "$OUT/src" && cp -R Sources/NearbyCore Sources/NearbyStore "$OUT/src/"
    swiftc "${FLAGS[@]}" -wmo -num-threads "$(nproc)" -emit-library -static -emit-module -module-name NearbyCore \
        -emit-module-path "$OUT/modules/NearbyCore.swiftmodule" -o "$OUT/modules/libNearbyCore.a" \
        "${C_MODULES[@]}" $(find "$OUT/src/NearbyCore" -name '*.swift')
    swiftc "${FLAGS[@]}" -wmo -num-threads "$(nproc)" -emit-library -static -emit-module -module-name NearbyStore \
        -emit-module-path "$OUT/modules/NearbyStore.swiftmodule" -o "$OUT/modules/libNearbyStore.a" \
        -I "$OUT/modules" "${C_MODULES[@]}" $(find "$OUT/src/NearbyStore" -name '*.swift')
    # The targets one per core, as the runs below.
    build_target() {
        local t=$1
        swiftc "${FLAGS[@]}" -I "$OUT/modules" "${C_MODULES[@]}" \
            "Fuzz/Targets/$t.swift" Fuzz/Targets/FuzzCheck.swift -o "$OUT/bin/$t" \
            -L "$OUT/modules" -lNearbyStore -lNearbyCore -lsqlite3 >"$OUT/logs/link-$t.log" 2>&1 \
            || { cat "$OUT/logs/link-$t.log" >&2; touch "$OUT/logs/link-$t.failed"; }
    }
    rm -f "$OUT"/logs/link-*.failed
    for src in Fuzz/Targets/Fuzz*.swift; do
        t=$(basename "$src" .swift)
        [[ $t == FuzzCheck ]] && continue
        while (( $(jobs -rp | wc -l) >= $(nproc) )); do sleep 0.2; done
        build_target "$t" &
    done
    wait
    if ls "$OUT"/logs/link-*.failed >/dev/null 2>&1; then exit 1; fi
    echo "$OPT" >"$OUT/built"
fi

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    for src in Fuzz/Targets/Fuzz*.swift; do
        t=$(basename "$src" .swift); [[ $t == FuzzCheck ]] || targets+=("$t")
    done
fi

# One target: its regression inputs, then fuzzing for the given time. Prints one line; returns 1 on a failure.
run_target() {
    local t=$1
    mkdir -p "$OUT/corpus/$t" "Fuzz/Corpus/$t"
    local seeds=("Fuzz/Corpus/$t")
    [[ -d Fuzz/Regressions/$t ]] && seeds+=("Fuzz/Regressions/$t")
    # Regression inputs first: each must pass on its own.
    if [[ -d Fuzz/Regressions/$t ]] && ls Fuzz/Regressions/$t/* >/dev/null 2>&1; then
        "$OUT/bin/$t" Fuzz/Regressions/$t/* >"$OUT/logs/$t.regressions.log" 2>&1 \
            || { echo "fuzz: $t: a regression input fails again (log: $OUT/logs/$t.regressions.log)" >&2; return 1; }
    fi
    if "$OUT/bin/$t" -max_total_time="$SECONDS_PER_TARGET" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$OUT/crashes/$t-" \
        "$OUT/corpus/$t" "${seeds[@]}" >"$OUT/logs/$t.log" 2>&1; then
        local runs took
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$OUT/logs/$t.log" | grep -o '[0-9]*$' || echo '?')
        took=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$OUT/logs/$t.log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "$SECONDS_PER_TARGET")
        echo "fuzz: $t: $runs executions in $took s, no crash"
    else
        echo "fuzz: $t: FAILED (log: $OUT/logs/$t.log; input in $OUT/crashes/)" >&2
        return 1
    fi
}

# FUZZ_JOBS targets at a time (default: one per core), each a single-threaded process; a failed target
# leaves a mark in the logs folder, read once all have ended.
jobs=${FUZZ_JOBS:-$(nproc)}
rm -f "$OUT"/logs/*.failed
for t in "${targets[@]}"; do
    while (( $(jobs -rp | wc -l) >= jobs )); do sleep 0.2; done
    { run_target "$t" || touch "$OUT/logs/$t.failed"; } &
done
wait
if ls "$OUT"/logs/*.failed >/dev/null 2>&1; then exit 1; fi
