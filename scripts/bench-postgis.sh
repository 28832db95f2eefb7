#!/usr/bin/env bash
# The postgis engine on the 1M workload (BENCHMARKS.md, "PostGIS engine"), all in one run on a throwaway
# cluster (settings below, the same for every measurement):
#   1. import: `nearby import --pg` of W.places.tsv, against COPY + the same indexes by hand (raw_places:
#      GiST, primary key, and the btrees of 007_order_indexes.sql on its own columns), ROUNDS times (3)
#      interleaved, medians compared; IMPORT_ONLY=1 stops after this step;
#   2. exactness: the workload's radius queries through `nearby query --engine postgis` give the
#      memory engine's total and checksum for every query (`nearby bench radius --answers`), and,
#      with CHECK_BRUTE=1, scripts/check-answers.py's independent brute force;
#   3. latency: p50 of those queries (the engine's own time, tookMs) against raw PostGIS,
#      ST_DWithin(geog, q, r, false) from a prepared C libpq statement (scripts/pg_peer.c), and
#      the memory engine beside them;
#   4. sorted pages (no centre): a page of 30 for each arrange code A/C/D/O/Q/R, alone, with a category
#      and with a keyword, pages 1-3, with `--total none` and with the exact total: answers against the
#      memory engine over a cache of the same file, then PAGE_ROUNDS (3) interleaved rounds of the
#      postgis engine (tookMs) and of the same pages written by hand in SQL over the same table and
#      indexes (scripts/pg_pages.c; with the total, a count(*) and the page); per query the median of
#      the rounds, then the p50 of each side and their ratio.
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
cc -O2 -o "$DIR/pg_pages" scripts/pg_pages.c -I"$(pg_config --includedir)" -lpq
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
        -c "CREATE INDEX ON raw_places USING gist (geog)" -c "ALTER TABLE raw_places ADD PRIMARY KEY (id)" \
        -c "CREATE INDEX ON raw_places (title COLLATE \"C\", id)" -c "CREATE INDEX ON raw_places (modified DESC, id)" \
        -c "CREATE INDEX ON raw_places (created DESC, id)" -c "CREATE INDEX ON raw_places (category, id)" \
        -c "CREATE INDEX ON raw_places (category, title COLLATE \"C\", id)" \
        -c "CREATE INDEX ON raw_places (category, modified DESC, id)" \
        -c "CREATE INDEX ON raw_places (category, created DESC, id)" \
        -c "CREATE INDEX ON raw_places (areacode, sigungucode)" -c "ANALYZE raw_places"
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
print(f"import: nearby import --pg {mine:.1f} s; COPY + the same indexes by hand {hand:.1f} s (medians of {len(rounds)}); "
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
      f"ratio {p50 / raw['p50_us']:.2f}x (target 1.2x); memory engine {mem_p50:.1f} us")
print(f"  postgis engine p90 {took[len(took) * 9 // 10]:.0f} us, p99 {took[len(took) * 99 // 100]:.0f} us; raw p90 {raw['p90_us']:.0f} us, p99 {raw['p99_us']:.0f} us, {raw['qps']} q/s")
sys.exit(1 if mismatches else 0)
PY
# 4. Sorted pages in SQL: the arrange codes without a centre, alone, with a category, with a keyword,
# pages 1-3, without and with the total; answers against the memory engine over a cache of the same file.
"${PSQL[@]}" -d nearby -c "VACUUM ANALYZE places"
"$NEARBY" import --db "$DIR/cache.sqlite" "$W.places.tsv" > /dev/null
python3 - "$DIR/sorts.tsv" "$DIR/sorts.sql.tsv" <<'PY'
import sys
columns = ("id, title, lat, lon, category, created, modified, areacode, sigungucode, addr, tel, image, cat1, cat2, "
           "cat3, eventstart, eventend, accessibility, ldongregncd, ldongsigngucd, lclssystm1, lclssystm2, lclssystm3, "
           "kakaocategory, ldongsource, pet, barrierfree, petinfo")
keys = {"A": "titlekey, idkey", "C": "modifiedts DESC, idkey", "D": "createdts DESC, idkey"}
initials = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
def keyword_sql(k):
    if not any(c in initials for c in k):
        return f"strpos(titlefold, '{k}') > 0"
    pattern = ""
    for c in k:
        if c in initials:
            first = 0xAC00 + initials.index(c) * 588
            pattern += f"[{c}{chr(first)}-{chr(first + 587)}]"
        else:
            pattern += c
    return f"titlefold ~ '{pattern}'"
with open(sys.argv[1], "w") as nearby, open(sys.argv[2], "w") as hand:
    nearby.write("qid\tarrange\tkeyword\tcategory\tlimit\tpage\ttotal\n")
    hand.write("qid\tstatements\n")
    qid = 0
    for total in ["none", "exact"]:
        for n, arrange in enumerate("ACDOQR"):
            for kind in ["", "category", "keyword"]:
                for page in [1, 2, 3]:
                    qid += 1
                    category = ["12", "39", "15"][(n + page) % 3] if kind == "category" else ""
                    keyword = ["숙박", "문화", "ㅁㅎ"][(n + page) % 3] if kind == "keyword" else ""
                    nearby.write(f"{qid}\t{arrange}\t{keyword}\t{category}\t30\t{page}\t{total}\n")
                    where = []
                    if arrange in "OQR": where.append("image <> ''")
                    if category: where.append(f"category = {category}")
                    if keyword: where.append(keyword_sql(keyword))
                    clause = " WHERE " + " AND ".join(where) if where else ""
                    key = keys["ACDACD"["ACDOQR".index(arrange)]]
                    statements = [f"SELECT {columns} FROM places{clause} ORDER BY {key} LIMIT 30 OFFSET {(page - 1) * 30}"]
                    if total == "exact": statements.insert(0, f"SELECT count(*) FROM places{clause}")
                    hand.write(f"{qid}\t" + "\t".join(statements) + "\n")
PY
for engine in memory postgis; do
    args=(--db "$DIR/cache.sqlite"); [ "$engine" = postgis ] && args=(--pg "$URL")
    "$NEARBY" query --engine "$engine" "${args[@]}" --queries "$DIR/sorts.tsv" --fields qid,id --meta > "$DIR/sorts.$engine.jsonl"
done
"$DIR/pg_pages" "$URL" "$DIR/sorts.sql.tsv" > /dev/null   # warm
PAGE_ROUNDS=${PAGE_ROUNDS:-3}
for round in $(seq 1 "$PAGE_ROUNDS"); do
    "$NEARBY" query --engine postgis --pg "$URL" --queries "$DIR/sorts.tsv" --fields qid --meta > "$OUT/pages.nearby.$round.jsonl"
    "$DIR/pg_pages" "$URL" "$DIR/sorts.sql.tsv" > "$OUT/pages.hand.$round.tsv"
done
cp "$DIR/sorts.tsv" "$OUT/pages.queries.tsv"; cp "$DIR/sorts.sql.tsv" "$OUT/pages.sql.tsv"
python3 - "$DIR/sorts.memory.jsonl" "$DIR/sorts.postgis.jsonl" "$DIR/sorts.tsv" "$OUT" "$PAGE_ROUNDS" <<'PY'
import glob, json, statistics, sys
def read(path):
    answers = {}
    for line in open(path, encoding="utf-8"):
        o = json.loads(line)
        if "tookMs" in o: answers[o["qid"]] = [o["total"], []]
        else: answers[o["qid"]][1].append(o["id"])
    return answers
mem, pg = read(sys.argv[1]), read(sys.argv[2])
bad = sum(1 for q in mem if mem[q] != pg.get(q))
queries = {int(l.split("\t")[0]): l.rstrip("\n").split("\t") for l in open(sys.argv[3], encoding="utf-8").readlines()[1:]}
out, rounds = sys.argv[4], int(sys.argv[5])
mine, hand = {}, {}
for r in range(1, rounds + 1):
    for line in open(f"{out}/pages.nearby.{r}.jsonl"):
        o = json.loads(line)
        if "tookMs" in o: mine.setdefault(o["qid"], []).append(o["tookMs"] * 1000)
    for line in open(f"{out}/pages.hand.{r}.tsv").readlines()[1:]:
        q, us, _ = line.split("\t"); hand.setdefault(int(q), []).append(float(us))
print(f"sorted pages: {len(mem)} queries (arrange A/C/D/O/Q/R; alone, category, keyword; pages 1-3; total none and exact), "
      f"{bad} mismatches against the memory engine")
def p50(xs): xs = sorted(xs); return xs[len(xs) // 2]
for total in ["none", "exact"]:
    for label, pick in [("all", lambda a, k: True), ("A/C/D", lambda a, k: a in "ACD"), ("O/Q/R", lambda a, k: a in "OQR"),
                        ("alone", lambda a, k: k == "alone"), ("category", lambda a, k: k == "category"), ("keyword", lambda a, k: k == "keyword")]:
        qs = []
        for q, (qid, arrange, keyword, category, limit, page, t) in queries.items():
            kind = "keyword" if keyword else "category" if category else "alone"
            if t == total and pick(arrange, kind): qs.append(q)
        m = [statistics.median(mine[q]) for q in qs]; h = [statistics.median(hand[q]) for q in qs]
        ratio = [a / b for a, b in zip(m, h)]
        print(f"  total {total}, {label} ({len(qs)}): p50 postgis {p50(m):.0f} us, by hand {p50(h):.0f} us, "
              f"ratio of p50s {p50(m) / p50(h):.2f}x; p50 of per-query ratios {p50(ratio):.2f}x; p90 postgis {sorted(m)[len(m) * 9 // 10]:.0f} us, by hand {sorted(h)[len(h) * 9 // 10]:.0f} us")
sys.exit(1 if bad else 0)
PY
if [ "${CHECK_BRUTE:-0}" = 1 ]; then
    python3 scripts/check-answers.py "$W.places.tsv" "$W.queries.tsv" "$OUT/postgis.answers.tsv"
fi
