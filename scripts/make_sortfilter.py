#!/usr/bin/env python3
"""Writes the sort/filter workload beside a radius workload: PREFIX.sortfilter.tsv.

usage: python3 scripts/make_sortfilter.py PREFIX [N_QUERIES] [SEED]

Reads PREFIX.places.tsv (`nearby generate --workload PREFIX`, or the shared make_dataset.py) and
writes N_QUERIES (default 10,000) mixed queries of the first seven families below, then N_QUERIES / 5
(2,000) of the last two, deterministic for the same places file and SEED (default 42; Python's random
module, as make_dataset.py uses; the last two families draw from their own generator, seeded SEED + 1,
so the first N_QUERIES lines are the same with or without them). Standard library only.

The file follows the radius workload's conventions: a header, then one query a line, tab-separated,
`qid` first. The other columns are `nearby query` parameter names, so `nearby query --queries` reads
the file as it is; an empty cell leaves that parameter unset:

    qid category areacode keyword created-since created-until modified-since lat lon radius sort limit page

What a query answers: the places that pass every
filter, ordered by `sort` (ties by id ascending, as integers; no sort: by id), rows
(page - 1) * limit + 1 ... page * limit. Its identity is the workload README's: the total number of
matches and the checksum of the returned ids.

The families, with their share of the queries (scripts/bench-sortfilter.py tells them apart by
their columns, `family` below):
    title     category 1-2 types, by Korean title (ICU ko), 30 a page, page 1-3         20 %
    newest    category 1-3 types, newest modified first, first 30                       15 %
    keyword   areacode and a title syllable, by title, first 30                         15 %
    created   created in a span of years, by created, 100 a page, page 1-20             15 %
    near      radius 0.5-20 km around a place + one category, by distance, first 30     15 %
    count     one category or one areacode, by id, 1 row (the total is the answer)      10 %
    mixed     modified since a day + category, by category then newest created, 50 a
              page, page 1-10                                                          10 %
and, after them (qids N_QUERIES + 1 ...):
    span      created in a span of years + category 1-2 types, newest modified first,
              20 a page, page 1-5 (a date range, sorted by another key)                 50 %
    multi     category 1-2 types + areacode + modified since a day, half of them also
              created until the end of a year, by title, 20 a page, page 1-3            50 %
"""
import csv
import random
import sys

CATEGORIES = [12, 14, 15, 25, 28, 32, 38, 39]
COLUMNS = ["qid", "category", "areacode", "keyword", "created-since", "created-until",
           "modified-since", "lat", "lon", "radius", "sort", "limit", "page"]
KINDS = [("title", 20), ("newest", 15), ("keyword", 15), ("created", 15), ("near", 15), ("count", 10), ("mixed", 10)]


def hangul_syllables(title):
    return [c for c in title if "\uac00" <= c <= "\ud7a3"]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    prefix = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 42
    places = []
    with open(prefix + ".places.tsv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            places.append((float(row["lat"]), float(row["lon"]), row["title"], row["areacode"], row["created"][:4]))
    if not places:
        sys.exit(f"{prefix}.places.tsv: no places")
    years = sorted({p[4] for p in places if p[4]})
    rng = random.Random(seed)
    kinds = [k for k, weight in KINDS for _ in range(weight)]
    out = open(prefix + ".sortfilter.tsv", "w", encoding="utf-8", newline="\n")
    out.write("\t".join(COLUMNS) + "\n")
    for qid in range(1, count + 1):
        kind = rng.choice(kinds)
        q = {"qid": str(qid)}
        place = places[rng.randrange(len(places))]
        if kind == "title":
            q["category"] = ",".join(str(c) for c in sorted(rng.sample(CATEGORIES, rng.randint(1, 2))))
            q.update(sort="title", limit="30", page=str(rng.randint(1, 3)))
        elif kind == "newest":
            q["category"] = ",".join(str(c) for c in sorted(rng.sample(CATEGORIES, rng.randint(1, 3))))
            q.update(sort="-modified", limit="30", page="1")
        elif kind == "keyword":
            syllables = hangul_syllables(place[2]) or ["동"]
            q.update(areacode=place[3], keyword=rng.choice(syllables), sort="title", limit="30", page="1")
        elif kind == "created":
            first = rng.randrange(len(years))
            last = min(len(years) - 1, first + rng.randint(0, 3))
            q.update({"created-since": years[first] + "0101", "created-until": years[last] + "1231",
                      "sort": "created", "limit": "100", "page": str(rng.randint(1, 20))})
        elif kind == "near":
            q.update(lat=f"{place[0] + rng.gauss(0, 0.01):.6f}", lon=f"{place[1] + rng.gauss(0, 0.01):.6f}",
                     radius=str(rng.choice([500, 1000, 2000, 5000, 10000, 20000])),
                     category=str(rng.choice(CATEGORIES)), sort="distance", limit="30", page="1")
        elif kind == "count":
            if rng.random() < 0.5:
                q["category"] = str(rng.choice(CATEGORIES))
            else:
                q["areacode"] = place[3]
            q.update(limit="1", page="1")
        else:  # mixed
            year = rng.choice(years)
            q.update({"modified-since": f"{year}{rng.randint(1, 12):02d}01",
                      "category": str(rng.choice(CATEGORIES)), "sort": "category,-created",
                      "limit": "50", "page": str(rng.randint(1, 10))})
        out.write("\t".join(q.get(c, "") for c in COLUMNS) + "\n")
    extra = random.Random(seed + 1)
    for qid in range(count + 1, count + count // 5 + 1):
        q = {"qid": str(qid)}
        place = places[extra.randrange(len(places))]
        q["category"] = ",".join(str(c) for c in sorted(extra.sample(CATEGORIES, extra.randint(1, 2))))
        if extra.random() < 0.5:  # span
            first = extra.randrange(len(years))
            last = min(len(years) - 1, first + extra.randint(0, 3))
            q.update({"created-since": years[first] + "0101", "created-until": years[last] + "1231",
                      "sort": "-modified", "limit": "20", "page": str(extra.randint(1, 5))})
        else:  # multi
            q.update({"areacode": place[3], "modified-since": f"{extra.choice(years)}{extra.randint(1, 12):02d}01",
                      "sort": "title", "limit": "20", "page": str(extra.randint(1, 3))})
            if extra.random() < 0.5:
                q["created-until"] = extra.choice(years) + "1231"
        out.write("\t".join(q.get(c, "") for c in COLUMNS) + "\n")
    out.close()


def family(q):
    """The family of a query row (a dict of the columns), from the columns it sets."""
    sort = q.get("sort", "")
    if sort == "title":
        return "keyword" if q.get("keyword") else "multi" if q.get("modified-since") else "title"
    if sort == "-modified" and q.get("created-since"):
        return "span"
    return {"-modified": "newest", "created": "created", "distance": "near",
            "category,-created": "mixed", "": "count"}[sort]


if __name__ == "__main__":
    main()
