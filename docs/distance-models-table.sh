#!/usr/bin/env bash
# Regenerates the accuracy table of docs/distance-models.md: haversine and projected (EPSG:5179) error
# relative to the WGS84 geodesic for the pairs in docs/distance-models-pairs.txt.
# Usage (from the repository root): swift build -c release && docs/distance-models-table.sh [nearby binary]
set -euo pipefail
nearby=${1:-.build/release/nearby}
pairs=docs/distance-models-pairs.txt
echo "| from | azimuth | distance | haversine − geodesic | relative | EPSG:5179 − geodesic | relative |"
echo "|---|---:|---:|---:|---:|---:|---:|"
paste -d' ' <(grep -v -e '^#' -e '^$' "$pairs") <("$nearby" distance --all < "$pairs") | awk '
    function name(lat) { return lat == 37.5665 ? "Seoul" : lat == 35.1796 ? "Busan" : lat }
    function metres(x) { return (x >= 100 || x <= -100) ? sprintf("%.0f m", x) : sprintf("%.3g m", x) }
    function nominal(d) { return d >= 1000 ? sprintf("%g km", d / 1000) : sprintf("%g m", d) }
    {
        hav = $5; geo = $6; azi = $7; proj = $9
        printf "| %s | %g° | %s | %s | %+.0f ppm | %s | %+.0f ppm |\n", name($1), azi, nominal(sprintf("%.0f", geo)),
            metres(hav - geo), (hav - geo) / geo * 1e6, metres(proj - geo), (proj - geo) / geo * 1e6
    }'
