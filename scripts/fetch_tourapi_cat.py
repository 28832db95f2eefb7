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
import json
import re

from tourapi_codes import arguments, raw_url, read_text, walk, write_table

REPO = "hapsody/brip-api"
COMMIT = "d8c8e5c9ee0e7f495083c92733405151e01d8e4b"
URL = raw_url(REPO, COMMIT, "src/prisma/seeds/tourPlace/readMe.md")


def main():
    args = arguments(__doc__, "a local copy of the readMe.md", "data/tourapi-cat.tsv")
    text = read_text(URL, args.source)
    blocks = re.findall(r"```\n(\[.*?\])\n```", text, re.S)
    if len(blocks) != 1:
        raise SystemExit(f"expected one JSON block in the source, found {len(blocks)}")
    tree = json.loads(blocks[0])
    write_table(
        args.out, walk(tree, lambda n: n["name"], "subCategory", order=lambda n: int(n["rnum"]), nested=True))


if __name__ == "__main__":
    main()
