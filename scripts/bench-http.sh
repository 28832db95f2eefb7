#!/usr/bin/env bash
# HTTP benchmarks of `nearby serve` against Redis 7 GEOSEARCH on the shared 1M workload
# (BENCHMARKS.md, "HTTP server"). Loopback only; every load loop is bounded in time and count;
# the server and Redis are started here and stopped by their PIDs. Lines of results.jsonl: the answers'
# checks; the machine's round trip at one and two connections (floor-server.c, a do-nothing C HTTP
# server, under geoload.c; and Redis's PING); `/healthz` at 1/2/16/64 connections (Nearby's HTTP
# floor); then each query kind, Nearby (wrk) and Redis (geoload) at each concurrency (at one connection
# Nearby also under geoload, the client Redis is timed with), then the soak.
#
#   scripts/bench-http.sh [OUT_DIR]          (default /tmp/bench-http)
#
# Needs: a release build (swift build -c release --static-swift-stdlib), wrk and redis-server (apt-get install wrk
# redis-server), gcc, python3 with numpy. Environment: W (workload prefix, default /tmp/w1m;
# generated when missing), DB (cache, default $W.sqlite; imported when missing), SECONDS_PER_RUN
# (default 10), SOAK_SECONDS (default 60; 0 skips the soak), ENGINE (the server's --engine, default
# memory), CHECK (1: check every answer first, the default; 0 skips), FIRST (check only the first
# N queries; default all 10,000), PORT (default 18080),
# REDIS_PORT (default 16379), NEARBY (the binary; default .build/release/nearby: another build, e.g.
# an older commit's, gives before/after figures against the same Redis), PIN (1: the server runs
# with --pin-event-loops, the default, as on a machine of its own; 0 without).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/bench-http}
W=${W:-/tmp/w1m}
DB=${DB:-$W.sqlite}
RUN=${SECONDS_PER_RUN:-10}
SOAK=${SOAK_SECONDS:-60}
PORT=${PORT:-18080}
ENGINE=${ENGINE:-memory}
CHECK=${CHECK:-1}
FIRST=${FIRST:-0}
REDIS_PORT=${REDIS_PORT:-16379}
NEARBY=${NEARBY:-.build/release/nearby}
PIN=${PIN:-1}
HERE=scripts/bench-http
mkdir -p "$OUT"
RESULTS=$OUT/results.jsonl
: > "$RESULTS"
log() { echo "[bench-http $(date -u +%H:%M:%S)] $*" >&2; }

[ -x "$NEARBY" ] || { echo "no release build: swift build -c release --static-swift-stdlib" >&2; exit 1; }
command -v wrk >/dev/null && command -v redis-server >/dev/null || { echo "apt-get install wrk redis-server" >&2; exit 1; }
for tool in geoload floor-server; do gcc -O2 -pthread -o "$OUT/$tool" "$HERE/$tool.c"; done

if [ ! -f "$W.places.tsv" ]; then
  log "generating the 1M workload at $W"
  "$NEARBY" generate --workload "$W" --count 1000000
fi
if [ ! -f "$DB" ]; then
  log "importing $W.places.tsv into $DB"
  "$NEARBY" import --db "$DB" "$W.places.tsv" > "$OUT/import.json"
fi
if [ "$FIRST" -gt 0 ]; then head -n $((FIRST + 1)) "$W.queries.tsv" > "$OUT/check-queries.tsv"; else cp "$W.queries.tsv" "$OUT/check-queries.tsv"; fi
CQ=$OUT/check-queries.tsv
for kind in radius category; do
  python3 "$HERE/workload.py" redis-commands "$CQ" $kind > "$OUT/redis-check-$kind.txt"
  python3 "$HERE/workload.py" paths "$W.queries.tsv" $kind > "$OUT/paths-$kind.txt"
  python3 "$HERE/workload.py" redis-commands "$W.queries.tsv" $kind > "$OUT/redis-$kind.txt"
done

SERVER_PID= REDIS_PID= FLOOR_PID=
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  [ -n "$FLOOR_PID" ] && kill "$FLOOR_PID" 2>/dev/null || true
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null || true
}
trap cleanup EXIT

PIN_FLAG=$([ "$PIN" = 1 ] && echo --pin-event-loops || true)
log "starting nearby serve --engine $ENGINE $PIN_FLAG on 127.0.0.1:$PORT"
"$NEARBY" serve --db "$DB" --host 127.0.0.1 --port $PORT --engine $ENGINE --max-limit 1000000 --log-level warning $PIN_FLAG 2> "$OUT/serve.log" &
SERVER_PID=$!
for _ in $(seq 1 1200); do curl -sf "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PORT/healthz" >&2

log "starting redis-server on 127.0.0.1:$REDIS_PORT and loading the places"
redis-server --bind 127.0.0.1 --port $REDIS_PORT --save "" --appendonly no --daemonize no > "$OUT/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 1 100); do redis-cli -p $REDIS_PORT ping > /dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p $REDIS_PORT flushall > /dev/null
python3 "$HERE/workload.py" redis-load "$W.places.tsv" | redis-cli -p $REDIS_PORT --pipe > "$OUT/redis-load.log"
redis-cli -p $REDIS_PORT zcard places >&2

# 1. Correctness: every query once, through HTTP and through Redis.
[ "$CHECK" = 1 ] && for kind in radius category; do
  log "answers through HTTP ($kind)"
  python3 "$HERE/workload.py" answers $PORT "$CQ" $kind "$OUT/nearby-$kind.tsv" >&2
  "$OUT/geoload" -p $REDIS_PORT -f "$OUT/redis-check-$kind.txt" -d "$OUT/redis-ids-$kind.txt"
done
if [ "$CHECK" = 1 ]; then
  log "checking against the brute force"
  python3 scripts/check-answers.py "$W.places.tsv" "$CQ" "$OUT/nearby-radius.tsv" | tee "$OUT/check-radius.txt" >&2 || true
  python3 "$HERE/workload.py" check-category "$W.places.tsv" "$CQ" "$OUT/nearby-category.tsv" | tee "$OUT/check-category.txt" >&2 || true
fi
[ "$CHECK" = 1 ] && for kind in radius category; do
  python3 "$HERE/workload.py" compare-redis "$CQ" $kind "$OUT/redis-ids-$kind.txt" $PORT >> "$RESULTS"
done

# 2. Throughput and latency, Nearby then Redis at each concurrency, in one run. Each line also gets
# the server's own CPU time a request (user + system, from /proc/PID/stat over the run): what a
# request costs the server, whatever the load generator and the machine's other work take.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
with_cpu() {  # PID TICKS_BEFORE: appends "server_cpu_us_per_request" to the JSON line on stdin
  python3 -c 'import json, os, sys
d = json.loads(sys.stdin.readline()); pid, before = sys.argv[1], int(sys.argv[2])
after = sum(int(x) for x in open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[11:13])
d["server_cpu_us_per_request"] = round((after - before) * 1e6 / os.sysconf("SC_CLK_TCK") / max(1, d["requests"]), 1)
print(json.dumps(d, separators=(",", ":")))' "$1" "$2"
}
# First the machine's floor: a do-nothing C HTTP server under the C client, and Redis's PING, at one and
# two connections: what one request costs here before any server does anything (at one connection
# mostly the wake-ups of idle cores).
echo /healthz > "$OUT/paths-healthz.txt"
echo PING > "$OUT/redis-ping.txt"
"$OUT/floor-server" $((PORT + 1)) & FLOOR_PID=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$((PORT + 1))/" > /dev/null && break; sleep 0.1; done
for c in 1 2; do
  log "floor, $c connections: floor-server, then redis PING (geoload)"
  "$OUT/geoload" -P http -p $((PORT + 1)) -f "$OUT/paths-healthz.txt" -c $c -t $RUN -n 4000000 \
    | sed "s/^{/{\"system\":\"floor-server\",\"kind\":\"floor\",\"client\":\"geoload\",/" >> "$RESULTS"
  "$OUT/geoload" -p $REDIS_PORT -f "$OUT/redis-ping.txt" -c $c -t $RUN -n 4000000 \
    | sed "s/^{/{\"system\":\"redis\",\"kind\":\"ping\",/" >> "$RESULTS"
done
kill "$FLOOR_PID"; wait "$FLOOR_PID" 2>/dev/null || true; FLOOR_PID=
# Then Nearby's HTTP floor: `/healthz` (no query, a body of a few bytes) through the same wrk script at
# each concurrency, the most q/s any request can reach on this server and load generator (no Redis twin).
for kind in healthz radius category; do
  for c in 1 2 16 64; do
    t=$(( c < 2 ? 1 : 2 ))
    log "$kind, $c connections: nearby (wrk)$([ $kind = healthz ] || echo ', then redis')"
    before=$(cpu_ticks $SERVER_PID)
    NEARBY_PATHS="$OUT/paths-$kind.txt" wrk -t$t -c$c -d${RUN}s --timeout 10s -s "$HERE/cycle.lua" \
      "http://127.0.0.1:$PORT" | tail -1 | with_cpu $SERVER_PID "$before" \
      | sed "s/^{/{\"system\":\"nearby-$ENGINE\",\"kind\":\"$kind\",\"connections\":$c,/" >> "$RESULTS"
    if [ $c = 1 ]; then  # the one client again, as Redis's is: geoload, blocking C, no Lua
      before=$(cpu_ticks $SERVER_PID)
      "$OUT/geoload" -P http -p $PORT -f "$OUT/paths-$kind.txt" -c 1 -t $RUN -n 2000000 | with_cpu $SERVER_PID "$before" \
        | sed "s/^{/{\"system\":\"nearby-$ENGINE\",\"kind\":\"$kind\",\"client\":\"geoload\",/" >> "$RESULTS"
    fi
    [ $kind = healthz ] && continue
    before=$(cpu_ticks $REDIS_PID)
    "$OUT/geoload" -p $REDIS_PORT -f "$OUT/redis-$kind.txt" -c $c -t $RUN -n 2000000 | with_cpu $REDIS_PID "$before" \
      | sed "s/^{/{\"system\":\"redis\",\"kind\":\"$kind\",/" >> "$RESULTS"
  done
done
kill "$REDIS_PID"; wait "$REDIS_PID" 2>/dev/null || true; REDIS_PID=

# 3. Soak: 64 connections for $SOAK s, the server's resident memory sampled every second.
[ "$SOAK" -gt 0 ] || { log "done: $RESULTS"; cat "$RESULTS"; exit 0; }
log "soak: 64 connections, $SOAK s"
( for s in $(seq 1 $((SOAK + 2))); do
    echo "$s $(awk '/^(VmRSS|RssAnon|RssFile):/ {printf "%s ", $2}' /proc/$SERVER_PID/status)"; sleep 1
  done ) > "$OUT/soak-rss.txt" &
SAMPLER=$!
NEARBY_PATHS="$OUT/paths-radius.txt" wrk -t2 -c64 -d${SOAK}s --timeout 10s -s "$HERE/cycle.lua" \
  "http://127.0.0.1:$PORT" | tail -1 | sed "s/^{/{\"system\":\"nearby-$ENGINE\",\"kind\":\"soak\",\"connections\":64,/" >> "$RESULTS"
wait $SAMPLER || true
# VmRSS, and its two parts: RssAnon (the heap: what a leak would grow) and RssFile (mapped pages of the
# snapshot, faulted in as queries first touch them: bounded by the file's size).
awk 'NR==10 {a=$2; an=$3} {if ($2>m) m=$2; if ($3>am) am=$3; last=$2; lan=$3; lf=$4} END {printf "{\"soak_rss_kb_at_10s\":%d,\"soak_rss_kb_max\":%d,\"soak_rss_kb_end\":%d,\"soak_anon_kb_at_10s\":%d,\"soak_anon_kb_max\":%d,\"soak_anon_kb_end\":%d,\"soak_file_kb_end\":%d}\n", a, m, last, an, am, lan, lf}' \
  "$OUT/soak-rss.txt" >> "$RESULTS"
curl -s "http://127.0.0.1:$PORT/metrics" > "$OUT/metrics.txt"
log "done: $RESULTS"
cat "$RESULTS"
