#!/usr/bin/env bash
# The personal layer on the 1M workload (BENCHMARKS.md, "Personal data"), on a copy of the workload's
# cache (the original is only read):
#  1. `nearby bench personal`: two generated users (2,000 bookmarks, 500 ratings, 200 memos, 300
#     visits over the country; 10,000 ratings within 20 km of Seoul City Hall); one thread, in process:
#     each workload circle bookmarked against the same circle with the rarest category; sorted by
#     -rating within 20 km; each user's backup restored into a fresh cache and backed up again (byte
#     identity and times); loading a user's data; the token check.
#  2. over HTTP (`nearby serve` on the copy, geoload -P http at one connection, keep-alive): a bookmark
#     PUT; the circles with bookmarked=true and the first user's token against the same circles with
#     the category (public), the whole server path; a keyword search with a token (its history
#     write) against the same search without one; and that a bookmark PUT is seen by the next query.
#
#   scripts/bench-personal.sh [OUT_DIR]          (default /tmp/bench-personal)
#
# Needs: a release build (swift build -c release --static-swift-stdlib), gcc, curl, python3.
# Environment: W (workload prefix, default /tmp/w1m; generated when missing), DB (the cache to copy,
# default $W.sqlite; imported when missing), FIRST (workload queries, default 1000), RUNS (runs of each
# query in process, default 5), SECONDS_PER_RUN (each HTTP run, default 10), PORT (default 18090),
# NEARBY (the binary, default .build/release/nearby).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/bench-personal}
W=${W:-/tmp/w1m}
DB=${DB:-$W.sqlite}
FIRST=${FIRST:-1000}
RUNS=${RUNS:-5}
RUN=${SECONDS_PER_RUN:-10}
PORT=${PORT:-18090}
NEARBY=${NEARBY:-.build/release/nearby}
mkdir -p "$OUT"
log() { echo "[bench-personal $(date -u +%H:%M:%S)] $*" >&2; }

. scripts/bench-http/workload-setup.sh
C=$OUT/w.sqlite
log "copying $DB (and its snapshot) to $C"
rm -f "$C" "$C"-wal "$C"-shm "$C".nearby-index
cp "$DB" "$C"
[ -f "$DB-wal" ] && cp "$DB-wal" "$C-wal"
[ -f "$DB.nearby-index" ] && cp "$DB.nearby-index" "$C.nearby-index"

log "in process: nearby bench personal (first $FIRST queries, $RUNS runs each)"
"$NEARBY" bench personal --db "$C" --queries "$W.queries.tsv" --first "$FIRST" --runs "$RUNS" | tee "$OUT/inprocess.jsonl"

log "over HTTP: nearby serve on the copy, port $PORT"
# A token for the in-process run's first user (its items have no user row yet).
TOKEN=$("$NEARBY" user add bench --db "$C")
"$NEARBY" serve --db "$C" --port "$PORT" --log-level warning --max-limit 1000000 2> "$OUT/serve.log" &
SERVER=$!
trap 'kill $SERVER 2> /dev/null || true' EXIT
for _ in $(seq 600); do curl -fs "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.5; done
curl -fs "http://127.0.0.1:$PORT/healthz" > /dev/null || { echo "the server did not start" >&2; cat "$OUT/serve.log" >&2; exit 1; }

# The category of the in-process run (the rarest), and the request files.
CATEGORY=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["name"].startswith("category "): print(d["name"].split()[1])' "$OUT/inprocess.jsonl")
awk -v n="$FIRST" -F'\t' 'NR > 1 && NR <= n + 1 {
  limit = $5 == 0 ? 1000000 : $5
  printf "/v1/places?lat=%s&lon=%s&radius=%s&limit=%s&fields=id,distance\n", $2, $3, $4, limit }' \
  "$W.queries.tsv" > "$OUT/circles.txt"
sed "s/\$/\&category=$CATEGORY/" "$OUT/circles.txt" > "$OUT/category.txt"
sed 's/$/\&bookmarked=true/' "$OUT/circles.txt" > "$OUT/bookmarked.txt"
# A keyword (동, a syllable of many titles) in each circle, first page of 30.
awk -v n="$FIRST" -F'\t' 'NR > 1 && NR <= n + 1 {
  printf "/v1/places?lat=%s&lon=%s&radius=%s&limit=30&fields=id,distance&keyword=%%EB%%8F%%99\n", $2, $3, $4 }' \
  "$W.queries.tsv" > "$OUT/keyword.txt"
awk -F'\t' 'NR > 1 && NR % 500 == 0 { print "/v1/me/bookmarks/" $1 }' "$W.places.tsv" > "$OUT/bookmark-puts.txt"
awk -F'\t' 'NR > 1 && NR % 37 == 0 && n++ < 200 { print $1 }' "$W.places.tsv" > "$OUT/seen-ids.txt"

G=("$OUT/geoload" -P http -p "$PORT" -c 1 -t "$RUN")
AUTH="Authorization: Bearer $TOKEN"
: > "$OUT/http.jsonl"
http() {
  local name=$1; shift
  log "HTTP: $name"
  "${G[@]}" "$@" | python3 -c 'import json,sys; d = json.loads(sys.stdin.read()); d["name"] = sys.argv[1]; print(json.dumps(d))' "$name" \
    | tee -a "$OUT/http.jsonl"
}
# Warm the server's engine and readers first (the first query of a generation opens its lanes).
"${G[@]}" -f "$OUT/circles.txt" -t 2 > /dev/null
http "circle (public)" -f "$OUT/circles.txt"
http "category $CATEGORY (public)" -f "$OUT/category.txt"
http "bookmarked (token)" -f "$OUT/bookmarked.txt" -H "$AUTH"
http "keyword, anonymous" -f "$OUT/keyword.txt"
http "keyword with a token (history recorded)" -f "$OUT/keyword.txt" -H "$AUTH"
http "bookmark PUT" -f "$OUT/bookmark-puts.txt" -m PUT -H "$AUTH"

log "HTTP: a bookmark PUT is seen by the next query"
python3 - "$PORT" "$TOKEN" "$OUT/seen-ids.txt" <<'PY' | tee -a "$OUT/http.jsonl"
import http.client, json, sys, time
port, token = int(sys.argv[1]), sys.argv[2]
ids = open(sys.argv[3]).read().split()
h = {"Authorization": f"Bearer {token}"}
c = http.client.HTTPConnection("127.0.0.1", port)
seen, times = 0, []
for pid in ids:
    t = time.perf_counter()
    c.request("PUT", f"/v1/me/bookmarks/{pid}?list=seen", headers=h); r = c.getresponse(); r.read()
    assert r.status == 200, (pid, r.status)
    c.request("GET", "/v1/places?bookmarked-in=seen&sort=-bookmarked&limit=1&fields=id", headers=h)
    r = c.getresponse(); body = json.loads(r.read())
    times.append((time.perf_counter() - t) * 1e6)
    seen += body["places"] and body["places"][0]["id"] == pid
times.sort()
print(json.dumps({"name": "PUT then query (seen by the next query)", "pairs": len(times), "seen": seen,
                  "p50_us_pair": round(times[len(times) // 2], 1)}))
PY
kill "$SERVER" 2> /dev/null || true
wait "$SERVER" 2> /dev/null || true
trap - EXIT

log "summary"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(f"{out}/inprocess.jsonl")] + [json.loads(l) for l in open(f"{out}/http.jsonl")]
for d in rows:
    print(json.dumps(d, ensure_ascii=False))
PY
