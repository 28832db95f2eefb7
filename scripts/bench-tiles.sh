#!/usr/bin/env bash
# Latency of `GET /tiles/{z}/{x}/{y}.mvt` on a warm release server over the default 100k cache
# (`nearby generate`): for zooms 0, 6, 10 and 14, the tiles over the places (at 10 and 14, a sample
# around five cities), each asked once to warm the server (region layers, pages, the whole answers of
# tiles below zoom 12, which the server keeps per generation and query), then asked ROUNDS times over
# one keep-alive connection with Accept-Encoding: gzip: p50, p99 and the mean size; and made afresh
# (fresh_*: each round another filter that every place passes, so no places layer is kept yet).
#
#   scripts/bench-tiles.sh [OUT_DIR]          (default /tmp/bench-tiles)
#
# Needs a release build (swift build -c release) and python3. Environment: DB (cache, default
# $OUT/g100k.sqlite; generated and imported when missing), ROUNDS (default 20), PORT (default 18090),
# NEARBY (the binary, default .build/release/nearby), QUERY (filters added to every tile, default none).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/bench-tiles}
DB=${DB:-$OUT/g100k.sqlite}
ROUNDS=${ROUNDS:-20}
PORT=${PORT:-18090}
NEARBY=${NEARBY:-.build/release/nearby}
QUERY=${QUERY:-}
mkdir -p "$OUT"
log() { echo "[bench-tiles $(date -u +%H:%M:%S)] $*" >&2; }

[ -x "$NEARBY" ] || { echo "no release build: swift build -c release" >&2; exit 1; }
if [ ! -f "$DB" ]; then
  log "generating 100,000 places into $DB"
  "$NEARBY" generate --count 100000 > "$OUT/g100k.tsv"
  "$NEARBY" import --db "$DB" "$OUT/g100k.tsv" > "$OUT/import.json"
fi
"$NEARBY" serve --db "$DB" --port "$PORT" --log-level warning 2> "$OUT/server.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://127.0.0.1:$PORT/healthz" && break
  sleep 0.1
done

python3 - "$PORT" "$ROUNDS" "$QUERY" <<'EOF' | tee "$OUT/results.jsonl"
import http.client, json, math, sys, time
port, rounds, query = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

def tile(lon, lat, z):
    n = 1 << z
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    return z, x, y

cities = [(126.978, 37.5665), (129.075, 35.18), (126.53, 33.5), (127.38, 36.35), (128.6, 35.87)]
def tiles(z):
    if z == 0: return [(0, 0, 0)]
    if z == 6: return sorted({tile(lon, lat, 6) for lon in (125, 127, 129, 131) for lat in (33.5, 35.5, 37.5)})
    out = set()
    for lon, lat in cities:
        z0, x0, y0 = tile(lon, lat, z)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                out.add((z, x0 + dx, y0 + dy))
    return sorted(out)

conn = http.client.HTTPConnection('127.0.0.1', port)
def get(path):
    start = time.perf_counter()
    conn.request('GET', path, headers={'Accept-Encoding': 'gzip'})
    r = conn.getresponse()
    body = r.read()
    assert r.status == 200, (path, r.status, body[:200])
    return time.perf_counter() - start, len(body)

def quantile(times, f):
    times = sorted(times)
    return round(times[min(len(times) - 1, int(f * len(times)))] * 1000, 2)

for z in (0, 6, 10, 14):
    def paths(extra):
        q = '&'.join(p for p in (query, extra) if p)
        return ['/tiles/%d/%d/%d.mvt%s' % (z, x, y, ('?' + q) if q else '') for z, x, y in tiles(z)]
    for p in paths(''): get(p)  # warm: regions layers, pages; coarse tiles' places layers kept
    warm, sizes = [], []
    for _ in range(rounds):
        for p in paths(''):
            t, n = get(p)
            warm.append(t)
            sizes.append(n)
    # Made afresh: a filter every place passes, another day each round, so no layer is kept yet.
    cold = []
    for k in range(min(rounds, 28)):
        for p in paths('created-since=1990-01-%02d' % (k + 1)):
            cold.append(get(p)[0])
    print(json.dumps({'zoom': z, 'tiles': len(paths('')), 'requests': len(warm), 'p50_ms': quantile(warm, 0.5),
                      'p99_ms': quantile(warm, 0.99), 'fresh_p50_ms': quantile(cold, 0.5),
                      'fresh_p99_ms': quantile(cold, 0.99), 'mean_gzip_bytes': int(sum(sizes) / len(sizes))}))
EOF
