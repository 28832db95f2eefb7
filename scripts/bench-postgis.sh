#!/usr/bin/env bash
# The postgis engine on the 1M workload (BENCHMARKS.md, "PostGIS engine"), all in one run on a throwaway
# cluster (settings below, the same for every measurement):
#   1. import: `nearby import --pg` of W.places.tsv, against COPY + index build by hand (raw_places),
#      ROUNDS times (3) interleaved, medians compared; IMPORT_ONLY=1 stops after this step;
#   2. exactness: the workload's radius queries through `nearby query --engine postgis` give the
#      memory engine's total and checksum for every query (`nearby bench radius --answers`), and,
#      with CHECK_BRUTE=1, scripts/check-answers.py's independent brute force;
#   3. latency: p50 of those queries (the engine's own time, tookMs) against raw PostGIS,
#      ST_DWithin(geog, q, r, false) from a prepared C libpq statement (scripts/pg_peer.c), and
#      the memory engine beside them;
#   4. sorted pages (no centre, arrange codes, filters, pages): answers and p50 against the memory
#      engine over a cache of the same file.
#
#   swift build -c release --static-swift-stdlib --product nearby
#   .build/release/nearby generate --workload /tmp/w1m --count 1000000
#   W=/tmp/w1m scripts/bench-postgis.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pg-cluster.sh
W=${W:-/tmp/w1m}
NEARBY=${NEARBY:-.build/release/nearby}
OUT=${OUT:-bench-results/postgis}
mkdir -p "$OUT"
DIR=$(mktemp -d /tmp/nearby-bench-pg.XXXXXX); chmod 755 "$DIR"
trap 'pg_stop "$DIR/pg"; rm -rf "$DIR"' EXIT
trap "exit 1" INT TERM
now() { date +%s.%N; }

cc -O2 -o "$DIR/pg_peer" scripts/pg_peer.c -I"$(pg_config --includedir)" -lpq
PORT=$(pg_free_port); pg_init "$DIR/pg"
SETTINGS=(shared_buffers=1GB maintenance_work_mem=512MB max_wal_size=8GB checkpoint_timeout=30min)
pg_start "$DIR/pg" "$PORT" "${SETTINGS[@]}"
PSQL=("$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres)
URL="postgresql://postgres@127.0.0.1:$PORT/nearby"; RAW="postgresql://postgres@127.0.0.1:$PORT/raw"
echo "cluster: PostgreSQL $("${PSQL[@]}" -At -c 'SHOW server_version'), ${SETTINGS[*]}"

# 1. Import, ROUNDS times interleaved (nearby, then by hand; fresh databases and a CHECKPOINT before
# each round; the extension made beforehand in both databases: CREATE EXTENSION takes seconds and is
# done once per database, not per import); the medians' ratio is the figure. The last round's
# databases serve the queries.
ROUNDS=${ROUNDS:-3}
: > "$OUT/import.rounds"
for round in $(seq 1 "$ROUNDS"); do
    "${PSQL[@]}" -c "DROP DATABASE IF EXISTS nearby" -c "DROP DATABASE IF EXISTS raw" -c "CREATE DATABASE nearby" -c "CREATE DATABASE raw"
    "${PSQL[@]}" -d nearby -c "CREATE EXTENSION postgis"
    "${PSQL[@]}" -d raw -c "CREATE EXTENSION postgis" -c "CREATE TABLE raw_places(id bigint, lat float8, lon float8,
        category int, title text, created text, modified text, areacode text, sigungucode text,
        geog geography(Point, 4326) GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography) STORED)"
    "${PSQL[@]}" -c "CHECKPOINT"
    load0=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(now); "$NEARBY" import --pg "$URL" "$W.places.tsv" > "$OUT/import.json"; t1=$(now)
    "${PSQL[@]}" -c "CHECKPOINT"
    t2=$(now)
    "${PSQL[@]}" -d raw -c "\\copy raw_places(id, lat, lon, category, title, created, modified, areacode, sigungucode) FROM '$W.places.tsv' WITH (FORMAT text, HEADER true)" \
        -c "CREATE INDEX ON raw_places USING gist (geog)" -c "ALTER TABLE raw_places ADD PRIMARY KEY (id)" -c "ANALYZE raw_places"
    t3=$(now)
    echo "$t0 $t1 $t2 $t3 $load0 $(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/import.rounds"
done
"${PSQL[@]}" -d nearby -c "VACUUM ANALYZE places"
python3 - "$OUT/import.rounds" <<'PY'
import statistics, sys
rounds = [list(map(float, l.split())) for l in open(sys.argv[1])]
for n, (t0, t1, t2, t3, l0, l1) in enumerate(rounds, 1):
    print(f"import round {n}: nearby import --pg {t1 - t0:.1f} s; by hand {t3 - t2:.1f} s; ratio {(t1 - t0) / (t3 - t2):.2f}x; load {l0:.1f}-{l1:.1f}")
mine = statistics.median(r[1] - r[0] for r in rounds); hand = statistics.median(r[3] - r[2] for r in rounds)
print(f"import: nearby import --pg {mine:.1f} s; COPY + GiST + primary key by hand {hand:.1f} s (medians of {len(rounds)}); "
      f"ratio {mine / hand:.2f}x (target 1.5x)")
PY
[ "${IMPORT_ONLY:-0}" = 1 ] && exit 0

# 2 + 3. Queries: memory engine (reference answers), postgis engine, raw PostGIS.
"$NEARBY" bench radius --engine memory --places "$W.places.tsv" --queries "$W.queries.tsv" --answers "$OUT/memory.answers.tsv" > "$OUT/memory.json"
"$DIR/pg_peer" "$RAW" "$W.queries.tsv" 1000 > /dev/null   # warm the raw table's pages
"$NEARBY" query --engine postgis --pg "$URL" --queries "$W.queries.tsv" --fields qid,id --meta > "$DIR/warm.jsonl"
"$NEARBY" query --engine postgis --pg "$URL" --queries "$W.queries.tsv" --fields qid,id --meta > "$DIR/postgis.jsonl"
"$DIR/pg_peer" "$RAW" "$W.queries.tsv" > "$OUT/peer.json"
python3 - "$DIR/postgis.jsonl" "$OUT/memory.answers.tsv" "$OUT/memory.json" "$OUT/peer.json" "$OUT/postgis.answers.tsv" <<'PY'
import hashlib, json, sys
lines, memory_answers, memory_doc, peer, out = sys.argv[1:]
answers, took = {}, []
for line in open(lines, encoding="utf-8"):
    o = json.loads(line)
    if "tookMs" in o:
        answers[o["qid"]] = [o["total"], []]; took.append(o["tookMs"] * 1000)
    else:
        answers[o["qid"]][1].append(o["id"])
with open(out, "w") as f:
    f.write("qid\ttotal\treturned\tchecksum\n")
    for qid, (total, ids) in answers.items():
        f.write(f"{qid}\t{total}\t{len(ids)}\t{hashlib.sha1(','.join(ids).encode()).hexdigest()[:16]}\n")
mine = [l.split("\t") for l in open(out).read().splitlines()[1:]]
ref = [l.split("\t") for l in open(memory_answers).read().splitlines()[1:]]
mismatches = sum(1 for a, b in zip(mine, ref) if a[1:] != b[1:]) + abs(len(mine) - len(ref))
took.sort()
p50 = took[len(took) // 2]
mem = json.load(open(memory_doc))
mem_p50 = next(g for g in mem["groups"] if g["name"] == "all")["latencyMicros"]["p50"]
raw = json.loads(open(peer).read())
print(f"exactness: {len(mine)} queries, {mismatches} mismatches against the memory engine's answers")
print(f"latency p50: postgis engine {p50:.0f} us, raw PostGIS (C, prepared) {raw['p50_us']:.0f} us, "
      f"ratio {p50 / raw['p50_us']:.2f}x (target 1.3x); memory engine {mem_p50:.1f} us")
print(f"  postgis engine p90 {took[len(took) * 9 // 10]:.0f} us, p99 {took[len(took) * 99 // 100]:.0f} us; raw p90 {raw['p90_us']:.0f} us, p99 {raw['p99_us']:.0f} us, {raw['qps']} q/s")
sys.exit(1 if mismatches else 0)
PY
# 4. Sorted pages in SQL (no centre, TourAPI's arrange codes, keyword and category filters, pages 1-3):
# the postgis engine against the memory engine over a cache of the same file, answers compared.
"$NEARBY" import --db "$DIR/cache.sqlite" "$W.places.tsv" > /dev/null
python3 - "$DIR/sorts.tsv" <<'PY'
import random, sys
r = random.Random(13)
with open(sys.argv[1], "w") as f:
    f.write("qid\tarrange\tkeyword\tcategory\tlimit\tpage\n")
    for qid in range(1, 201):
        keyword = r.choice(["", "", "숙박", "문화", "ㅁㅎ"])
        category = r.choice(["", "", "12", "39", "15"])
        f.write(f"{qid}\t{r.choice('ACDOQR')}\t{keyword}\t{category}\t{r.choice([10, 20])}\t{r.choice([1, 1, 2, 3])}\n")
PY
for engine in memory postgis; do
    args=(--db "$DIR/cache.sqlite"); [ "$engine" = postgis ] && args=(--pg "$URL")
    "$NEARBY" query --engine "$engine" "${args[@]}" --queries "$DIR/sorts.tsv" --fields qid,id --meta > /dev/null   # warm
    "$NEARBY" query --engine "$engine" "${args[@]}" --queries "$DIR/sorts.tsv" --fields qid,id --meta > "$DIR/sorts.$engine.jsonl"
done
python3 - "$DIR/sorts.memory.jsonl" "$DIR/sorts.postgis.jsonl" <<'PY'
import json, sys
def read(path):
    answers, took = {}, []
    for line in open(path, encoding="utf-8"):
        o = json.loads(line)
        if "tookMs" in o:
            answers[o["qid"]] = [o["total"], []]; took.append(o["tookMs"] * 1000)
        else:
            answers[o["qid"]][1].append(o["id"])
    took.sort()
    return answers, took
(mem, mt), (pg, pt) = read(sys.argv[1]), read(sys.argv[2])
bad = sum(1 for q in mem if mem[q] != pg.get(q))
print(f"sorted pages: {len(mem)} queries (arrange A/C/D/O/Q/R, keyword, category, pages 1-3), {bad} mismatches; "
      f"p50 postgis {pt[len(pt) // 2]:.0f} us, memory {mt[len(mt) // 2]:.1f} us; p90 postgis {pt[len(pt) * 9 // 10]:.0f} us")
sys.exit(1 if bad else 0)
PY
if [ "${CHECK_BRUTE:-0}" = 1 ]; then
    python3 scripts/check-answers.py "$W.places.tsv" "$W.queries.tsv" "$OUT/postgis.answers.tsv"
fi
