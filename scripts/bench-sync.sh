#!/usr/bin/env bash
# A full crawl of PLACES (default 60,000) replayed TourAPI places by `nearby sync tourapi`, against
# curl fetching the same pages in a loop from the same replay server (`nearby replay`, loopback):
# what the sync costs beyond moving the bytes (parsing, the import, one transaction a page, the
# checkpoint, the snapshot). Prints one line each: seconds, and the sync's peak RSS.
#
#   scripts/bench-sync.sh                 (NEARBY_BIN=path to use a built binary; default: a release build)
#
# Environment: PLACES (default 60000), PAGE (numOfRows, default 1000), ROUNDS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
PLACES=${PLACES:-60000}
PAGE=${PAGE:-1000}
ROUNDS=${ROUNDS:-3}
if [ -z "${NEARBY_BIN:-}" ]; then
    swift build -c release --product nearby >&2
    NEARBY_BIN=.build/release/nearby
fi
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
"$NEARBY_BIN" replay --places "$PLACES" > "$tmp/port" &
pid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(head -1 "$tmp/port")
[ -n "$port" ] || { echo "bench-sync: the replay server did not start" >&2; exit 1; }
base="http://127.0.0.1:$port/B551011"
pages=$(( (PLACES + PAGE - 1) / PAGE ))
now() { date +%s.%N; }
for round in $(seq "$ROUNDS"); do
    start=$(now)
    for p in $(seq "$pages"); do
        curl -sf -o /dev/null \
            "$base/KorService2/areaBasedList2?numOfRows=$PAGE&pageNo=$p&arrange=C&MobileOS=ETC&MobileApp=Nearby&_type=json&serviceKey=k"
    done
    curl_s=$(echo "$(now) - $start" | bc)
    rm -f "$tmp"/c.sqlite*
    start=$(now)
    TOURAPI_SERVICE_KEY=k /usr/bin/time -f "%M" -o "$tmp/rss" "$NEARBY_BIN" sync tourapi --db "$tmp/c.sqlite" \
        --base-url "$base" --page-size "$PAGE" --max-requests 100000 > "$tmp/summary"
    sync_s=$(echo "$(now) - $start" | bc)
    printf 'round %d: %d places, %d pages: curl %.2f s, nearby sync %.2f s (peak RSS %d MB) %s\n' \
        "$round" "$PLACES" "$pages" "$curl_s" "$sync_s" "$(( $(cat "$tmp/rss") / 1024 ))" "$(cat "$tmp/summary")"
done
