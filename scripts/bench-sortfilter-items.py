#!/usr/bin/env python3
"""Items (a)-(f) of `nearby bench sortfilter` on DuckDB (one thread) and SQLite (indexed), in one run.

usage: python3 scripts/bench-sortfilter-items.py PREFIX --nearby BIN --db CACHE [--runs N]

Runs `nearby bench sortfilter --places PREFIX.places.tsv --runs N` (the memory engine) first, then
loads the same places into DuckDB and SQLite exactly as scripts/bench-sortfilter.py does (its classes:
same columns, indexes and title order; CACHE gives the legal-dong column that script needs) and times
each item there, as the median of N runs of:
- "page": the item's one statement (`SELECT id ... ORDER BY ... LIMIT ...`), the work SQLite's
  index does for a page;
- "count + page": that statement and the `count(*)` of its filter, the work behind an answer with an
  exact total (Nearby's items count theirs, except c-page).
(e) is the radius family's query through the harness (count + page); (f) is one `GROUP BY category`.
Prints one table (milliseconds) with each engine's checksum (sha1 of the ids joined by ",", first 16
hex digits; (f) over "category:count"), and exits 1 when a checksum differs from Nearby's.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bench_sortfilter", os.path.join(here, "bench-sortfilter.py"))
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)

# The items as SQL: (filter, order by (title order substituted), limit, offset); (e) and (f) apart.
ITEMS = {
    "a": ("", "{title}, id", None, 0),
    "b": ("category IN (12, 39)", "modified DESC, id", 30, 0),
    "c": ("areacode = '11' AND instr(title, '동') > 0", "{title}, id", 30, 0),
    "c-page": ("areacode = '11' AND instr(title, '동') > 0", "{title}, id", 30, 0),
    "d": ("created BETWEEN 20150101000000 AND 20181231235959", "created, id", 100, 1000),
}
RADIUS_ITEM = {"category": "39", "areacode": "", "keyword": "", "created-since": "", "created-until": "",
               "modified-since": "", "lat": "37.5665", "lon": "126.978", "radius": "2000", "sort": "distance",
               "limit": "30", "page": "1"}
CATEGORIES = [12, 14, 15, 25, 28, 32, 38, 39]


def timed(fn, runs):
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter_ns()
        result = fn()
        times.append((time.perf_counter_ns() - start) / 1e6)
    return statistics.median(times), result


def sql_items(engine, runs):
    """{item: (page ms, count + page ms, checksum)} on one of the harness's engines."""
    out = {}
    for name, (where, order, limit, offset) in ITEMS.items():
        clause = (" WHERE " + where) if where else ""
        page_sql = (f"SELECT id FROM places{clause} ORDER BY {order.format(title=engine.title_order)}"
                    + (f" LIMIT {limit} OFFSET {offset}" if limit else ""))
        page_ms, rows = timed(lambda: engine.con.execute(page_sql).fetchall(), runs)
        both_ms, _ = timed(lambda: (engine.con.execute(f"SELECT count(*) FROM places{clause}").fetchone(),
                                    engine.con.execute(page_sql).fetchall()), runs)
        out[name] = (page_ms, both_ms, harness.checksum([r[0] for r in rows]))
    e_ms, (_, ids, _) = timed(lambda: engine.answer(RADIUS_ITEM), runs)
    out["e"] = (None, e_ms, harness.checksum(ids))
    f_ms, rows = timed(lambda: engine.con.execute("SELECT category, count(*) FROM places GROUP BY category ORDER BY category").fetchall(), runs)
    counts = dict(rows)
    out["f"] = (None, f_ms, harness.checksum([f"{c}:{counts.get(c, 0)}" for c in CATEGORIES]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("prefix")
    parser.add_argument("--nearby", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    places = args.prefix + ".places.tsv"
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731

    log("nearby: bench sortfilter")
    run = subprocess.run([args.nearby, "bench", "sortfilter", "--places", places, "--runs", str(args.runs)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"nearby failed ({run.returncode}): {run.stderr.strip()}")
    nearby = {i["name"]: i for i in json.loads(run.stdout)["items"]}

    with tempfile.TemporaryDirectory() as folder:
        codes, codes_path = harness.legal_dong_codes(args.nearby, args.db, folder)
        log("duckdb: loading")
        duck = harness.DuckDBEngine(places, codes_path)
        log("sqlite: loading and indexing")
        lite = harness.SQLiteEngine(places, duck.ranks(), codes, folder)
        lite.con.execute("CREATE INDEX by_areacode_title ON places(areacode, title_rank)")
        lite.con.execute("ANALYZE")
        results = {}
        for engine in (duck, lite):
            log(f"{engine.name}: items")
            results[engine.name] = sql_items(engine, args.runs)

    def ms(v):
        return "" if v is None else f"{v:,.4f}" if v < 1 else f"{v:,.1f}"

    print("| item | Nearby ms | DuckDB page / count + page ms | SQLite page / count + page ms | checksums |")
    print("|---|---:|---:|---:|---|")
    differ = 0
    for name in ["a", "b", "c", "c-page", "d", "e", "f"]:
        n = nearby[name]
        sums = {e: results[e][name][2] for e in ("duckdb", "sqlite")}
        same = all(s == n["checksum"] for s in sums.values())
        differ += not same
        cells = " | ".join(f"{ms(results[e][name][0])} / {ms(results[e][name][1])}" for e in ("duckdb", "sqlite"))
        print(f"| ({name}) | {ms(n['medianMicros'] / 1000)} | {cells} | "
              + (f"`{n['checksum']}` all equal" if same else f"DIFFER: nearby {n['checksum']}, {sums}") + " |")
    print(f"\nDuckDB {duck.version} (1 thread), SQLite {lite.version}; median of {args.runs} runs each")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
