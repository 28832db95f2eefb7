#!/usr/bin/env python3
"""Warm radius queries with scipy's cKDTree, the peer harness's method, for the same-run comparison
with `nearby bench radius` (BENCHMARKS.md, "Warm radius queries against the output-sensitive bound").

Per query, timed alone: query_ball_point on 3D unit vectors (chord radius 2·sin(r / 2R), widened by
1e-9 so no match is lost to rounding), the exact haversine distance of every candidate
(R = 6,371,008.8 m, the engines' formula), drop those beyond r, order by (distance, id), cut to the
query's limit. One thread (workers=1). Prints one JSON line: latency percentiles in microseconds and
each answer's checksum (first 16 hex digits of sha1 of the ids joined by ",", the workload README's).

usage: scripts/bench-ckdtree.py PLACES.tsv QUERIES.tsv [--first N]
Installs numpy and scipy with pip (user site) when they are missing.
"""
import argparse, hashlib, json, subprocess, sys, time

try:
    import numpy as np
    from scipy.spatial import cKDTree
except ImportError:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "--user",
                           "--break-system-packages", "numpy", "scipy"])
    import site, importlib
    importlib.reload(site)
    import numpy as np
    from scipy.spatial import cKDTree

R = 6371008.8


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("places"); ap.add_argument("queries")
    ap.add_argument("--first", type=int, default=1000)
    a = ap.parse_args()

    ids, lats, lons = [], [], []
    with open(a.places, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        ci, cla, clo = head.index("id"), head.index("lat"), head.index("lon")
        for line in f:
            c = line.split("\t")
            ids.append(c[ci]); lats.append(float(c[cla])); lons.append(float(c[clo]))
    # Id order: all-digit ids first by value (the engines' order); the workload's ids are 1...n.
    rank = np.argsort(np.array([int(i) for i in ids], dtype=np.int64), kind="stable")
    id_rank = np.empty(len(ids), dtype=np.int64); id_rank[rank] = np.arange(len(ids))
    lat = np.radians(np.array(lats)); lon = np.radians(np.array(lons))
    xyz = np.column_stack((np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)))
    t0 = time.perf_counter()
    tree = cKDTree(xyz)
    build = time.perf_counter() - t0

    queries = []
    with open(a.queries, encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            c = dict(zip(head, line.rstrip("\n").split("\t")))
            queries.append((int(c["qid"]), float(c["lat"]), float(c["lon"]), float(c["radius_m"]), int(c["limit"])))
    if a.first > 0:
        queries = queries[:a.first]

    micros, answers = [], []
    for qid, qlat, qlon, r, limit in queries:
        t0 = time.perf_counter()
        p, l = np.radians(qlat), np.radians(qlon)
        v = (np.cos(p) * np.cos(l), np.cos(p) * np.sin(l), np.sin(p))
        cand = np.asarray(tree.query_ball_point(v, 2 * np.sin(r / (2 * R)) + 1e-9, workers=1), dtype=np.int64)
        h = np.sin((lat[cand] - p) / 2) ** 2 + np.cos(p) * np.cos(lat[cand]) * np.sin((lon[cand] - l) / 2) ** 2
        d = 2 * R * np.arcsin(np.sqrt(np.minimum(h, 1.0)))
        keep = d <= r
        cand, d = cand[keep], d[keep]
        order = np.lexsort((id_rank[cand], d))
        if limit > 0:
            order = order[:limit]
        result = cand[order]
        micros.append((time.perf_counter() - t0) * 1e6)
        answers.append({"qid": qid, "total": int(len(cand)), "returned": int(len(result)),
                        "checksum": hashlib.sha1(",".join(ids[i] for i in result).encode()).hexdigest()[:16]})

    s = sorted(micros)
    pct = lambda q: s[max(0, -(-len(s) * q // 100) - 1)]
    print(json.dumps({"command": "ckdtree", "scipy": __import__("scipy").__version__, "numpy": np.__version__,
                      "places": len(ids), "queries": len(queries), "buildSeconds": build,
                      "latencyMicros": {"p50": pct(50), "p90": pct(90), "p99": pct(99), "max": s[-1],
                                        "mean": sum(s) / len(s)},
                      "answers": answers}))


if __name__ == "__main__":
    main()
