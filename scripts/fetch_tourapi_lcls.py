#!/usr/bin/env python3
"""Rebuild data/tourapi-lcls.tsv: TourAPI's new classification (분류체계, lclsSystm1/2/3) with its
Korean names, as KorService2's lclsSystmCode2 answers it, in the service's order; with --lang en,
data/tourapi-lcls-en.tsv: the same codes with the English names EngService2's lclsSystmCode2 gave.

Source: leonpark12/korea-festival-api-parser, `output/categories.json` at commit
23609bec25d5679b188bc20f26d4ec6f0c11065c (2026-03-14), which that project wrote from KorService2
and EngService2 `lclsSystmCode2` answers (no parameter, then `lclsSystm1`, then `lclsSystm1` +
`lclsSystm2`; src/fetchers/category_code.py, src/config.py) with each code's Korean `name` and
English `name` as the services gave them, merged by code in the Korean order
(src/transformers/categories.py). Where EngService2 did not list a code the project wrote the code
itself as its English name; such a code, and a code whose English name holds Hangul (a Korean name
cut at its comma in that project's copy), has no English name here and is left out of the English
table with the codes under it. Only the codes and names are kept. The data is TourAPI's (한국관광공사),
under KOGL Type 1 (공공누리 제1유형: free use with attribution). Provenance and licence:
data/README.md.

Reads the pinned file from GitHub, or a copy given with --from:

    python3 scripts/fetch_tourapi_lcls.py [--from categories.json] [--out data/tourapi-lcls.tsv]
    python3 scripts/fetch_tourapi_lcls.py --lang en [--from categories.json] [--out data/tourapi-lcls-en.tsv]

Output: a header line, then one line per code, depth first in the service's order:
`level` (1, 2, 3), `code`, `name`, `parent` (the code of the level above; empty for level 1).
"""
import json
import re

from tourapi_codes import arguments, raw_url, read_text, walk, write_table

REPO = "leonpark12/korea-festival-api-parser"
COMMIT = "23609bec25d5679b188bc20f26d4ec6f0c11065c"
URL = raw_url(REPO, COMMIT, "output/categories.json")
HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")


def korean(node):
    return node["name"]["ko"]


def english(node):
    """The English name EngService2 gave, or None where the source has none (see the docstring)."""
    text = node["name"].get("en", "").strip()
    if not text or text == node["code"].strip() or HANGUL.search(text):
        return None
    return text


def main():
    args = arguments(
        __doc__, "a local copy of categories.json", None,
        lambda p: p.add_argument("--lang", choices=["ko", "en"], default="ko", help="the names' language"))
    out = args.out or ("data/tourapi-lcls.tsv" if args.lang == "ko" else "data/tourapi-lcls-en.tsv")
    tree = json.loads(read_text(URL, args.source))
    write_table(out, walk(tree, korean if args.lang == "ko" else english, "list"))


if __name__ == "__main__":
    main()
