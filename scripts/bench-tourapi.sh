#!/usr/bin/env bash
# TourAPI's location list through `nearby serve` beside the server's own `/v1/places`, in the same run
# (BENCHMARKS.md, "TourAPI operations"): the workload's circles (radius capped at TourAPI's 20,000 m),
# first page of 30 in distance order, sent as
#   /v1/places?lat=…&lon=…&radius=…&limit=30                                     (JSON, every field)
#   /B551011/KorService2/locationBasedList2?mapX=…&mapY=…&radius=…&numOfRows=30&pageNo=1&_type=json
#   the same without _type (TourAPI's default, XML)
# by geoload (scripts/bench-http/geoload.c) at one kept-alive connection, ROUNDS rounds of the three
# in turn, SECONDS_PER_RUN each: q/s, p50 and p99 per run, one JSON line each, then the medians.
#
#   scripts/bench-tourapi.sh [OUT_DIR]          (default /tmp/bench-tourapi)
#
# Needs: a release build (swift build -c release --static-swift-stdlib), gcc, curl, python3.
# Environment: W (workload prefix, default /tmp/w1m; generated when missing), DB (default $W.sqlite;
# imported when missing), FIRST (circles, default 1000), ROUNDS (default 3), SECONDS_PER_RUN (default
# 10), PORT (default 18091), NEARBY (the binary, default .build/release/nearby).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/bench-tourapi}
W=${W:-/tmp/w1m}
DB=${DB:-$W.sqlite}
FIRST=${FIRST:-1000}
ROUNDS=${ROUNDS:-3}
RUN=${SECONDS_PER_RUN:-10}
PORT=${PORT:-18091}
NEARBY=${NEARBY:-.build/release/nearby}
mkdir -p "$OUT"
log() { echo "[bench-tourapi $(date -u +%H:%M:%S)] $*" >&2; }

. scripts/bench-http/workload-setup.sh

awk -v n="$FIRST" -F'\t' 'NR > 1 && NR <= n + 1 {
  r = $4 > 20000 ? 20000 : $4
  printf "/v1/places?lat=%s&lon=%s&radius=%s&limit=30\n", $2, $3, r > places
  printf "/B551011/KorService2/locationBasedList2?mapX=%s&mapY=%s&radius=%s&numOfRows=30&pageNo=1&_type=json\n", $3, $2, r > json
  printf "/B551011/KorService2/locationBasedList2?mapX=%s&mapY=%s&radius=%s&numOfRows=30&pageNo=1\n", $3, $2, r > xml
}' places="$OUT/places.txt" json="$OUT/tourapi-json.txt" xml="$OUT/tourapi-xml.txt" "$W.queries.tsv"

"$NEARBY" serve --db "$DB" --port "$PORT" --log-level warning 2> "$OUT/serve.log" &
SERVER=$!
trap 'kill $SERVER 2> /dev/null || true' EXIT
for _ in $(seq 600); do curl -fs "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.5; done

G=("$OUT/geoload" -P http -p "$PORT" -c 1)
# Warm the engine and each answer's writer.
for f in places tourapi-json tourapi-xml; do "${G[@]}" -f "$OUT/$f.txt" -t 2 > /dev/null; done
: > "$OUT/runs.jsonl"
for round in $(seq "$ROUNDS"); do
  for f in places tourapi-json tourapi-xml; do
    log "round $round: $f"
    "${G[@]}" -f "$OUT/$f.txt" -t "$RUN" \
      | python3 -c 'import json,sys; d = json.loads(sys.stdin.read()); d["name"] = sys.argv[1]; d["round"] = int(sys.argv[2]); print(json.dumps(d))' "$f" "$round" \
      | tee -a "$OUT/runs.jsonl"
  done
done
python3 - "$OUT/runs.jsonl" <<'PY' | tee "$OUT/summary.json"
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
out = {}
for name in ("places", "tourapi-json", "tourapi-xml"):
    mine = [r for r in runs if r["name"] == name]
    out[name] = {k: statistics.median(r[k] for r in mine) for k in mine[0] if isinstance(mine[0][k], (int, float)) and k != "round"}
for name in ("tourapi-json", "tourapi-xml"):
    out[name]["qpsToPlaces"] = round(out[name]["qps"] / out["places"]["qps"], 3)
print(json.dumps(out))
PY
