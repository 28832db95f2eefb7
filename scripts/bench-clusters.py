#!/usr/bin/env python3
"""Cluster hierarchy: Nearby's build beside pysupercluster's on the same points, viewports, a cold process.

usage: python3 scripts/bench-clusters.py PREFIX --nearby BIN --db CACHE [--repeat 3] [--json OUT]

PREFIX.places.tsv is the shared workload's places (`nearby generate --workload PREFIX --count 1000000`),
CACHE a Nearby cache holding them (`nearby import --db CACHE PREFIX.places.tsv`); both are made when
missing. BIN should be a release build (`swift build -c release`).

Measured in one run:
- build: the hierarchy over the places' lon/lat in file order (default options: radius 40, extent 512,
  minPoints 2, zooms 0…16), the median of --repeat builds, by `nearby bench clusters` (in process, the
  points already in memory) and by pysupercluster (scripts/supercluster_peer.py, which pip-installs it
  when missing; the points already in a numpy array);
- viewports: getClusters p50 and p99 of 1,000 viewports of 1024x768 pixels at zooms 4, 8 and 12,
  centred on places drawn with a fixed seed (Nearby only: pysupercluster is called through Python);
- cold: `nearby clusters --zoom 8 --bbox … --format jsonl` as a new process on CACHE (opens the
  snapshot, asks every match, builds the hierarchy, writes one viewport), unfiltered and with
  `--category 39`, the median of --repeat runs of wall time.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, **kw):
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), done.stderr[-2000:]))
    return done.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("--nearby", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()

    places = args.prefix + ".places.tsv"
    if not os.path.exists(places):
        run([args.nearby, "generate", "--workload", args.prefix, "--count", str(args.count)])
    if not os.path.exists(args.db):
        run([args.nearby, "import", "--db", args.db, places])

    with tempfile.TemporaryDirectory() as tmp:
        points = os.path.join(tmp, "points.tsv")
        with open(places) as src, open(points, "w") as out:
            header = src.readline().rstrip("\n").split("\t")
            lat_i, lon_i = header.index("lat"), header.index("lon")
            for line in src:
                f = line.rstrip("\n").split("\t")
                out.write("%s\t%s\n" % (f[lon_i], f[lat_i]))

        nearby = json.loads(run([args.nearby, "bench", "clusters", "--places", points, "--lon-lat",
                                 "--repeat", str(args.repeat)]))
        peer = [json.loads(run([sys.executable, os.path.join(HERE, "supercluster_peer.py"), "build", points]))
                for _ in range(args.repeat)]
        peer_build = statistics.median(p["buildSeconds"] for p in peer)

    cold = {}
    for name, extra in (("all", []), ("category 39", ["--category", "39"])):
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            run([args.nearby, "clusters", "--db", args.db, "--zoom", "8", "--bbox", "126.5,37.0,127.5,38.0",
                 "--format", "jsonl"] + extra)
            times.append(time.perf_counter() - start)
        cold[name] = statistics.median(times)

    result = {
        "points": nearby["points"],
        "buildSeconds": {"nearby": nearby["buildSeconds"], "pysupercluster": peer_build},
        "hierarchyBytes": nearby["bytes"],
        "bytesPerPoint": nearby["bytes"] / max(1, nearby["points"]),
        "levels": nearby["levels"],
        "viewports": nearby["zooms"],
        "coldProcessSeconds": cold,
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
