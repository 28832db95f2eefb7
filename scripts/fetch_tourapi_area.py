#!/usr/bin/env python3
"""Rebuild data/tourapi-area.tsv: TourAPI's areas (areaCode 1-8, 31-39) and each area's 시군구
(sigunguCode, TourAPI's own numbering within the area) with their Korean names, as KorService2's
areaCode2 answers them without and with `areaCode`, in the service's order.

Source: choheejin/pet-trip at commit b60a2088b53d0d303eaa9d3e040b3bad66a2165e (2024-11-04), the
MySQL dumps `pet/src/main/resources/sql/pettrip_sidos.sql` (table `sidos`: id, name, the area's
code) and `pettrip_guguns.sql` (table `guguns`: id, the area's code, the 시군구's code, name), the
area and 시군구 tables of a TourAPI travel application, keyed by TourAPI's areaCode and sigunguCode.
The rows are taken in the dumps' id order, which is the service's (codes ascending within an area).
The data is TourAPI's (한국관광공사), under KOGL Type 1 (공공누리 제1유형: free use with attribution).
Provenance, licence and the cross-check: data/README.md.

--check compares the result with two other public copies of the service's answers and prints every
difference: Gon1782/Team-Everest `src/common/utils/areaCode/areaCode31.ts` ... `areaCode38.ts` at
commit 6b3697d759366c393c80e1d305a69feb731afc8f (2023-02-20; areaCode2 with areaCode 31-38, as
`rnum`, `code`, `name`) and prgrms-aibe-devcourse/AIBE2-Project1-Team02 `areaCode.json` at commit
afea677d3a809426f55a09656f156854fa8b875c (2025-04-25; an areaCode2 answer without areaCode).

Reads the pinned files from GitHub, or copies from a folder given with --from (holding
pettrip_sidos.sql and pettrip_guguns.sql; for --check also areaCode31.ts ... areaCode38.ts and
areaCode.json):

    python3 scripts/fetch_tourapi_area.py [--from DIR] [--out data/tourapi-area.tsv] [--check]

Output: a header line `level code name parent`, then each area (level 1, its areaCode, its name,
empty parent) followed by its 시군구 (level 2, the sigunguCode, the name, the area's code).
"""
import json
import os
import re

from tourapi_codes import arguments, raw_url, read_text, write_table

REPO = "choheejin/pet-trip"
COMMIT = "b60a2088b53d0d303eaa9d3e040b3bad66a2165e"
FOLDER = "pet/src/main/resources/sql/"
EVEREST = ("Gon1782/Team-Everest", "6b3697d759366c393c80e1d305a69feb731afc8f", "src/common/utils/areaCode/")
AIBE2 = ("prgrms-aibe-devcourse/AIBE2-Project1-Team02", "afea677d3a809426f55a09656f156854fa8b875c", "")


def source(folder, repo, commit, path, name):
    return read_text(raw_url(repo, commit, path + name), os.path.join(folder, name) if folder else None)


def values(dump, table):
    """The rows of `INSERT INTO `table` VALUES (...),(...);` as tuples of ints and strings."""
    found = re.findall(r"INSERT INTO `%s` VALUES (.*?);\n" % table, dump, re.S)
    if len(found) != 1:
        raise SystemExit(f"expected one INSERT into {table}, found {len(found)}")
    rows = []
    for row in re.findall(r"\(([^()]*)\)", found[0]):
        fields = re.findall(r"'((?:[^'\\]|\\.)*)'|(-?\d+)", row)
        rows.append(tuple(text if number == "" else int(number) for text, number in fields))
    return rows


def table(folder):
    sidos = values(source(folder, REPO, COMMIT, FOLDER, "pettrip_sidos.sql"), "sidos")
    guguns = values(source(folder, REPO, COMMIT, FOLDER, "pettrip_guguns.sql"), "guguns")
    rows = []
    for _, name, area in sorted(sidos):
        rows.append(("1", str(area), name.strip(), ""))
        codes = []
        for _, of, code, sigungu in sorted(guguns):
            if of == area:
                codes.append(code)
                rows.append(("2", str(code), sigungu.strip(), str(area)))
        if not codes or codes != sorted(set(codes)):
            raise SystemExit(f"area {area}: 시군구 codes {codes} are not ascending and distinct")
    known = {a for _, _, a in sidos}
    if any(of not in known for _, of, _, _ in guguns) or any(not r[2] or "\t" in r[2] for r in rows):
        raise SystemExit("a 시군구 of no area, or an empty name")
    return rows


def check(rows, folder):
    """Prints each difference between `rows` and the two other copies; returns how many."""
    differences = 0
    mine = {(r[3], r[1]): r[2] for r in rows if r[0] == "2"}
    for area in range(31, 39):
        text = source(folder, *EVEREST, f"areaCode{area}.ts")
        # The file's first list (the file of area 36 names its list areaCode35 at that commit).
        block = re.search(r"export const \w+ = \[(.*?)\];", text, re.S)
        text = block.group(1) if block else ""
        theirs = {
            (str(area), code): name
            for _, code, name in re.findall(r"rnum:\s*(\d+),\s*code:\s*'(\d+)',\s*name:\s*'([^']*)'", text)
        }
        for key in sorted(set(theirs) | {k for k in mine if k[0] == str(area)}, key=lambda k: int(k[1])):
            if mine.get(key) != theirs.get(key):
                differences += 1
                print(f"areaCode={key[0]} sigunguCode={key[1]}: {mine.get(key)} here, {theirs.get(key)} in {EVEREST[0]}")
    answer = json.loads(source(folder, *AIBE2, "areaCode.json"))["response"]["body"]["items"]["item"]
    areas = [(r[1], r[2]) for r in rows if r[0] == "1"]
    theirs = [(str(i["code"]), i["name"]) for i in sorted(answer, key=lambda i: int(i["rnum"]))]
    if areas != theirs:
        differences += 1
        print(f"the area list differs from {AIBE2[0]}: {areas} here, {theirs} there")
    print(f"{differences} differences")
    return differences


def main():
    args = arguments(
        __doc__, "a folder with copies of the source files", "data/tourapi-area.tsv",
        lambda p: p.add_argument("--check", action="store_true", help="compare with two other copies"))
    rows = table(args.source)
    write_table(args.out, rows, unique=False)
    if args.check:
        check(rows, args.source)


if __name__ == "__main__":
    main()
