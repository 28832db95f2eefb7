#!/usr/bin/env bash
# Scale-out on one machine (docs/scale-out.md): one PostgreSQL primary and one streaming replica
# (pg_basebackup -R) on loopback ports, two `nearby serve --engine postgis` processes (one reading
# the primary, one the replica), an import on the primary seen through both servers.
#
#   scripts/demo-scale-out.sh            # uses .build/release/nearby, else builds debug
# Rerunnable: everything lives in a temporary folder, stopped by PID and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pg-cluster.sh
NEARBY=${NEARBY:-}
if [ -z "$NEARBY" ]; then
    if [ -x .build/release/nearby ]; then NEARBY=.build/release/nearby
    else swift build --product nearby >/dev/null; NEARBY=.build/debug/nearby; fi
fi
DIR=$(mktemp -d /tmp/nearby-scale-out.XXXXXX)
chmod 755 "$DIR"
SERVERS=()
cleanup() {
    for pid in "${SERVERS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    pg_stop "$DIR/replica"; pg_stop "$DIR/primary"
    rm -rf "$DIR"
}
trap cleanup EXIT
trap "exit 1" INT TERM

P1=$(pg_free_port); pg_init "$DIR/primary"
pg_start "$DIR/primary" "$P1" wal_level=replica max_wal_senders=4 hot_standby=on
"$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$P1" -U postgres -c "CREATE DATABASE nearby"
PRIMARY="postgresql://postgres@127.0.0.1:$P1/nearby"
echo "primary: $PRIMARY"

"$NEARBY" generate --count 20000 --seed 1 --format jsonl > "$DIR/first.jsonl"
echo "import 20,000 places on the primary:"
"$NEARBY" import --pg "$PRIMARY" "$DIR/first.jsonl"

P2=$(pg_free_port)
mkdir -p "$DIR/replica"; [ "$(id -u)" -ne 0 ] || chown postgres: "$DIR/replica"
as_pg "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$P1" -U postgres -D "$DIR/replica/data" -R -X stream -c fast
pg_start "$DIR/replica" "$P2" hot_standby=on
REPLICA="postgresql://postgres@127.0.0.1:$P2/nearby"
echo "replica: $REPLICA (in recovery: $("$PG_BIN/psql" -X -At -h 127.0.0.1 -p "$P2" -U postgres -c 'SELECT pg_is_in_recovery()'))"

serve() {  # serve NAME URL PORT
    "$NEARBY" serve --engine postgis --pg "$2" --port "$3" 2>"$DIR/$1.log" &
    SERVERS+=($!)
    for _ in $(seq 1 100); do curl -sf "localhost:$3/healthz" >/dev/null && return 0; sleep 0.1; done
    echo "server $1 did not start:" >&2; cat "$DIR/$1.log" >&2; return 1
}
S1=$(pg_free_port); serve primary "$PRIMARY" "$S1"
S2=$(pg_free_port); serve replica "$REPLICA" "$S2"
echo "server A on :$S1 (primary), server B on :$S2 (replica), pids ${SERVERS[*]}"

Q='lat=37.5665&lon=126.978&radius=3000&limit=3&fields=id,title,distance'
show() {
    for s in "A $S1" "B $S2"; do
        set -- $s
        echo "  server $1 /healthz: $(curl -s "localhost:$2/healthz")"
        echo "  server $1 /v1/places?$Q:"
        echo "    $(curl -s "localhost:$2/v1/places?$Q")"
    done
}
echo "before the second import:"; show

# Three new places at Seoul City Hall, 100–300 m away, newer than anything there.
for i in 1 2 3; do
    printf '{"id":"demo-%s","title":"새 장소 %s","lat":%s,"lon":126.978,"category":12,"modified":"20990101000000"}\n' \
        "$i" "$i" "$(python3 -c "print(37.5665 + $i * 0.0009)")"
done > "$DIR/second.jsonl"
echo "import 3 places on the primary:"
"$NEARBY" import --pg "$PRIMARY" "$DIR/second.jsonl"
# The replica replays the commit within milliseconds; servers see the new generation within a second.
for _ in $(seq 1 50); do
    g1=$(curl -s "localhost:$S1/healthz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])')
    g2=$(curl -s "localhost:$S2/healthz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation"])')
    [ "$g1" = 2 ] && [ "$g2" = 2 ] && break
    sleep 0.2
done
echo "after it:"; show
echo "  server A /v1/places/demo-2: $(curl -s "localhost:$S1/v1/places/demo-2?fields=id,title,lat")"
echo "  server B /v1/places/demo-2: $(curl -s "localhost:$S2/v1/places/demo-2?fields=id,title,lat")"
A=$(curl -s "localhost:$S1/v1/places?$Q"); B=$(curl -s "localhost:$S2/v1/places?$Q")
if [ "$A" = "$B" ] && grep -q '"total":1142' <<<"$A" && curl -sf "localhost:$S2/v1/places/demo-2" >/dev/null; then
    echo "OK: both servers give the same answer (and cursor), with the 3 new places"
else echo "MISMATCH"; exit 1; fi
