#!/usr/bin/env bash
# Installs the system libraries Nearby links against (Debian/Ubuntu): SQLite with its R*Tree module,
# PROJ with its EPSG database, libpq, zlib (gzip for vector tiles); and PostgreSQL 15 with PostGIS 3, which the tests of the postgis
# engine start themselves (a throwaway cluster); for the map page, Leaflet (libjs-leaflet, served by `nearby serve`) and
# Korean fonts (fonts-noto-cjk), and the headless Chromium and its WebDriver that its browser test drives.
# Does nothing when they are already there.
set -euo pipefail
if pkg-config --exists sqlite3 proj libpq zlib 2>/dev/null && [ -f /usr/share/proj/proj.db ] \
    && [ -x /usr/lib/postgresql/15/bin/postgres ] && [ -f /usr/share/postgresql/15/extension/postgis.control ] \
    && [ -f /usr/share/javascript/leaflet/leaflet.js ] && [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] \
    && [ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ]; then
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq pkg-config libsqlite3-dev libproj-dev proj-data \
    libpq-dev zlib1g-dev postgresql-15 postgresql-15-postgis-3 \
    libjs-leaflet fonts-noto-cjk chromium chromium-driver >/dev/null
