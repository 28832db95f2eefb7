#!/usr/bin/env bash
# One-shot query cost, whole process, on the 1M workload: the snapshot engine (default) against the
# memory and sqlite engines and the sqlite3 CLI on the equivalent R*Tree query; and what writing
# the snapshot adds to the import. Numbers go to BENCHMARKS.md ("Snapshot").
#
# Needs: swift build -c release --static-swift-stdlib; hyperfine; /usr/bin/time (GNU); sqlite3;
# the workloads: nearby generate --workload /tmp/w1m --count 1000000 (and /tmp/w100k --count 100000);
# numpy and scipy for the cKDTree comparison (scripts/bench-ckdtree.py installs them when missing)
set -euo pipefail
N=${N:-.build/release/nearby}
W=${W:-/tmp/w1m.places.tsv}
DB=${DB:-/tmp/snap1m.sqlite}
RUNS=${RUNS:-20}
OUT=${OUT:-/tmp/bench-snapshot}
mkdir -p "$OUT"

echo "== import (fresh cache), snapshot written at its end"
rm -f "$DB" "$DB"-* "$DB".nearby-index*
/usr/bin/time -f "import: %e s wall, %M KB max RSS" "$N" import --db "$DB" "$W" > /dev/null
ls -l "$DB" "$DB.nearby-index"
echo "== the snapshot alone, three times (removed, then rebuilt by a query)"
for i in 1 2 3; do
  rm -f "$DB.nearby-index"
  /usr/bin/time -f "rebuild + query: %e s wall, %M KB max RSS" "$N" query --db "$DB" --lat 37.5665 --lon 126.978 --radius 1000 --limit 20 > /dev/null
done

Q1="--lat 37.5665 --lon 126.978 --radius 1000 --limit 20"
Q2="--lat 37.5665 --lon 126.978 --radius 20000 --category 39 --sort title --limit 30"
HAV="2*6371008.8*asin(sqrt(pow(sin(radians(p.lat-37.5665)/2),2)+cos(radians(37.5665))*cos(radians(p.lat))*pow(sin(radians(p.lon-126.978)/2),2)))"
S1="SELECT * FROM (SELECT p.*, $HAV AS distance FROM places_rtree r JOIN places p USING(rowid) WHERE r.maxLat >= 37.5575 AND r.minLat <= 37.5755 AND r.maxLon >= 126.9665 AND r.minLon <= 126.9895) WHERE distance <= 1000 ORDER BY distance, CAST(id AS INTEGER) LIMIT 20"
S2="SELECT * FROM (SELECT p.*, $HAV AS distance FROM places_rtree r JOIN places p USING(rowid) WHERE r.maxLat >= 37.3855 AND r.minLat <= 37.7475 AND r.maxLon >= 126.750 AND r.minLon <= 127.206 AND p.category = 39) WHERE distance <= 20000 ORDER BY title, CAST(id AS INTEGER) LIMIT 30"

echo "== answers agree"
for q in "$Q1" "$Q2"; do
  for e in snapshot memory sqlite; do "$N" query --db "$DB" $q --engine $e | sha1sum; done
done

for n in 1 2; do
  q=Q$n; s=S$n
  hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$OUT/q$n.json" \
    -n snapshot "$N query --db $DB ${!q}" \
    -n sqlite "$N query --db $DB ${!q} --engine sqlite" \
    -n sqlite3-cli "sqlite3 -readonly $DB \"${!s}\""
  # The memory engine loads the whole cache (seconds per run): fewer runs.
  hyperfine -N --warmup 1 --runs "${RUNS_MEMORY:-5}" --export-json "$OUT/q$n-memory.json" \
    -n memory "$N query --db $DB ${!q} --engine memory"
  for cmd in "$N query --db $DB ${!q}" "$N query --db $DB ${!q} --engine memory" \
             "$N query --db $DB ${!q} --engine sqlite"; do
    for i in 1 2 3 4 5; do /usr/bin/time -f "%M" $cmd 2>&1 > /dev/null | tail -1; done | sort -n | sed -n 3p | sed "s|^|max RSS KB (median of 5): |; s|\$| : $cmd|"
  done
  for i in 1 2 3 4 5; do /usr/bin/time -f "%M" sqlite3 -readonly "$DB" "${!s}" 2>&1 > /dev/null | tail -1; done | sort -n | sed -n 3p | sed "s|^|max RSS KB (median of 5): |; s|\$| : sqlite3 Q$n|"
done

echo "== ten processes at once on the same snapshot: resident (Rss) vs proportional (Pss) memory"
# Each answers the workload's first 1,000 radius queries (long enough to be sampled while running).
head -1001 "${QUERIES:-/tmp/w1m.queries.tsv}" > "$OUT/queries-1k.tsv"
pids=()
for i in $(seq 10); do "$N" query --db "$DB" --queries "$OUT/queries-1k.tsv" --fields qid,id > /dev/null & pids+=($!); done
sleep "${SAMPLE_AFTER:-3}"
for p in "${pids[@]}"; do grep -E "^(Rss|Pss):" /proc/$p/smaps_rollup | awk '{printf "%s %s  ", $1, $2}'; echo; done | tee "$OUT/parallel.txt"
awk '{r+=$2; p+=$4} END {print "sum over 10 processes: Rss", r, "KB, Pss", p, "KB"}' "$OUT/parallel.txt"
wait

echo "== warm radius queries, one thread, first 1,000: the output-sensitive bound, Nearby, scipy's cKDTree"
for w in ${WARM_WORKLOADS:-/tmp/w100k /tmp/w1m}; do
  b=$(basename "$w")
  "$N" bench bound --first 1000 --places "$w.places.tsv" --queries "$w.queries.tsv" > "$OUT/$b-bound.json"
  "$N" bench radius --first 1000 --places "$w.places.tsv" --queries "$w.queries.tsv" > "$OUT/$b-radius.json"
  python3 scripts/bench-ckdtree.py "$w.places.tsv" "$w.queries.tsv" --first 1000 > "$OUT/$b-ckdtree.json"
  python3 - "$OUT/$b" <<'PY'
import json, sys
o = sys.argv[1]
load = lambda k: json.load(open(f"{o}-{k}.json"))
b, r, c = load("bound"), load("radius"), load("ckdtree")
lat = lambda d: next(g for g in d["groups"] if g["name"] == "all")["latencyMicros"]
lb, lr, lc = lat(b), lat(r), c["latencyMicros"]
same = sum((x["total"], x["checksum"]) == (y["total"], y["checksum"]) == (z["total"], z["checksum"])
           for x, y, z in zip(b["answers"], r["answers"], c["answers"]))
print(f"{o}: p50 bound {lb['p50']:.2f} nearby {lr['p50']:.2f} ckdtree {lc['p50']:.2f} µs; "
      f"nearby/ckdtree p50 {lr['p50'] / lc['p50']:.3f} p99 {lr['p99'] / lc['p99']:.3f}; "
      f"nearby/bound p50 {lr['p50'] / lb['p50']:.2f}; same answers {same} of {len(r['answers'])}")
PY
done
