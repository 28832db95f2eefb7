#!/usr/bin/env python3
"""pysupercluster (the C++ port of supercluster) as a peer for Nearby's clusters.

    supercluster_peer.py counts POINTS.tsv ZOOMS [--radius 40 --extent 512 --max-zoom 16 --min-zoom 0]
        one JSON line per zoom: {"zoom": z, "counts": [sorted point counts of the level's entries]}
    supercluster_peer.py build POINTS.tsv [options]
        one JSON line: {"points": n, "buildSeconds": s}
    supercluster_peer.py viewports POINTS.tsv BOXES.tsv [options]
        getClusters timed on each box of BOXES.tsv (zoom, minLon, minLat, maxLon, maxLat a line, as
        `nearby bench clusters --viewports-out` writes them), time.perf_counter_ns around each call (so
        the figure includes the Python call and the conversion of its answer to Python objects); one
        JSON line: {"zooms": {"Z": {"p50Us": …, "p99Us": …, "meanEntries": …}}}

POINTS.tsv holds `lon<TAB>lat` lines. pysupercluster is installed for the user when it is missing
(`ensure`); its setup.py runs only as a script, so pip builds it with the legacy setup.py path.
Anything that fails exits non-zero with the reason: the peer is never skipped quietly.
"""

import argparse
import json
import subprocess
import sys
import time


def ensure():
    try:
        import pysupercluster  # noqa: F401
        return
    except ImportError:
        pass
    pip = [sys.executable, "-m", "pip", "install", "--user", "--quiet", "--disable-pip-version-check"]
    for step in (pip + ["numpy", "setuptools", "wheel"],
                 pip + ["--no-use-pep517", "--no-build-isolation", "pysupercluster==0.7.7"]):
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit("cannot install pysupercluster: %s\n%s" % (" ".join(step), done.stderr[-2000:]))
    import site
    import importlib
    sys.path.insert(0, site.getusersitepackages())
    importlib.invalidate_caches()


def read_points(path):
    import numpy
    rows = []
    with open(path) as f:
        for line in f:
            lon, lat = line.split("\t")[:2]
            rows.append((float(lon), float(lat)))
    return numpy.array(rows, dtype=numpy.float64).reshape(-1, 2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["counts", "build", "viewports"])
    parser.add_argument("points")
    parser.add_argument("zooms", nargs="?", default="", help="counts: zooms, comma-separated; viewports: BOXES.tsv")
    parser.add_argument("--radius", type=float, default=40)
    parser.add_argument("--extent", type=float, default=512)
    parser.add_argument("--min-zoom", type=int, default=0)
    parser.add_argument("--max-zoom", type=int, default=16)
    args = parser.parse_args()
    ensure()
    import pysupercluster
    points = read_points(args.points)
    start = time.perf_counter()
    index = pysupercluster.SuperCluster(points, min_zoom=args.min_zoom, max_zoom=args.max_zoom,
                                        radius=args.radius, extent=args.extent)
    took = time.perf_counter() - start
    if args.command == "build":
        print(json.dumps({"points": len(points), "buildSeconds": took}))
        return
    if args.command == "viewports":
        boxes = {}
        with open(args.zooms) as f:
            for line in f:
                z, min_lon, min_lat, max_lon, max_lat = line.split("\t")
                boxes.setdefault(int(z), []).append((float(min_lon), float(min_lat), float(max_lon), float(max_lat)))
        zooms = {}
        for z, list_ in boxes.items():
            latencies = []
            entries = 0
            for min_lon, min_lat, max_lon, max_lat in list_:
                start = time.perf_counter_ns()
                found = index.getClusters(top_left=(min_lon, max_lat), bottom_right=(max_lon, min_lat), zoom=z)
                latencies.append((time.perf_counter_ns() - start) / 1e3)
                entries += len(found)
            latencies.sort()

            def at(q):
                return latencies[min(len(latencies) - 1, int(q * len(latencies)))]
            zooms[str(z)] = {"p50Us": at(0.5), "p99Us": at(0.99), "meanEntries": entries / max(1, len(list_))}
        print(json.dumps({"zooms": zooms}))
        return
    for z in [int(z) for z in args.zooms.split(",") if z]:
        found = index.getClusters(top_left=(-180, 90), bottom_right=(180, -90), zoom=z)
        print(json.dumps({"zoom": z, "counts": sorted(c["count"] for c in found)}))


if __name__ == "__main__":
    main()
