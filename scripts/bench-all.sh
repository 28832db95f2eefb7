#!/usr/bin/env bash
# Regenerates the engine tables and the charts of BENCHMARKS.md, on this machine, in one go:
#   scripts/bench-all.sh            (about 30 minutes on 2 cores; SKIP_MICRO=1 skips Benchmarks/)
# Workloads are generated into $WORKLOAD_DIR (default /tmp) by `nearby generate --workload` if missing
# (byte for byte what the shared make_dataset.py writes, so other engines can run on the same files).
# Results go to bench-results/ (JSON documents, answers TSVs, tables.md, import timings) and charts/.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${WORKLOAD_DIR:-/tmp}
OUT=${OUT:-bench-results}
CHARTS=${CHARTS:-charts}
mkdir -p "$OUT" "$CHARTS"

swift build -c release --static-swift-stdlib --product nearby
N=.build/release/nearby

for spec in 10k:10000 100k:100000 1m:1000000 5m:5000000; do
    name=${spec%%:*} count=${spec##*:}
    [ -f "$W/w$name.queries.tsv" ] || $N generate --workload "$W/w$name" --count "$count" --queries 10000
done

# Radius queries, both engines in the same run. The sqlite engine and the 5M workload answer only the
# first queries of the file (--first): the whole file would take hours on this shared 2-core machine;
# the memory engine answers the same subset too, so each ratio compares the very same queries.
radius() {  # name engine first
    $N bench radius --engine "$2" --first "$3" --places "$W/w$1.places.tsv" --queries "$W/w$1.queries.tsv" \
        --answers "$OUT/radius-$1-$2.answers.tsv" > "$OUT/radius-$1-$2.json"
}
radius 10k memory 0;    radius 10k sqlite 0
radius 100k memory 0;   radius 100k sqlite 0
radius 1m memory 1000;  radius 1m sqlite 1000
radius 5m memory 1000
# Radius + category filter + title sort, page of 30, both engines, same first 1,000 queries.
for engine in memory sqlite; do
    $N bench radius --engine "$engine" --first 1000 --category 39 --sort title --limit 30 \
        --places "$W/w1m.places.tsv" --queries "$W/w1m.queries.tsv" > "$OUT/cattitle-1m-$engine.json"
done
$N bench radius --threads 2 --first 1000 --places "$W/w1m.places.tsv" --queries "$W/w1m.queries.tsv" \
    > "$OUT/radius-1m-memory-2threads.json"

# k nearest and bounding boxes, both engines, 100k and 1M (first 1000 queries).
for name in 100k 1m; do
    for engine in memory sqlite; do
        for cmd in knn bbox; do
            $N bench "$cmd" --engine "$engine" --first 1000 --places "$W/w$name.places.tsv" \
                --queries "$W/w$name.queries.tsv" > "$OUT/$cmd-$name-$engine.json"
        done
    done
done

# Sorting and filtering items (a)-(f), and the carousel pipeline.
for name in 100k 1m; do
    $N bench sortfilter --places "$W/w$name.places.tsv" --runs 3 > "$OUT/sortfilter-$name-memory.json"
done
$N bench carousel --events 1000000 --runs 5 --places "$W/w1m.places.tsv" > "$OUT/carousel.json"

# Import of the 1M workload TSV: into a fresh cache, then again (every record unchanged).
rm -f "$W/bench-import.sqlite"
TIMEFORMAT='%R s elapsed (%U s user, %S s system)'
for run in fresh re-import; do
    echo "$run:"; { time $N import --db "$W/bench-import.sqlite" "$W/w1m.places.tsv" 2>/dev/null ; } 2>&1
done > "$OUT/import-1m.txt"
rm -f "$W/bench-import.sqlite"

# Answers against an independent brute force (numpy), as the workload README defines them.
for name in 10k 100k 1m 5m; do
    python3 scripts/check-answers.py "$W/w$name.places.tsv" "$W/w$name.queries.tsv" "$OUT/radius-$name-memory.answers.tsv" 1000
done > "$OUT/brute-force-check.txt"

# Tables and charts.
$N bench report "$OUT"/*.json --svg "$CHARTS" > "$OUT/tables.md"

# Micro benchmarks (ordo-one/benchmark).
if [ -z "${SKIP_MICRO:-}" ]; then
    (cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --format markdown --no-progress) > "$OUT/micro.md"
fi
