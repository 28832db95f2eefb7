#!/usr/bin/env python3
"""Bytes a place of each section of an index snapshot, from its section table (format: the top of
Sources/NearbyCore/Index/IndexSnapshot.swift).

usage: python3 scripts/sortfilter_sizes.py SNAPSHOT [TAG ...]

Prints the format version, the place count, then one line a section (all, or the TAGs named): tag,
bytes, bytes a place. Standard library only.
"""
import struct
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    wanted = set(sys.argv[2:])
    with open(sys.argv[1], "rb") as f:
        head = f.read(64)
        k = struct.unpack_from("<I", head, 12)[0]
        table = head + f.read(24 * k)
    version, n = struct.unpack_from("<I", head, 8)[0], struct.unpack_from("<Q", head, 32)[0]
    print(f"format {version}, {n:,} places")
    for i in range(k):
        e = 64 + 24 * i
        tag = table[e:e + 4].decode("ascii", "replace")
        size, _, count = struct.unpack_from("<IQQ", table, e + 4)
        if not wanted or tag in wanted:
            print(f"{tag}\t{size * count:,}\t{size * count / max(n, 1):.2f} B a place")


if __name__ == "__main__":
    main()
