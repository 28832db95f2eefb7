#!/usr/bin/env bash
# The sync's benchmarks against the replay server (`nearby replay`, a process of its own on loopback).
#
#   scripts/bench-sync.sh [tourapi|kakao|all]   (default all; NEARBY_BIN=path to use a built binary,
#                                                default: a release build; REPLAY_BIN=path for the
#                                                replay server's, default NEARBY_BIN)
#
# tourapi: a full crawl of PLACES (default 60,000) replayed TourAPI places by `nearby sync tourapi`, against
#   curl fetching the same pages in a loop from the same replay server: what the sync costs beyond moving
#   the bytes (parsing, the import, one transaction a page, the checkpoint, the snapshot). Then the replay
#   server changes CHANGES places (default 1,000: `GET /replay/churn`, of every ten eight changed, one
#   hidden, one added) and a second sync fetches them: its requests beside the full crawl's. Each round
#   starts a new replay server and cache. Targets: sync ≤ 1.5 × curl, peak RSS ≤ 200 MB, the second
#   sync's requests ≤ 5 % of the crawl's.
# kakao: `nearby sync kakao` enumerating KAKAO (default 20,000) replayed restaurants in one box, spread
#   evenly and as a city (around 12 centres). An answer holds at most 15 documents, so no enumeration
#   can take fewer than ⌈KAKAO/15⌉ requests (a perfect split: cells of exactly 45, three full pages
#   each); target ≤ 1.5 × that.
#
# Environment: PLACES, PAGE (numOfRows, default 1000), ROUNDS (default 3), CHANGES, KAKAO.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-all}
PLACES=${PLACES:-60000}
PAGE=${PAGE:-1000}
ROUNDS=${ROUNDS:-3}
CHANGES=${CHANGES:-1000}
KAKAO=${KAKAO:-20000}
case "$MODE" in tourapi | kakao | all) ;; *)
    echo "usage: scripts/bench-sync.sh [tourapi|kakao|all]" >&2
    exit 2
    ;;
esac
if [ -z "${NEARBY_BIN:-}" ]; then
    swift build -c release --product nearby >&2
    NEARBY_BIN=.build/release/nearby
fi
tmp=$(mktemp -d)
pid=
stop_replay() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=; fi; }
cleanup() { stop_replay; rm -rf "$tmp"; }
trap cleanup EXIT
# Starts `nearby replay ARGS…` and sets $port.
start_replay() {
    rm -f "$tmp/port"
    "${REPLAY_BIN:-$NEARBY_BIN}" replay "$@" > "$tmp/port" &
    pid=$!
    for _ in $(seq 300); do [ -s "$tmp/port" ] && break; sleep 0.1; done
    port=$(head -1 "$tmp/port")
    [ -n "$port" ] || { echo "bench-sync: the replay server did not start" >&2; exit 1; }
}
now() { date +%s.%N; }
field() { sed -n "s/.*\"$1\":\\([0-9a-z]*\\).*/\\1/p" "$2"; }

if [ "$MODE" != kakao ]; then
    pages=$(( (PLACES + PAGE - 1) / PAGE ))
    for round in $(seq "$ROUNDS"); do
        start_replay --places "$PLACES"
        base="http://127.0.0.1:$port/B551011"
        start=$(now)
        for p in $(seq "$pages"); do
            curl -sf -o /dev/null \
                "$base/KorService2/areaBasedList2?numOfRows=$PAGE&pageNo=$p&arrange=C&MobileOS=ETC&MobileApp=Nearby&_type=json&serviceKey=k"
        done
        curl_s=$(echo "$(now) - $start" | bc)
        rm -f "$tmp"/c.sqlite*
        start=$(now)
        TOURAPI_SERVICE_KEY=k /usr/bin/time -f "%M" -o "$tmp/rss" "$NEARBY_BIN" sync tourapi --db "$tmp/c.sqlite" \
            --base-url "$base" --page-size "$PAGE" --max-requests 100000 > "$tmp/full"
        sync_s=$(echo "$(now) - $start" | bc)
        curl -sf "http://127.0.0.1:$port/replay/churn?count=$CHANGES" > "$tmp/churn"
        start=$(now)
        TOURAPI_SERVICE_KEY=k "$NEARBY_BIN" sync tourapi --db "$tmp/c.sqlite" \
            --base-url "$base" --page-size "$PAGE" --max-requests 100000 > "$tmp/changes"
        changes_s=$(echo "$(now) - $start" | bc)
        stop_replay
        full_r=$(field requests "$tmp/full")
        changes_r=$(field requests "$tmp/changes")
        printf 'round %d: %d places, %d pages: curl %.2f s, nearby sync %.2f s (%.2f×, peak RSS %d MB, %d requests)\n' \
            "$round" "$PLACES" "$pages" "$curl_s" "$sync_s" "$(echo "$sync_s / $curl_s" | bc -l)" \
            "$(( $(cat "$tmp/rss") / 1024 ))" "$full_r"
        printf '  then %d changes %s: nearby sync %.2f s, %d requests (%.1f %% of the crawl'"'"'s) %s\n' \
            "$CHANGES" "$(cat "$tmp/churn")" "$changes_s" "$changes_r" \
            "$(echo "100 * $changes_r / $full_r" | bc -l)" "$(cat "$tmp/changes")"
    done
fi

if [ "$MODE" != tourapi ]; then
    bound=$(( (KAKAO + 14) / 15 ))
    for centres in 0 12; do
        start_replay --places 0 --kakao "$KAKAO" --kakao-centres "$centres"
        rm -f "$tmp"/k.sqlite*
        start=$(now)
        KAKAO_REST_API_KEY=k "$NEARBY_BIN" sync kakao --db "$tmp/k.sqlite" --base-url "http://127.0.0.1:$port" \
            --category FD6 --bbox 126.96,37.56,127.01,37.6 --max-requests 100000 > "$tmp/kakao"
        kakao_s=$(echo "$(now) - $start" | bc)
        stop_replay
        requests=$(field requests "$tmp/kakao")
        layout=$([ "$centres" = 0 ] && echo "spread evenly" || echo "around $centres centres")
        printf 'kakao: %d restaurants %s: %d found, %d requests, lower bound ⌈%d/15⌉ = %d (%.2f×), %.2f s\n' \
            "$KAKAO" "$layout" "$(field added "$tmp/kakao")" "$requests" "$KAKAO" "$bound" \
            "$(echo "$requests / $bound" | bc -l)" "$kakao_s"
    done
fi
