# Sourced by the benchmarks that load `nearby serve` with geoload (bench-personal.sh, bench-tourapi.sh)
# once they have set NEARBY, OUT, W, DB and log: checks the release build, builds geoload into $OUT, and
# generates the workload W and imports it into DB when missing.
[ -x "$NEARBY" ] || { echo "no release build: swift build -c release --static-swift-stdlib" >&2; exit 1; }
gcc -O2 -pthread -o "$OUT/geoload" scripts/bench-http/geoload.c
if [ ! -f "$W.places.tsv" ]; then
  log "generating the 1M workload at $W"
  "$NEARBY" generate --workload "$W" --count 1000000
fi
if [ ! -f "$DB" ]; then
  log "importing $W.places.tsv into $DB"
  "$NEARBY" import --db "$DB" "$W.places.tsv" > /dev/null
fi
