#!/usr/bin/env bash
# A long soak of `nearby serve` (BENCHMARKS.md, "HTTP server"): a fresh server, 10 s of the
# category paths and 10 s of the radius paths at 64 connections, then SECONDS of the radius paths at 64
# connections, the server's VmRSS, RssAnon, RssFile and thread count every 5 s; the server is then left
# idle for malloc_stats (gdb -p PID -batch -ex 'call (void)malloc_stats()', printed on its stderr) and
# stopped by its PID.
#
#   scripts/bench-http/soak.sh NEARBY DB PATHS_DIR PORT OUT_PREFIX [SECONDS=300] [ENV=VALUE ...]
#
# PATHS_DIR holds paths-category.txt and paths-radius.txt (as scripts/bench-http.sh writes them);
# ENV=VALUE pairs go to the server's environment (e.g. MALLOC_ARENA_MAX=2).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 5 ] || { echo "usage: $0 NEARBY DB PATHS_DIR PORT OUT_PREFIX [SECONDS] [ENV=VALUE ...]" >&2; exit 2; }
NEARBY=$1 DB=$2 PATHS=$3 PORT=$4 OUT=$5 SECS=${6:-300}
shift $(( $# >= 6 ? 6 : 5 ))
env "$@" "$NEARBY" serve --db "$DB" --host 127.0.0.1 --port "$PORT" --engine snapshot --max-limit 1000000 \
  --log-level warning 2> "$OUT.serve.log" &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.1; done
load() {  # KIND SECONDS
  NEARBY_PATHS="$PATHS/paths-$1.txt" wrk -t2 -c64 -d"$2"s --timeout 10s -s scripts/bench-http/cycle.lua \
    "http://127.0.0.1:$PORT" | tail -1 >> "$OUT.wrk"
}
load category 10
load radius 10
( t=0; while kill -0 $PID 2>/dev/null && [ $t -le $((SECS + 5)) ]; do
    echo "$t $(awk '/^(VmRSS|RssAnon|RssFile|Threads):/ {printf "%s ", $2}' /proc/$PID/status)"; sleep 5; t=$((t + 5))
  done ) > "$OUT.rss" &
SAMPLER=$!
load radius "$SECS"
wait $SAMPLER || true
echo "server $PID idle for malloc_stats; press Enter to stop it" >&2
read -r _ || true
