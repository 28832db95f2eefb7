#!/usr/bin/env bash
# Regenerates every number and chart in BENCHMARKS.md, on this machine, in one go:
#   scripts/bench-all.sh            (about 30 minutes on 2 cores; set SKIP_MICRO=1 to skip Benchmarks/)
# Workloads are generated into $WORKLOAD_DIR (default /tmp) by the shared make_dataset.py if missing.
# Results go to bench-results/ (JSON documents, answers TSVs, tables.md, import timings) and charts/.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${WORKLOAD_DIR:-/tmp}
MAKE_DATASET=${MAKE_DATASET:-/work/shared/workload/make_dataset.py}
OUT=bench-results
mkdir -p "$OUT" charts

swift build -c release --product nearby
N=.build/release/nearby

for spec in 10k:10000 100k:100000 1m:1000000 5m:5000000; do
    name=${spec%%:*} count=${spec##*:}
    [ -f "$W/w$name.queries.tsv" ] || python3 "$MAKE_DATASET" "$count" 10000 "$W/w$name"
done

# Radius queries: both engines at every size up to 1M, the memory engine at 5M (see BENCHMARKS.md).
for name in 10k 100k 1m 5m; do
    engines="memory sqlite"; [ "$name" = 5m ] && engines=memory
    for engine in $engines; do
        $N bench radius --engine "$engine" --places "$W/w$name.places.tsv" --queries "$W/w$name.queries.tsv" \
            --answers "$OUT/radius-$name-$engine.answers.tsv" > "$OUT/radius-$name-$engine.json"
    done
done
$N bench radius --threads 2 --places "$W/w1m.places.tsv" --queries "$W/w1m.queries.tsv" > "$OUT/radius-1m-memory-2threads.json"

# k nearest and bounding boxes, both engines, 100k and 1M.
for name in 100k 1m; do
    for engine in memory sqlite; do
        for cmd in knn bbox; do
            $N bench "$cmd" --engine "$engine" --places "$W/w$name.places.tsv" --queries "$W/w$name.queries.tsv" \
                > "$OUT/$cmd-$name-$engine.json"
        done
    done
done

# Sorting and filtering items (a)-(f), and the carousel pipeline.
for name in 100k 1m; do
    $N bench sortfilter --places "$W/w$name.places.tsv" --runs 5 > "$OUT/sortfilter-$name-memory.json"
done
$N bench carousel --events 1000000 --runs 5 > "$OUT/carousel.json"

# Import of the 1M workload TSV: into a fresh cache, then again (every record unchanged).
rm -f "$W/bench-import.sqlite"
{ echo "fresh:"; { /usr/bin/time -f "%e s elapsed, %M KiB max RSS" $N import --db "$W/bench-import.sqlite" "$W/w1m.places.tsv" 2>&1 >&3 | grep -v '^/' ; } 3>&1
  echo "re-import:"; { /usr/bin/time -f "%e s elapsed, %M KiB max RSS" $N import --db "$W/bench-import.sqlite" "$W/w1m.places.tsv" 2>&1 >&3 | grep -v '^/' ; } 3>&1
} > "$OUT/import-1m.txt"
rm -f "$W/bench-import.sqlite"

# Tables and charts.
$N bench report "$OUT"/*.json --svg charts > "$OUT/tables.md"

# Micro benchmarks (ordo-one/benchmark).
if [ -z "${SKIP_MICRO:-}" ]; then
    (cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --format markdown --no-progress) > "$OUT/micro.md"
fi
