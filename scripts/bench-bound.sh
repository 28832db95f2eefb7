#!/usr/bin/env bash
# Warm radius queries against the output-sensitive bound (BENCHMARKS.md, "Warm radius queries
# against the output-sensitive bound"): for each workload, ROUNDS interleaved rounds of
# `nearby bench bound` and `nearby bench radius` for every binary given (first 1,000 queries, one
# thread, memory engine, each query's time the median of 5), then whether the binaries' answers agree,
# then scipy's cKDTree on the last workload. Prints one line per measurement: p50 and p99 in µs.
#
#   scripts/bench-bound.sh OLD_BINARY NEW_BINARY        (any number of release binaries)
#
# Environment: WORKLOADS (prefixes, default "/tmp/w100k /tmp/w1m": nearby generate --workload PREFIX
# --count N), ROUNDS (default 3). Each binary's own `bench bound` is run: a change to the bound shows.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/bench-bound.sh BINARY..." >&2; exit 2; }
WORKLOADS=${WORKLOADS:-/tmp/w100k /tmp/w1m}
ROUNDS=${ROUNDS:-3}
ANSWERS=$(mktemp)
trap 'rm -f "$ANSWERS"' EXIT
p50() { python3 -c 'import json, sys; g = json.load(sys.stdin)["groups"][0]["latencyMicros"]; print(g["p50"], g["p99"])'; }
args() { echo --first 1000 --repeat 5 --places "$1.places.tsv" --queries "$1.queries.tsv"; }
for W in $WORKLOADS; do
  for r in $(seq 1 "$ROUNDS"); do
    echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg) $W round $r"
    for b in "$@"; do echo "  bound  $b $("$b" bench bound $(args "$W") 2>/dev/null | p50)"; done
    for b in "$@"; do echo "  radius $b $("$b" bench radius $(args "$W") 2>/dev/null | p50)"; done
  done
  for b in "$@"; do
    "$b" bench radius --first 1000 --places "$W.places.tsv" --queries "$W.queries.tsv" --answers "$ANSWERS" > /dev/null 2>&1
    echo "  answers $b sha1 $(sha1sum < "$ANSWERS" | cut -c1-12)"
  done
done
echo "cKDTree on $W (p50, p99 µs):"
python3 scripts/bench-ckdtree.py "$W.places.tsv" "$W.queries.tsv" --first 1000 2>/dev/null \
  | python3 -c 'import json, sys; g = json.loads(sys.stdin.read().splitlines()[-1])["latencyMicros"]; print(" ", g["p50"], g["p99"])'
