#!/usr/bin/env python3
"""Rebuild data/tourapi-cat.tsv: TourAPI's service classification (서비스분류코드, cat1/cat2/cat3)
with its Korean names, as the service's categoryCode operation answers it, in the service's order.

Source: hapsody/brip-api, `src/prisma/seeds/tourPlace/readMe.md` at commit
d8c8e5c9ee0e7f495083c92733405151e01d8e4b (2023-04-27), which holds "the Korea Tourism Organization's
service classification, as answered by TourAPI 4.0 KorService1 categoryCode1" (its own words, with the
request URLs it used) as one JSON tree of `code`, `name`, `rnum` and `subCategory`. The codes and
Korean names are kept; the tree's order is the service's (`rnum`). The data is TourAPI's (한국관광공사),
under KOGL Type 1 (공공누리 제1유형: free use with attribution). Provenance and licence: data/README.md.

Reads the pinned file from GitHub, or a copy given with --from:

    python3 scripts/fetch_tourapi_cat.py [--from readMe.md] [--out data/tourapi-cat.tsv]

Output: as scripts/fetch_tourapi_lcls.py writes data/tourapi-lcls.tsv: a header line, then
`level`, `code`, `name`, `parent` per code, depth first.
"""
import argparse
import json
import re
import urllib.request

REPO = "hapsody/brip-api"
COMMIT = "d8c8e5c9ee0e7f495083c92733405151e01d8e4b"
URL = f"https://raw.githubusercontent.com/{REPO}/{COMMIT}/src/prisma/seeds/tourPlace/readMe.md"


def rows(tree):
    def walk(nodes, level, parent):
        for node in sorted(nodes, key=lambda n: int(n["rnum"])):
            code = node["code"].strip()
            name = node["name"].strip()
            if not code or not name or "\t" in name or "\n" in name or not code.startswith(parent):
                raise SystemExit(f"unexpected entry at level {level}: {node!r}")
            yield (str(level), code, name, parent)
            yield from walk(node.get("subCategory", []), level + 1, code)

    return list(walk(tree, 1, ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", help="a local copy of the readMe.md")
    parser.add_argument("--out", default="data/tourapi-cat.tsv")
    args = parser.parse_args()
    if args.source:
        with open(args.source, encoding="utf-8") as f:
            text = f.read()
    else:
        with urllib.request.urlopen(URL, timeout=60) as response:
            text = response.read().decode("utf-8")
    blocks = re.findall(r"```\n(\[.*?\])\n```", text, re.S)
    if len(blocks) != 1:
        raise SystemExit(f"expected one JSON block in the source, found {len(blocks)}")
    lines = rows(json.loads(blocks[0]))
    codes = [r[1] for r in lines]
    if len(codes) != len(set(codes)):
        raise SystemExit("a code appears twice")
    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        out.write("level\tcode\tname\tparent\n")
        for r in lines:
            out.write("\t".join(r) + "\n")
    counts = [sum(1 for r in lines if r[0] == str(n)) for n in (1, 2, 3)]
    print(f"{args.out}: {len(lines)} codes ({counts[0]} / {counts[1]} / {counts[2]} by level)")


if __name__ == "__main__":
    main()
