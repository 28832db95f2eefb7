#!/usr/bin/env python3
"""The shared workload (/work/shared/workload/README.md) turned into what scripts/bench-http.sh sends.

usage:
  workload.py paths QUERIES.tsv KIND > paths.txt          # /v1/places targets, one a line (wrk cycles them)
  workload.py redis-load PLACES.tsv > load.resp            # GEOADD protocol for redis-cli --pipe
  workload.py redis-commands QUERIES.tsv KIND > cmds.txt   # GEOSEARCH inline commands, one a line
  workload.py answers PORT QUERIES.tsv KIND OUT.tsv        # every query through HTTP once: qid total returned checksum
  workload.py check-category PLACES.tsv QUERIES.tsv ANSWERS.tsv   # brute force for KIND category
  workload.py compare-redis QUERIES.tsv KIND REDIS_IDS.txt PORT   # how many Redis answers differ from the server's

KIND is `radius` (every place within radius_m, by distance then id, cut to the query's limit) or
`category` (the same, of one content type: CATEGORIES[qid % 8], one key per type in Redis).
A query's limit 0 means every match: Nearby is asked for limit=1000000 (the server runs with
--max-limit 1000000), Redis for no COUNT.
"""
import csv
import hashlib
import http.client
import json
import sys

CATEGORIES = [12, 14, 15, 25, 28, 32, 38, 39]
R = 6371008.8


def queries(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def category(q):
    return CATEGORIES[int(q["qid"]) % len(CATEGORIES)]


def target(q, kind):
    limit = int(q["limit"]) or 1000000
    t = f"/v1/places?lat={q['lat']}&lon={q['lon']}&radius={q['radius_m']}&limit={limit}&fields=id,distance"
    return t + (f"&category={category(q)}" if kind == "category" else "")


def redis_command(q, kind):
    key = f"cat:{category(q)}" if kind == "category" else "places"
    count = f" COUNT {q['limit']}" if int(q["limit"]) > 0 else ""
    return f"GEOSEARCH {key} FROMLONLAT {q['lon']} {q['lat']} BYRADIUS {q['radius_m']} m ASC{count} WITHDIST\r\n"


def resp(*args):
    out = [f"*{len(args)}\r\n"]
    for a in args:
        a = str(a)
        out.append(f"${len(a.encode())}\r\n{a}\r\n")
    return "".join(out)


def checksum(ids):
    return hashlib.sha1(",".join(ids).encode()).hexdigest()[:16]


def main():
    cmd = sys.argv[1]
    if cmd == "paths":
        for q in queries(sys.argv[2]):
            print(target(q, sys.argv[3]))
    elif cmd == "redis-load":
        out = sys.stdout
        with open(sys.argv[2], newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                out.write(resp("GEOADD", "places", row["lon"], row["lat"], row["id"]))
                out.write(resp("GEOADD", f"cat:{row['category']}", row["lon"], row["lat"], row["id"]))
    elif cmd == "redis-commands":
        for q in queries(sys.argv[2]):
            sys.stdout.write(redis_command(q, sys.argv[3]))
    elif cmd == "answers":
        port, qs, kind, out_path = int(sys.argv[2]), queries(sys.argv[3]), sys.argv[4], sys.argv[5]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        failures = 0
        with open(out_path, "w") as out:
            out.write("qid\ttotal\treturned\tchecksum\n")
            for q in qs:
                conn.request("GET", target(q, kind))
                r = conn.getresponse()
                body = r.read()
                if r.status != 200:
                    failures += 1
                    print(f"qid {q['qid']}: HTTP {r.status} {body[:200]!r}", file=sys.stderr)
                    continue
                answer = json.loads(body)
                ids = [p["id"] for p in answer["places"]]
                if answer["next"] is not None and int(q["limit"]) == 0:
                    failures += 1
                    print(f"qid {q['qid']}: more than one page", file=sys.stderr)
                out.write(f"{q['qid']}\t{answer['total']}\t{len(ids)}\t{checksum(ids)}\n")
        print(f"{out_path}: {len(qs)} queries through HTTP, {failures} failed")
        sys.exit(1 if failures else 0)
    elif cmd == "check-category":
        import numpy as np
        by_cat = {}
        with open(sys.argv[2], newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                by_cat.setdefault(int(row["category"]), []).append((int(row["id"]), float(row["lat"]), float(row["lon"])))
        arrays = {}
        for c, rows in by_cat.items():
            ids = np.array([r[0] for r in rows], dtype=np.int64)
            lat = np.radians(np.array([r[1] for r in rows]))
            lon = np.radians(np.array([r[2] for r in rows]))
            arrays[c] = (ids, lat, lon, np.cos(lat))
        qs = {int(q["qid"]): q for q in queries(sys.argv[3])}
        agree, bad = 0, []
        with open(sys.argv[4], newline="") as f:
            answers = list(csv.DictReader(f, delimiter="\t"))
        for a in answers:
            q = qs[int(a["qid"])]
            ids, lat, lon, cos_lat = arrays.get(category(q), (np.array([], dtype=np.int64),) + (np.array([]),) * 3)
            qlat, qlon = np.radians(float(q["lat"])), np.radians(float(q["lon"]))
            s1, s2 = np.sin((lat - qlat) * 0.5), np.sin((lon - qlon) * 0.5)
            h = np.minimum(1.0, s1 * s1 + np.cos(qlat) * cos_lat * s2 * s2)
            d = 2 * R * np.arctan2(np.sqrt(h), np.sqrt(1 - h))
            inside = np.nonzero(d <= float(q["radius_m"]))[0]
            order = inside[np.lexsort((ids[inside], d[inside]))]
            if int(q["limit"]) > 0:
                order = order[: int(q["limit"])]
            want = (len(inside), checksum(str(i) for i in ids[order]))
            if (int(a["total"]), a["checksum"]) == want:
                agree += 1
            else:
                bad.append((a["qid"], a["total"], want[0]))
        # numpy's sin/cos may differ from libm's by an ulp (see scripts/check-answers.py): a
        # disagreement is listed with both totals, for a look, not silently accepted.
        print(f"{sys.argv[4]}: {agree} of {len(answers)} category queries agree with the brute force")
        for b in bad[:10]:
            print("  qid %s: total %s vs %d" % b)
        sys.exit(1 if bad else 0)
    elif cmd == "compare-redis":
        qs = queries(sys.argv[2])
        with open(sys.argv[4]) as f:
            redis = [line.rstrip("\n") for line in f]
        # The exact answers are the server's (checked against the brute force in the same run).
        port = int(sys.argv[5])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        differ, missing, extra = 0, 0, 0
        for q, line in zip(qs, redis):
            conn.request("GET", target(q, sys.argv[3]))
            exact = [p["id"] for p in json.loads(conn.getresponse().read())["places"]]
            got = line.split(",") if line else []
            if set(got) != set(exact):
                differ += 1
                missing += len(set(exact) - set(got))
                extra += len(set(got) - set(exact))
        print(json.dumps({"kind": sys.argv[3], "queries": len(qs), "redis_answers_differing": differ,
                          "places_missed": missing, "places_added": extra}))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
