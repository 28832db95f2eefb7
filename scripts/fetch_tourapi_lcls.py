#!/usr/bin/env python3
"""Rebuild data/tourapi-lcls.tsv: TourAPI's new classification (분류체계, lclsSystm1/2/3) with its
Korean names, as KorService2's lclsSystmCode2 answers it, in the service's order.

Source: leonpark12/korea-festival-api-parser, `output/categories.json` at commit
23609bec25d5679b188bc20f26d4ec6f0c11065c (2026-03-14), which that project wrote from KorService2
`lclsSystmCode2` answers (no parameter, then `lclsSystm1`, then `lclsSystm1` + `lclsSystm2`;
src/fetchers/category_code.py) with each code's Korean `name` as the service gave it. Only the codes
and the Korean names are kept. The data is TourAPI's (한국관광공사), under KOGL Type 1 (공공누리
제1유형: free use with attribution). Provenance and licence: data/README.md.

Reads the pinned file from GitHub, or a copy given with --from:

    python3 scripts/fetch_tourapi_lcls.py [--from categories.json] [--out data/tourapi-lcls.tsv]

Output: a header line, then one line per code, depth first in the service's order:
`level` (1, 2, 3), `code`, `name`, `parent` (the code of the level above; empty for level 1).
"""
import argparse
import json
import urllib.request

REPO = "leonpark12/korea-festival-api-parser"
COMMIT = "23609bec25d5679b188bc20f26d4ec6f0c11065c"
URL = f"https://raw.githubusercontent.com/{REPO}/{COMMIT}/output/categories.json"


def rows(tree):
    def walk(nodes, level, parent):
        for node in nodes:
            code = node["code"].strip()
            name = node["name"]["ko"].strip()
            if not code or not name or "\t" in name or "\n" in name:
                raise SystemExit(f"unexpected entry at level {level}: {node!r}")
            yield (str(level), code, name, parent)
            yield from walk(node.get("list", []), level + 1, code)

    return list(walk(tree, 1, ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", help="a local copy of categories.json")
    parser.add_argument("--out", default="data/tourapi-lcls.tsv")
    args = parser.parse_args()
    if args.source:
        with open(args.source, encoding="utf-8") as f:
            tree = json.load(f)
    else:
        with urllib.request.urlopen(URL, timeout=60) as response:
            tree = json.loads(response.read().decode("utf-8"))
    lines = rows(tree)
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
