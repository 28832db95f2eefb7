#!/usr/bin/env python3
"""Checks a `nearby bench radius --answers FILE` TSV against an independent brute force.

usage: python3 scripts/check-answers.py W.places.tsv W.queries.tsv ANSWERS.tsv [FIRST_N]

For each query (the first FIRST_N, default all that ANSWERS has): every place within radius_m by the
haversine distance on a sphere of R = 6,371,008.8 m, ordered by distance then id (as integers), cut to
`limit` when > 0; checksum = first 16 hex digits of sha1 of the ids joined by ",". This is the workload
README's definition, written again here with numpy so it shares no code with Nearby. Prints the number
of agreeing queries and the first mismatches; exits 1 on any mismatch.

numpy's vectorised sin/cos may differ from the C library's by an ulp, which can swap two places whose
distances differ by ~1e-9 m (or move one across the radius). A query that disagrees is therefore
recomputed place by place with Python's math module (the C library, as Nearby uses) before it counts
as a mismatch; the output says how many needed that.
"""
import csv
import hashlib
import sys

import math

import numpy as np

R = 6371008.8


def libm_answer(q, ids, lats, lons, candidates):
    """The answer computed with the C library's sin/cos/atan2, for the candidate rows."""
    rad = math.pi / 180
    qlat, qlon = float(q["lat"]), float(q["lon"])
    rows = []
    for i in candidates:
        s1 = math.sin((lats[i] - qlat) * rad * 0.5)
        s2 = math.sin((lons[i] - qlon) * rad * 0.5)
        h = min(1.0, s1 * s1 + math.cos(qlat * rad) * math.cos(lats[i] * rad) * s2 * s2)
        d = 2 * R * math.atan2(math.sqrt(h), math.sqrt(1 - h))
        if d <= float(q["radius_m"]):
            rows.append((d, int(ids[i])))
    rows.sort()
    return rows


def main():
    places_path, queries_path, answers_path = sys.argv[1:4]
    first = int(sys.argv[4]) if len(sys.argv) > 4 else None
    ids, lats, lons = [], [], []
    with open(places_path, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            ids.append(int(row["id"]))
            lats.append(float(row["lat"]))
            lons.append(float(row["lon"]))
    ids = np.array(ids, dtype=np.int64)
    lat = np.radians(np.array(lats))
    lon = np.radians(np.array(lons))
    cos_lat = np.cos(lat)
    with open(queries_path, newline="") as f:
        queries = {int(r["qid"]): r for r in csv.DictReader(f, delimiter="\t")}
    with open(answers_path, newline="") as f:
        answers = list(csv.DictReader(f, delimiter="\t"))
    if first is not None:
        answers = answers[:first]

    agree, recomputed, mismatches = 0, 0, []
    for a in answers:
        q = queries[int(a["qid"])]
        qlat, qlon = np.radians(float(q["lat"])), np.radians(float(q["lon"]))
        s1 = np.sin((lat - qlat) * 0.5)
        s2 = np.sin((lon - qlon) * 0.5)
        h = np.minimum(1.0, s1 * s1 + np.cos(qlat) * cos_lat * s2 * s2)
        d = 2 * R * np.arctan2(np.sqrt(h), np.sqrt(1 - h))
        inside = np.nonzero(d <= float(q["radius_m"]))[0]
        order = inside[np.lexsort((ids[inside], d[inside]))]
        limit = int(q["limit"])
        if limit > 0:
            order = order[:limit]
        checksum = hashlib.sha1(",".join(str(i) for i in ids[order]).encode()).hexdigest()[:16]
        total = len(inside)
        if not (int(a["total"]) == total and a["checksum"] == checksum):
            near = np.nonzero(d <= float(q["radius_m"]) + 1.0)[0]
            rows = libm_answer(q, ids, lats, lons, near)
            total = len(rows)
            cut = rows[:limit] if limit > 0 else rows
            checksum = hashlib.sha1(",".join(str(i) for _, i in cut).encode()).hexdigest()[:16]
            recomputed += 1
        if int(a["total"]) == total and a["checksum"] == checksum:
            agree += 1
        else:
            mismatches.append((a["qid"], a["total"], total, a["checksum"], checksum))
    note = f" ({recomputed} recomputed with the C library's sin/cos)" if recomputed else ""
    print(f"{answers_path}: {agree} of {len(answers)} queries agree with the brute force{note}")
    for m in mismatches[:10]:
        print("  qid %s: total %s vs %d, checksum %s vs %s" % m)
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
