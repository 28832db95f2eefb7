#!/usr/bin/env bash
# Installs the system libraries Nearby links against (Debian/Ubuntu): SQLite with its R*Tree module,
# and PROJ with its EPSG database. Does nothing when they are already there.
set -euo pipefail
if pkg-config --exists sqlite3 proj 2>/dev/null && [ -f /usr/share/proj/proj.db ]; then
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq pkg-config libsqlite3-dev libproj-dev proj-data >/dev/null
