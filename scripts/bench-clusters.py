#!/usr/bin/env python3
"""Cluster hierarchy: Nearby's build beside pysupercluster's on the same points, viewports, a cold process.

usage: python3 scripts/bench-clusters.py PREFIX --nearby BIN --db CACHE [--repeat 3] [--json OUT] [--cold-only]
                                          [--spread CACHE100K]

PREFIX.places.tsv is the shared workload's places (`nearby generate --workload PREFIX --count 1000000`),
CACHE a Nearby cache holding them (`nearby import --db CACHE PREFIX.places.tsv`); both are made when
missing. BIN should be a release build (`swift build -c release`).

Measured in one run:
- build: the hierarchy over the places' lon/lat in file order (default options: radius 40, extent 512,
  minPoints 2, zooms 0…16), the median of --repeat builds (and of at least 5 over Seoul's places alone,
  areacode 11, a filtered query's matches), by `nearby bench clusters` (in process, the
  points already in memory) and by pysupercluster (scripts/supercluster_peer.py, which pip-installs it
  when missing; the points already in a numpy array);
- viewports: getClusters p50 and p99 of 1,000 viewports of 1024x768 pixels at zooms 4, 8 and 12,
  centred on places drawn with a fixed seed, Nearby's in process and pysupercluster's on the same
  boxes (`nearby bench clusters --viewports-out`); pysupercluster's figure is timed in Python around
  each getClusters call, so it includes the Python call and building its answer's Python objects;
- cold: `nearby clusters --zoom 8 --bbox … --format jsonl` as a new process on CACHE, the median of
  --repeat runs of wall time (after one untimed run, which writes the kept files when missing):
  unfiltered and with `--category 39` (the kept hierarchy mapped, rows in id order from the snapshot),
  and with `--ldong 11` (a filter not kept, Seoul: 96,343 places of the 1M workload; asks every match and
  builds the hierarchy);
- server: `nearby serve` on CACHE, started afresh --repeat times: once it answers /healthz, the first
  `/v1/clusters?zoom=8&bbox=…` request of each of the three (every place, category=39, ldong=11: its
  places taken from the snapshot's table and its hierarchy built), then the same request again (kept);
- spread (with --spread CACHE100K, a cache of `nearby generate --count 100000`, made when missing): on a
  fresh server, the first `/v1/clusters?zoom=8&…` request under each of three filters that every place
  passes (`created-since=1900-01-0N`), so 100,000 places spread over the country are clustered afresh.
"""
import argparse
import json
import os
import resource
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


def cold_runs(args):
    cold = {}
    # The kept hierarchies (every place, one content type: read from their file once written), and a
    # filter that is not kept (Seoul, --ldong 11: the 96,343 places of areacode 11 in the 1M workload), whose
    # hierarchy every process builds from its matches.
    for name, extra in (("all", []), ("category 39", ["--category", "39"]), ("ldong 11", ["--ldong", "11"])):
        command = [args.nearby, "clusters", "--db", args.db, "--zoom", "8", "--bbox", "126.5,37.0,127.5,38.0",
                   "--format", "jsonl"] + extra
        run(command)
        wall, cpu = [], []
        for _ in range(args.repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            run(command)
            wall.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        # Wall time, and the process's CPU time (user + system), which a loaded machine inflates less.
        cold[name] = {"wallSeconds": statistics.median(wall), "cpuSeconds": statistics.median(cpu)}
    return cold


SERVER_FILTERS = (("all", ""), ("category 39", "&category=39"), ("ldong 11", "&ldong=11"))
SPREAD_FILTERS = tuple(("created-since 1900-01-0%d" % k, "&created-since=1900-01-0%d" % k) for k in (1, 2, 3))


def server_runs(args, db, filters):
    """The first `/v1/clusters` request of each filter on a server just started (ready: `/healthz`
    answered), then the same request again (the hierarchy kept); --repeat servers, medians."""
    import http.client
    import socket
    times = {name: {"first": [], "again": []} for name, _ in filters}
    for _ in range(args.repeat):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([args.nearby, "serve", "--db", db, "--port", str(port),
                                   "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                    c.request("GET", "/healthz")
                    if c.getresponse().status == 200:
                        break
                except OSError:
                    time.sleep(0.05)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            for name, extra in filters:
                path = "/v1/clusters?zoom=8&bbox=126.5,37.0,127.5,38.0&format=jsonl" + extra
                for when in ("first", "again"):
                    start = time.perf_counter()
                    conn.request("GET", path)
                    r = conn.getresponse()
                    r.read()
                    assert r.status == 200, (path, r.status)
                    times[name][when].append(time.perf_counter() - start)
        finally:
            server.terminate()
            server.wait()
    return {name: {w: statistics.median(v) for w, v in t.items()} for name, t in times.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("--nearby", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--cold-only", action="store_true",
                    help="time only the cold processes and a fresh server's first requests")
    ap.add_argument("--spread", metavar="CACHE100K",
                    help="also time a fresh server's first request under filters every place of this cache passes")
    args = ap.parse_args()
    spread = {}
    if args.spread:
        if not os.path.exists(args.spread):
            generated = args.spread + ".tsv"
            with open(generated, "w") as out:
                subprocess.run([args.nearby, "generate", "--count", "100000"], stdout=out, check=True)
            run([args.nearby, "import", "--db", args.spread, generated])
        spread = {"spreadFirstSeconds": server_runs(args, args.spread, SPREAD_FILTERS)}

    places = args.prefix + ".places.tsv"
    if not os.path.exists(places):
        run([args.nearby, "generate", "--workload", args.prefix, "--count", str(args.count)])
    if not os.path.exists(args.db):
        run([args.nearby, "import", "--db", args.db, places])

    if args.cold_only:
        text = json.dumps({"coldProcessSeconds": cold_runs(args),
                           "serverFirstSeconds": server_runs(args, args.db, SERVER_FILTERS), **spread}, indent=1)
        print(text)
        return
    with tempfile.TemporaryDirectory() as tmp:
        points = os.path.join(tmp, "points.tsv")
        seoul = os.path.join(tmp, "seoul.tsv")
        with open(places) as src, open(points, "w") as out, open(seoul, "w") as part:
            header = src.readline().rstrip("\n").split("\t")
            lat_i, lon_i, area_i = header.index("lat"), header.index("lon"), header.index("areacode")
            for line in src:
                f = line.rstrip("\n").split("\t")
                out.write("%s\t%s\n" % (f[lon_i], f[lat_i]))
                if f[area_i] == "11":
                    part.write("%s\t%s\n" % (f[lon_i], f[lat_i]))

        boxes = os.path.join(tmp, "viewports.tsv")
        nearby = json.loads(run([args.nearby, "bench", "clusters", "--places", points, "--lon-lat",
                                 "--repeat", str(args.repeat), "--viewports-out", boxes]))
        peer_viewports = json.loads(run([sys.executable, os.path.join(HERE, "supercluster_peer.py"), "viewports",
                                         points, boxes]))["zooms"]
        peer = [json.loads(run([sys.executable, os.path.join(HERE, "supercluster_peer.py"), "build", points]))
                for _ in range(args.repeat)]
        peer_build = statistics.median(p["buildSeconds"] for p in peer)
        # The hierarchy of a filter's matches alone (Seoul's places, areacode 11), built in process.
        seoul_nearby = json.loads(run([args.nearby, "bench", "clusters", "--places", seoul, "--lon-lat",
                                       "--repeat", str(max(5, args.repeat)), "--zooms", ""]))
        seoul_peer = statistics.median(
            json.loads(run([sys.executable, os.path.join(HERE, "supercluster_peer.py"), "build", seoul]))
            ["buildSeconds"] for _ in range(max(5, args.repeat)))

    cold = cold_runs(args)

    result = {
        "points": nearby["points"],
        "buildSeconds": {"nearby": nearby["buildSeconds"], "pysupercluster": peer_build},
        "filteredBuildSeconds": {"points": seoul_nearby["points"], "nearby": seoul_nearby["buildSeconds"],
                                 "pysupercluster": seoul_peer},
        "hierarchyBytes": nearby["bytes"],
        "bytesPerPoint": nearby["bytes"] / max(1, nearby["points"]),
        "levels": nearby["levels"],
        "viewports": {"nearby": nearby["zooms"], "pysupercluster": peer_viewports,
                      "p50Ratio": {z: nearby["zooms"][z]["p50Us"] / peer_viewports[z]["p50Us"]
                                   for z in nearby["zooms"] if z in peer_viewports}},
        "coldProcessSeconds": cold,
        "serverFirstSeconds": server_runs(args, args.db, SERVER_FILTERS),
        **spread,
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
