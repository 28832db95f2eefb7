#!/usr/bin/env python3
"""pysupercluster (the C++ port of supercluster) as a peer for Nearby's clusters.

    supercluster_peer.py counts POINTS.tsv ZOOMS [--radius 40 --extent 512 --max-zoom 16 --min-zoom 0]
        one JSON line per zoom: {"zoom": z, "counts": [sorted point counts of the level's entries]}
    supercluster_peer.py build POINTS.tsv [options]
        one JSON line: {"points": n, "buildSeconds": s}

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
    parser.add_argument("command", choices=["counts", "build"])
    parser.add_argument("points")
    parser.add_argument("zooms", nargs="?", default="")
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
    for z in [int(z) for z in args.zooms.split(",") if z]:
        found = index.getClusters(top_left=(-180, 90), bottom_right=(180, -90), zoom=z)
        print(json.dumps({"zoom": z, "counts": sorted(c["count"] for c in found)}))


if __name__ == "__main__":
    main()
