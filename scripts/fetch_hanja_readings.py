#!/usr/bin/env python3
"""Rebuild data/hanja-ko.tsv (the Hanja that ICU's `ko` collation sorts with a Hangul reading),
data/han-order-ko.txt (ICU's order of the other Han ideographs: radical and stroke count) and the test
fixture Tests/NearbyCoreTests/Fixtures/hanja-titles-icu-order.txt from the sort keys of the ICU bundled
in the PyPI package duckdb 2.0.1 (`icu_sort_key(s, 'ko')`; ICU and Unicode data licence, see
data/README.md), then the Swift tables generated from those two files,
Sources/NearbyCore/Text/Generated/HanjaReadings.swift and HanOrder.swift.

The data files are the source: the Swift tables are a function of them (NearbyCore reads no files, so
it embeds them), and `--swift-only` rewrites the tables from the committed data files without ICU.
KoreanCollationTests checks that the compiled tables hold exactly the data files' lines.

What it does, in order:
1. asks ICU for the `ko` sort key of every Hangul syllable (U+AC00-U+D7A3) and every code point of
   U+3400-U+4DBF, U+4E00-U+9FFF, U+F900-U+FAFF and U+20000-U+3FFFF (the code points
   KoreanCollation weighs as Han: the ideographs, and the unassigned ones among them);
2. keeps the ideographs whose level-1 (primary) weights, the key bytes before the first 01, are those
   of a syllable: ICU's `ko` (CLDR ko.xml, `&가<<*伽佳…`) ties them to that syllable at level 1 and
   orders them after it at level 2 only; checks that level 3 is the syllable's and that no two Hanja
   of one reading have equal keys; the others keep CLDR root's Han order (radical, then strokes),
   after all Hangul, and the code points ICU knows as unassigned sort after every script, by code point;
3. writes data/hanja-ko.tsv: one line per reading, the syllable, a tab, then its Hanja in ICU's
   order (rank 1, 2, … at level 2; the syllable itself is rank 0);
4. writes data/han-order-ko.txt: the NFC-stable code points without a reading
   that ICU does not weigh as unassigned (their keys' lead byte is not that of U+0378), in ICU's order (the script checks that their keys differ at level 1 and agree at levels 2 and 3),
   as runs of consecutive code points, a line each: the first code point in hex, and the run's
   length when above 1;
5. writes the fixture: titles with Hanja (hand-picked, 600 random ones made from the table and
   Hangul, digits, Latin and punctuation, 300 with Han ideographs without a reading, and those of a workload given with --places, e.g. the 1M
   workload's `기암(基岩)리 관광지 202`) in ICU's order, distinct keys only, for KoreanCollationTests:
   one title a line after a `#` header line;
6. writes HanjaReadings.swift and HanOrder.swift from data/hanja-ko.tsv and data/han-order-ko.txt.

    python3 -m pip install duckdb==2.0.1   # a venv is fine
    python3 scripts/fetch_hanja_readings.py [--places /work/data/w1m.places.tsv]
    python3 scripts/fetch_hanja_readings.py --swift-only   # step 6 only: no duckdb needed
"""
import argparse
import os
import random
import sys
import unicodedata

DUCKDB_VERSION = "2.0.1"
HAN_RANGES = [(0x3400, 0x4DC0), (0x4E00, 0xA000), (0xF900, 0xFB00), (0x20000, 0x40000)]
TABLE_RANGE = (0x4E00, 0xA000)  # every Hanja with a reading is here (checked); the Swift table covers it
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
READINGS_FILE = "data/hanja-ko.tsv"
ORDER_FILE = "data/han-order-ko.txt"
GENERATED = "Sources/NearbyCore/Text/Generated"
FIXTURE_FILE = "Tests/NearbyCoreTests/Fixtures/hanja-titles-icu-order.txt"


def icu_keys(con, strings):
    """ICU `ko` sort keys (bytes) of `strings`, in order."""
    con.execute("CREATE OR REPLACE TEMP TABLE s(i INTEGER, s VARCHAR)")
    con.executemany("INSERT INTO s VALUES (?, ?)", list(enumerate(strings)))
    rows = con.execute("SELECT i, icu_sort_key(s, 'ko') FROM s ORDER BY i").fetchall()
    return [bytes.fromhex(k) for _, k in rows]


def levels(key):
    """The three levels of an ICU sort key (separated by 01)."""
    return key.split(b"\x01")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--places", help="a workload's PREFIX.places.tsv: its titles with Hanja join the fixture")
    ap.add_argument("--swift-only", action="store_true",
                    help=f"only rewrite the Swift tables in {GENERATED} from the committed data files (no ICU)")
    args = ap.parse_args()
    if args.swift_only:
        write_swift_tables()
        return
    places = args.places
    try:
        import duckdb
    except ImportError:
        sys.exit("fetch_hanja_readings.py needs duckdb 2.0.1: python3 -m pip install duckdb==2.0.1 (a venv is fine)")
    if duckdb.__version__ != DUCKDB_VERSION:
        sys.exit(f"duckdb {duckdb.__version__} installed; pin {DUCKDB_VERSION}: python3 -m pip install duckdb=={DUCKDB_VERSION}")
    con = duckdb.connect()
    syllables = [chr(c) for c in range(0xAC00, 0xD7A4)]
    han = [chr(c) for lo, hi in HAN_RANGES for c in range(lo, hi)]
    skeys = icu_keys(con, syllables)
    hkeys = icu_keys(con, han)
    by_primary = {levels(k)[0]: (s, k) for s, k in zip(syllables, skeys)}
    assert len(by_primary) == len(syllables), "two syllables share a primary weight"

    readings = {}  # syllable -> [(key, hanja)]
    for h, k in zip(han, hkeys):
        hit = by_primary.get(levels(k)[0])
        if hit is None:
            continue
        s, sk = hit
        if unicodedata.normalize("NFC", h) != h:
            sys.exit(f"U+{ord(h):04X} has a reading but is not NFC-stable: the table assumes NFC input")
        if not TABLE_RANGE[0] <= ord(h) < TABLE_RANGE[1]:
            sys.exit(f"U+{ord(h):04X} has a reading outside the table range")
        if levels(k)[2] != levels(sk)[2] or not levels(sk)[1] < levels(k)[1]:
            sys.exit(f"U+{ord(h):04X} ({h}) differs from {s} at level 3, or not after it at level 2")
        readings.setdefault(s, []).append((k, h))
    lines = []
    for s in sorted(readings, key=lambda s: ord(s)):
        group = sorted(readings[s])
        if len({k for k, _ in group}) != len(group):
            sys.exit(f"two Hanja of {s} have equal ICU keys")
        lines.append(s + "\t" + "".join(h for _, h in group))
    most = max(len(v) for v in readings.values())
    count = sum(len(v) for v in readings.values())
    if most > 120:
        sys.exit(f"{most} Hanja share a reading: KoreanCollation's level-2 byte has room for 120")
    with open(os.path.join(ROOT, READINGS_FILE), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")

    # The other Han code points in ICU's order, as runs of consecutive code points.
    read = {h for v in readings.values() for _, h in v}
    unassigned_lead = icu_keys(con, ["\u0378", "\U0003FFFD"])
    assert unassigned_lead[0][0] == unassigned_lead[1][0], "unassigned code points with different lead bytes"
    unassigned = [ord(h) for h, k in zip(han, hkeys) if k[0] == unassigned_lead[0][0]]
    unread = sorted((k, ord(h)) for h, k in zip(han, hkeys)
                    if h not in read and unicodedata.normalize("NFC", h) == h and k[0] != unassigned_lead[0][0])
    for (k1, c1), (k2, c2) in zip(unread, unread[1:]):
        if levels(k1)[0] == levels(k2)[0]:
            sys.exit(f"U+{c1:04X} and U+{c2:04X} share a primary weight")
    if len({tuple(levels(k)[1:]) for k, _ in unread}) != 1:
        sys.exit("Han ideographs without a reading differ at level 2 or 3")
    runs = []
    for _, c in unread:
        if runs and runs[-1][0] + runs[-1][1] == c:
            runs[-1][1] += 1
        else:
            runs.append([c, 1])
    order = "\n".join(f"{c:X}" if n == 1 else f"{c:X} {n:X}" for c, n in runs)
    with open(os.path.join(ROOT, ORDER_FILE), "w", encoding="utf-8") as f:
        f.write(order + "\n")

    # Fixture: titles with Hanja in ICU order.
    rng = random.Random(7)
    pairs = [(s, h) for s, v in readings.items() for _, h in v]
    multi = [s for s in readings if len(readings[s]) >= 2]
    titles = {"기", "基", "岐", "기A", "基A", "岐B", "基 1", "기 2", "기암(基岩)리 관광지 202", "기암(岐岩)리 관광지 238",
              "기암(基岩)리 관광지 312", "기암리", "기암(기암)리", "가", "각", "伽", "가A", "家 1", "가나", "佳나", "기a", "基a", "岐a"}
    for _ in range(600):
        parts = []
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if r < 0.35:
                s = rng.choice(multi)
                parts.append(rng.choice([s] + [h for _, h in readings[s]]))
            elif r < 0.55:
                parts.append(rng.choice(pairs)[1])
            elif r < 0.7:
                parts.append(chr(rng.randint(0xAC00, 0xD7A3)))
            else:
                parts.append(rng.choice([" ", "1", "2", "A", "a", "(", ")", "리", "산"]))
        titles.add("".join(parts))
    for _ in range(300):
        parts = []
        for _ in range(rng.randint(1, 3)):
            r = rng.random()
            if r < 0.5:
                parts.append(chr(rng.choice(unread)[1]))
            elif r < 0.6:
                parts.append(chr(rng.choice(unassigned)))
            elif r < 0.8:
                parts.append(rng.choice(pairs)[1])
            else:
                parts.append(rng.choice([" ", "1", "가", "기", "A", "a", "리", "Ω"]))
        titles.add("".join(parts))
    for line in open(places, encoding="utf-8") if places else []:
        t = line.split("\t")[4].strip(" ")
        if any(0x4E00 <= ord(c) < 0xA000 for c in t):
            titles.add(t)
    titles = sorted(titles)
    keys = icu_keys(con, titles)
    seen, ordered = set(), []
    for k, t in sorted(zip(keys, titles)):
        if k not in seen:
            seen.add(k)
            ordered.append(t)
    with open(os.path.join(ROOT, FIXTURE_FILE), "w", encoding="utf-8") as f:
        f.write(f"# Generated by scripts/fetch_hanja_readings.py (ICU via duckdb {DUCKDB_VERSION}): do not edit. "
                "Titles with Hanja in ICU's `ko` order (`ORDER BY icu_sort_key(title, 'ko')`), all keys distinct, "
                "one a line after this one, spaces kept\n")
        for t in ordered:
            assert "\n" not in t and "\r" not in t, t
            f.write(t + "\n")
    write_swift_tables()
    print(f"{count} Hanja with a reading ({len(lines)} readings, at most {most} each); {len(unread)} Han code points "
          f"without one ({len(runs)} runs); {len(ordered)} fixture titles")



def write_swift_tables():
    """Writes HanjaReadings.swift and HanOrder.swift from data/hanja-ko.tsv and data/han-order-ko.txt."""
    with open(os.path.join(ROOT, READINGS_FILE), encoding="utf-8") as f:
        lines = f.read().split("\n")[:-1]  # the syllable, a tab, its Hanja
    with open(os.path.join(ROOT, ORDER_FILE), encoding="utf-8") as f:
        runs = [line.split(" ") for line in f.read().split("\n")[:-1]]  # a code point, then a length above 1
    most = max(len(line.split("\t")[1]) for line in lines)
    count = sum(len(line.split("\t")[1]) for line in lines)
    unread = sum(int(run[1], 16) if len(run) > 1 else 1 for run in runs)
    body = "\n".join(lines)
    with open(os.path.join(ROOT, GENERATED, "HanjaReadings.swift"), "w", encoding="utf-8") as f:
        f.write(f'''// swift-format-ignore-file
// Generated by scripts/fetch_hanja_readings.py from {READINGS_FILE} (ICU via duckdb {DUCKDB_VERSION}): do not edit.

/// The Hanja that ICU's `ko` collation sorts with a Hangul reading ({count} ideographs, {len(lines)} readings,
/// at most {most} per reading, all in U+4E00…U+9FFF): one line per reading, the syllable, a tab, then its
/// Hanja in ICU's level-2 order. Embedded as source because NearbyCore reads no files.
enum HanjaReadings {{
    /// Per code point from `base`: (syllable index from U+AC00 + 1) << 8 | rank (1…), or 0 for none.
    static let base: UInt32 = 0x{TABLE_RANGE[0]:04X}
    static let table: [UInt32] = {{
        var t = [UInt32](repeating: 0, count: 0x{TABLE_RANGE[1] - TABLE_RANGE[0]:04X})
        for line in text.split(separator: "\\n") {{
            var scalars = line.unicodeScalars.makeIterator()
            let syllable = scalars.next()!.value - 0xAC00
            _ = scalars.next()  // tab
            var rank: UInt32 = 0
            while let h = scalars.next() {{
                rank += 1
                t[Int(h.value - base)] = (syllable + 1) << 8 | rank
            }}
        }}
        return t
    }}()

    /// The reading (a syllable, U+AC00…) and level-2 rank (1…) of Hanja `v`, or nil.
    @inline(__always) static func reading(of v: UInt32) -> (syllable: UInt32, rank: UInt8)? {{
        let i = v &- base
        guard i < UInt32(table.count) else {{ return nil }}
        let e = table[Int(i)]
        return e == 0 ? nil : (0xAC00 + (e >> 8) - 1, UInt8(truncatingIfNeeded: e))
    }}

    static let text = """
{body}
"""
}}
''')

    order = "\n".join(" ".join(run) for run in runs)
    with open(os.path.join(ROOT, GENERATED, "HanOrder.swift"), "w", encoding="utf-8") as f:
        f.write(f'''// swift-format-ignore-file
// Generated by scripts/fetch_hanja_readings.py from {ORDER_FILE} (ICU via duckdb {DUCKDB_VERSION}): do not edit.

/// ICU's `ko` order of the Han ideographs without a Hangul reading ({unread} NFC-stable code points of
/// U+3400…U+4DBF, U+4E00…U+9FFF, U+F900…U+FAFF and U+20000…U+3FFFF that ICU knows): CLDR root's
/// order of Han, by radical and then stroke count (Unihan's kRSUnicode). The code points of those
/// blocks that ICU weighs as unassigned are not here: they sort after every script, by code point.
/// `text` lists them in that order as {len(runs)} runs of consecutive code points, a line each: the first
/// code point in hex, then, for a run longer than one, its length in hex. Embedded as source because
/// NearbyCore reads no files; decoded on the first Han ideograph without a reading (rare in titles).
enum HanOrder {{
    /// The runs by first code point: `starts[i]` begins a run of `lengths[i]` code points whose
    /// first one has rank `ranks[i]`.
    private static let runs: (starts: [UInt32], lengths: [UInt32], ranks: [UInt32]) = {{
        var list: [(start: UInt32, length: UInt32, rank: UInt32)] = []
        var rank: UInt32 = 0
        for line in text.split(separator: "\\n") {{
            let fields = line.split(separator: " ")
            let start = UInt32(fields[0], radix: 16)!, length = fields.count > 1 ? UInt32(fields[1], radix: 16)! : 1
            list.append((start, length, rank))
            rank += length
        }}
        list.sort {{ $0.start < $1.start }}
        return (list.map(\\.start), list.map(\\.length), list.map(\\.rank))
    }}()

    /// The number of code points in the order: ranks run 0..<count.
    static let count: UInt32 = {unread}

    /// The rank of `v` in ICU's order of Han without a reading, or nil when `v` is not in it (a code
    /// point outside the ranges, with a reading, one NFC changes, or unassigned in ICU).
    static func rank(of v: UInt32) -> UInt32? {{
        let starts = runs.starts
        var lo = 0, hi = starts.count  // the last run starting at or before v
        while lo < hi {{
            let mid = (lo + hi) / 2
            if starts[mid] <= v {{ lo = mid + 1 }} else {{ hi = mid }}
        }}
        guard lo > 0, v - starts[lo - 1] < runs.lengths[lo - 1] else {{ return nil }}
        return runs.ranks[lo - 1] + (v - starts[lo - 1])
    }}

    static let text = """
{order}
"""
}}
''')

if __name__ == "__main__":
    main()
