#!/usr/bin/env python3
"""The sort/filter workload answered by Nearby, DuckDB (one thread) and SQLite (indexed) in one run.

usage: python3 scripts/bench-sortfilter.py PREFIX --nearby BIN --db CACHE [--first N] [--json OUT] [--svg CHART]

PREFIX.places.tsv is the workload's places (`nearby generate --workload PREFIX`), PREFIX.sortfilter.tsv
its sort/filter queries (scripts/make_sortfilter.py), CACHE a Nearby cache holding those places
(`nearby import --db CACHE PREFIX.places.tsv`). pip-installs duckdb if it is missing.

The workload's `areacode` (a legal-dong 시도 code, such as 11 for 서울) is asked as what Nearby calls it:
`--ldong` (Nearby's `--areacode` is TourAPI's areaCode and refuses 11). `--ldong` matches the code the
cache holds, which the import derives from each place's coordinates on the real boundaries, so DuckDB and
SQLite get the same codes: a column `ldong` read from the cache (`nearby query --fields id,lDongRegnCd`).
The generated file's own `areacode` differs for places placed across a boundary from their town
(549 of the 1M workload), so filtering on it would ask another question. The workload's codes predate
the 2023 and 2024 recodings (강원 42 → 51, 전북 45 → 52); Nearby takes old codes too, and DuckDB and SQLite
are given today's code through the same table, `data/region-code-changes.tsv`.

Each engine answers every query (the first N with --first): the total number of matches and the page's
ids, whose checksum is the workload README's (sha1 of the ids joined by ",", first 16 hex digits).
The script prints, per query family and for the whole workload, each engine's median and p99 latency
and throughput, and how many answers agree with Nearby's (they must all agree; it exits 1 otherwise).

How each engine is timed:
- Nearby: `nearby query --queries` in one process; a query's time is its `tookMs` (the engine's time,
  answer built, output excluded). Throughput: queries / the sum of those times.
- DuckDB 2.0 (`SET threads = 1`), the places in one table, Korean titles ordered by
  `title COLLATE ko` (DuckDB's built-in ICU), haversine in SQL with a bounding-box prefilter.
- SQLite (the system's Python module), the places in one table with the indexes a DBA would create
  for these queries (below), an R*Tree for the radius family, and `title_rank`: each title's place in
  ICU's `ko` order, computed once by DuckDB (SQLite has no ICU collation), for the title sorts.
For DuckDB and SQLite a query's time covers both statements it needs, the count and the page, from
execute to the last row fetched, in this process (Python adds a few microseconds per statement).
"""
import argparse
import csv
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_sortfilter import family  # noqa: E402

R = 6371008.8
RAD = math.pi / 180


def checksum(ids):
    return hashlib.sha1(",".join(str(i) for i in ids).encode()).hexdigest()[:16]


def day_start(d):
    return int(d[:8]) * 1000000


def day_end(d):
    return int(d[:8]) * 1000000 + 235959


def sido_recodes():
    """{old 시도 code: today's} from the `recode` rows of data/region-code-changes.tsv."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "region-code-changes.tsv")
    recodes = {}
    with open(path, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]
    for date, kind, old, new, *_ in sorted(rows[1:]):
        if kind == "recode" and len(old) == 2:
            recodes = {k: (new if v == old else v) for k, v in recodes.items()}
            recodes[old] = new
    return recodes


SIDO_RECODES = sido_recodes()


def translate(q, title_order):
    """(where, params, order by, limit, offset, centre) for one query row."""
    where, params = [], []
    if q["category"]:
        cats = [int(c) for c in q["category"].split(",")]
        where.append("category IN (%s)" % ",".join("?" * len(cats)))
        params += cats
    if q["areacode"]:
        where.append("ldong = ?")
        params.append(SIDO_RECODES.get(q["areacode"], q["areacode"]))
    if q["keyword"]:
        where.append("instr(title, ?) > 0")
        params.append(q["keyword"])
    if q["created-since"]:
        where.append("created >= ?")
        params.append(day_start(q["created-since"]))
    if q["created-until"]:
        where.append("created <= ?")
        params.append(day_end(q["created-until"]))
    if q["modified-since"]:
        where.append("modified >= ?")
        params.append(day_start(q["modified-since"]))
    centre = None
    if q["radius"]:
        centre = (float(q["lat"]), float(q["lon"]), float(q["radius"]))
    keys = []
    for key in q["sort"].split(",") if q["sort"] else []:
        desc = key.startswith("-")
        name = key.lstrip("-")
        column = {"title": title_order, "distance": "d", "created": "created", "modified": "modified",
                  "category": "category"}[name]
        keys.append(column + (" DESC" if desc else ""))
    keys.append("id")
    limit = int(q["limit"])
    offset = (int(q["page"] or 1) - 1) * limit
    return where, params, ", ".join(keys), limit, offset, centre


def haversine_sql(lat, lon, least):
    """Nearby's haversine (Sources/NearbyCore/Geodesy/Haversine.swift) in SQL: the same operations in
    the same order, so the distances are the same doubles. Returns (a, d): `a` over the columns lat and
    lon, `d` over a column `a`."""
    s1 = f"sin((lat - {lat!r}) * {RAD!r} * 0.5)"
    s2 = f"sin((lon - {lon!r}) * {RAD!r} * 0.5)"
    a = f"{least}(1.0, {s1} * {s1} + {math.cos(lat * RAD)!r} * cos(lat * {RAD!r}) * {s2} * {s2})"
    return a, f"2 * {R!r} * atan2(sqrt(a), sqrt(1 - a))"


def box(lat, lon, radius):
    """A box holding every point within `radius` metres (haversine) of (lat, lon): latitude ± the
    angle, longitude ± asin(sin(angle) / cos(lat)) (Matuschek, "Finding points within a distance of a
    latitude/longitude using bounding coordinates"), then widened by a part in 10^6 and 1e-9°."""
    angle = radius / R
    dlat = angle / RAD
    if abs(lat) + dlat >= 90 or math.sin(angle) >= math.cos(lat * RAD):
        dlon = 180.0
    else:
        dlon = math.asin(math.sin(angle) / math.cos(lat * RAD)) / RAD
    dlat, dlon = dlat * 1.000001 + 1e-9, dlon * 1.000001 + 1e-9
    return lat - dlat, lat + dlat, lon - dlon, lon + dlon


class SQLEngine:
    """What DuckDB and SQLite share: a query is two statements, the count and the page, timed together.
    Subclasses set `con`, `title_order` (the ORDER BY of a title sort), `least` (SQL's two-argument
    minimum) and `near(a, b, where)`: the rows within the box `b` that pass `where`, with column `a`."""

    def answer(self, q):
        where, params, order, limit, offset, centre = translate(q, self.title_order)
        if centre:
            lat, lon, radius = centre
            a, d = haversine_sql(lat, lon, self.least)
            source = f"(SELECT *, {d} AS d FROM ({self.near(a, box(lat, lon, radius), where)}) WHERE {d} <= {radius!r})"
        else:
            source = "places" + ((" WHERE " + " AND ".join(where)) if where else "")
        start = time.perf_counter_ns()
        total = self.con.execute(f"SELECT count(*) FROM {source}", params).fetchone()[0]
        rows = self.con.execute(f"SELECT id FROM {source} ORDER BY {order} LIMIT {limit} OFFSET {offset}", params).fetchall()
        micros = (time.perf_counter_ns() - start) / 1000
        return total, [r[0] for r in rows], micros


class DuckDBEngine(SQLEngine):
    name = "duckdb"
    title_order = "title COLLATE ko"
    least = "least"

    def __init__(self, places_path, codes_path):
        try:
            import duckdb
        except ImportError:
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "duckdb==2.0.0"], check=True)
            import duckdb
        self.con = duckdb.connect()
        self.con.execute("SET threads = 1")
        # Titles as Nearby's import stores them: without leading and trailing spaces (the 1M workload
        # has 48 titles that start with one).
        self.con.execute(
            "CREATE TABLE places AS SELECT * REPLACE (trim(title) AS title) FROM read_csv(?, delim='\t', header=true, quote='', columns={"
            "'id':'BIGINT','lat':'DOUBLE','lon':'DOUBLE','category':'INTEGER','title':'VARCHAR',"
            "'created':'BIGINT','modified':'BIGINT','areacode':'VARCHAR','sigungucode':'VARCHAR'})", [places_path])
        self.con.execute(
            "CREATE TABLE codes AS SELECT * FROM read_csv(?, delim='\t', header=true, quote='', columns={'id':'BIGINT','ldong':'VARCHAR'})",
            [codes_path])
        self.con.execute("CREATE TABLE coded AS SELECT p.*, c.ldong FROM places p LEFT JOIN codes c USING (id)")
        self.con.execute("DROP TABLE places; DROP TABLE codes; ALTER TABLE coded RENAME TO places")
        self.version = duckdb.__version__

    def ranks(self):
        """(id, title_rank) with equal titles sharing a rank: ICU ko order, for SQLite."""
        return self.con.execute(
            "SELECT id, dense_rank() OVER (ORDER BY title COLLATE ko) FROM places").fetchall()

    @staticmethod
    def near(a, b, where):
        return (f"SELECT *, {a} AS a FROM places WHERE lat BETWEEN {b[0]!r} AND {b[1]!r} AND lon BETWEEN {b[2]!r} AND {b[3]!r}"
                + "".join(" AND " + w for w in where))


class SQLiteEngine(SQLEngine):
    name = "sqlite"
    title_order = "title_rank"
    least = "min"
    indexes = [
        "CREATE INDEX by_category_title ON places(category, title_rank)",
        "CREATE INDEX by_category_modified ON places(category, modified)",
        "CREATE INDEX by_area_title ON places(ldong, title_rank)",
        "CREATE INDEX by_created ON places(created)",
        "CREATE INDEX by_category_created ON places(category, created)",
        "CREATE INDEX by_title ON places(title_rank)",
    ]

    def __init__(self, places_path, ranks, codes, folder):
        import sqlite3
        self.version = sqlite3.sqlite_version
        self.con = sqlite3.connect(os.path.join(folder, "sortfilter.sqlite"))
        self.con.execute("CREATE TABLE places (id INTEGER PRIMARY KEY, lat REAL, lon REAL, category INTEGER, title TEXT,"
                         " created INTEGER, modified INTEGER, areacode TEXT, sigungucode TEXT, title_rank INTEGER, ldong TEXT)")
        rank = dict(ranks)
        with open(places_path, newline="", encoding="utf-8") as f:
            rows = ((int(r["id"]), float(r["lat"]), float(r["lon"]), int(r["category"]), r["title"].strip(" "), int(r["created"]),
                     int(r["modified"]), r["areacode"], r["sigungucode"], rank[int(r["id"])], codes.get(int(r["id"])))
                    for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
            self.con.executemany("INSERT INTO places VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows)
        for statement in self.indexes:
            self.con.execute(statement)
        self.con.execute("CREATE VIRTUAL TABLE places_rtree USING rtree(id, min_lat, max_lat, min_lon, max_lon)")
        self.con.execute("INSERT INTO places_rtree SELECT id, lat, lat, lon, lon FROM places")
        self.con.execute("ANALYZE")
        self.con.commit()

    @staticmethod
    def near(a, b, where):
        # R*Tree boxes are 32-bit floats rounded outward: overlapping the query box finds a superset.
        return (f"SELECT p.*, {a} AS a FROM places_rtree r JOIN places p ON p.id = r.id"
                f" WHERE r.max_lat >= {b[0]!r} AND r.min_lat <= {b[1]!r} AND r.max_lon >= {b[2]!r} AND r.min_lon <= {b[3]!r}"
                + "".join(" AND " + w for w in where))


def nearby_answers(binary, db, queries_path, first):
    """{qid: (total, ids, micros)} from one `nearby query --queries` process, and its wall time. The
    queries go in a copy whose header says `ldong` for the workload's `areacode` (the module's doc)."""
    handle, path = tempfile.mkstemp(suffix=".tsv")
    with os.fdopen(handle, "w", encoding="utf-8") as out, open(queries_path, encoding="utf-8") as f:
        for n, line in enumerate(f):
            if first and n > first:
                break
            if n == 0:
                line = "\t".join("ldong" if c == "areacode" else c for c in line.rstrip("\n").split("\t")) + "\n"
            out.write(line)
    start = time.perf_counter()
    run = subprocess.run([binary, "query", "--db", db, "--queries", path, "--meta", "--fields", "qid,id"],
                         capture_output=True, text=True)
    wall = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"nearby failed ({run.returncode}): {run.stderr.strip()}")
    answers, current = {}, None
    for line in run.stdout.splitlines():
        o = json.loads(line)
        if "total" in o:
            current = answers[o["qid"]] = (o["total"], [], o["tookMs"] * 1000)
        else:
            current[1].append(int(o["id"]))
    os.remove(path)
    return answers, wall


def legal_dong_codes(binary, db, folder):
    """The cache's `lDongRegnCd` of every place: {id: code or None}, and the same as a TSV file
    (`id`, `ldong`) in `folder` for DuckDB."""
    run = subprocess.run([binary, "query", "--db", db, "--limit", "0", "--fields", "id,lDongRegnCd", "--format", "tsv"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"nearby failed ({run.returncode}): {run.stderr.strip()}")
    codes = {}
    for line in run.stdout.splitlines()[1:]:
        i, code = line.split("\t")
        codes[int(i)] = code or None
    path = os.path.join(folder, "codes.tsv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("id\tldong\n")
        f.writelines(f"{i}\t{c or ''}\n" for i, c in codes.items())
    return codes, path


def chart(report, path):
    """An SVG bar chart of each family's throughput (queries per second, log scale), one bar per engine."""
    engines = [("nearby", "Nearby", "#1f77b4"), ("duckdb", "DuckDB (1 thread)", "#ff7f0e"), ("sqlite", "SQLite (indexed)", "#2ca02c")]
    families = sorted(f for f in report["families"] if f != "all") + ["all"]
    top = max(v["qps"] for f in families for v in report["families"][f].values())
    decades = max(1, math.ceil(math.log10(top)))
    left, bar, gap, width = 90, 11, 12, 560
    height = 60 + len(families) * (3 * bar + gap)
    x = lambda q: left + width * max(0.0, math.log10(max(q, 1))) / decades  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 40}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="16" font-size="13">Sort/filter workload: queries per second by family '
           f'({report["queries"]:,} queries, same run; log scale)</text>']
    for d in range(decades + 1):
        out.append(f'<line x1="{x(10 ** d)}" y1="26" x2="{x(10 ** d)}" y2="{height - 30}" stroke="#ddd"/>'
                   f'<text x="{x(10 ** d)}" y="{height - 16}" text-anchor="middle">{10 ** d:,}</text>')
    y = 32
    for f in families:
        out.append(f'<text x="{left - 6}" y="{y + 1.5 * bar + 4}" text-anchor="end">{f}</text>')
        for key, _, colour in engines:
            q = report["families"][f][key]["qps"]
            out.append(f'<rect x="{left}" y="{y}" width="{x(q) - left:.1f}" height="{bar - 1}" fill="{colour}"/>'
                       f'<text x="{x(q) + 3:.1f}" y="{y + bar - 2}" font-size="9">{q:,.0f}</text>')
            y += bar
        y += gap
    for n, (_, label, colour) in enumerate(engines):
        out.append(f'<rect x="{left + n * 150}" y="{height - 12}" width="10" height="10" fill="{colour}"/>'
                   f'<text x="{left + n * 150 + 14}" y="{height - 3}">{label}</text>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def stats(micros):
    s = sorted(micros)
    if not s:
        return float("nan"), float("nan"), float("nan")
    p50 = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
    p99 = s[min(len(s) - 1, math.ceil(0.99 * len(s)) - 1)]
    return p50, p99, len(s) / (sum(s) / 1e6)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("prefix")
    parser.add_argument("--nearby", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--json")
    parser.add_argument("--svg", help="write a chart of each family's throughput here")
    args = parser.parse_args()
    with open(args.prefix + ".sortfilter.tsv", newline="", encoding="utf-8") as f:
        queries = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    if args.first:
        queries = queries[:args.first]
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731

    log("nearby: answering")
    nearby, wall = nearby_answers(args.nearby, args.db, args.prefix + ".sortfilter.tsv", args.first)
    results = {"nearby": {int(k): v for k, v in nearby.items()}}
    with tempfile.TemporaryDirectory() as folder:
        codes, codes_path = legal_dong_codes(args.nearby, args.db, folder)
        log("duckdb: loading")
        duck = DuckDBEngine(args.prefix + ".places.tsv", codes_path)
        log("sqlite: loading and indexing")
        lite = SQLiteEngine(args.prefix + ".places.tsv", duck.ranks(), codes, folder)
        for engine in (duck, lite):
            log(f"{engine.name}: answering")
            results[engine.name] = {int(q["qid"]): engine.answer(q) for q in queries}
    families = {int(q["qid"]): family(q) for q in queries}

    mismatches = 0
    for name in ("duckdb", "sqlite"):
        for qid, (total, ids, _) in results[name].items():
            t, i, _ = results["nearby"][qid]
            if (total, checksum(ids)) != (t, checksum(i)):
                mismatches += 1
                if mismatches <= 10:
                    log(f"mismatch: {name} qid {qid}: total {total} vs nearby {t}; first ids {ids[:5]} vs {i[:5]}")
    report = {"queries": len(queries), "nearbyWallSeconds": wall, "duckdb": duck.version, "sqlite": lite.version,
              "mismatches": mismatches, "families": {}}
    header = "| family | queries | Nearby p50 / p99 µs | DuckDB p50 / p99 µs | SQLite p50 / p99 µs | Nearby q/s | DuckDB q/s | SQLite q/s |"
    print(header)
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    names = sorted(set(families.values())) + ["all"]
    for fam in names:
        qids = [q for q in families if fam == "all" or families[q] == fam]
        row = {e: stats([results[e][q][2] for q in qids]) for e in ("nearby", "duckdb", "sqlite")}
        report["families"][fam] = {e: {"p50": v[0], "p99": v[1], "qps": v[2]} for e, v in row.items()}
        cells = " | ".join(f"{row[e][0]:,.1f} / {row[e][1]:,.1f}" for e in ("nearby", "duckdb", "sqlite"))
        rates = " | ".join(f"{row[e][2]:,.0f}" for e in ("nearby", "duckdb", "sqlite"))
        print(f"| {fam} | {len(qids)} | {cells} | {rates} |")
    print(f"\nanswers differing from Nearby's: {mismatches} (of {2 * len(queries)}); "
          f"nearby process wall time {wall:.2f} s; DuckDB {duck.version}, SQLite {lite.version}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    if args.svg:
        chart(report, args.svg)
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
