#!/usr/bin/env bash
# Kill, concurrency and damage checks of the real `nearby` binary on real cache files (RELIABILITY.md).
#
#   scripts/torture.sh                       20 kills, a 200,000-place import, 40 byte flips
#   KILLS=50 PLACES=1000000 FLIPS=100 SEED=7 scripts/torture.sh
#   NEARBY=.build/release/nearby scripts/torture.sh      a binary already built (default: debug build)
#
# 1. kill -9 at random moments of an import (KILLS times): the cache must then export exactly the old
#    or exactly the new state, never a mixture; `nearby check` passes; the snapshot engine answers as
#    the SQLite engine does; the next import works.
# 2. During one large import: readers (export, query) never fail and see the old or the new state; a
#    second writer either gets "busy" (exit 1) or, outside the import's write transaction, succeeds.
# 3. Damaged caches (random single-byte flips, truncations, files that are no cache, a damaged index
#    snapshot): `nearby export` either fails with a one-line error, prints exactly the original, or
#    `nearby check` reports the damage; never a crash, never changed output that `check` calls fine;
#    a file that is not a cache is left byte for byte as it was.
# Prints one line per failure and a summary; exits 1 when any check failed.
set -uo pipefail
cd "$(dirname "$0")/.."
KILLS=${KILLS:-20}
PLACES=${PLACES:-200000}
FLIPS=${FLIPS:-40}
SEED=${SEED:-$$}
RANDOM=$SEED
if [[ -z ${NEARBY:-} ]]; then
    swift build --product nearby >&2 || exit 1
    NEARBY="$(swift build --show-bin-path)/nearby"
fi
N=$NEARBY
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
declare -A passed failed
fail() { failed[$1]=$(( ${failed[$1]:-0} + 1 )); echo "FAIL [$1] $2"; }
pass() { passed[$1]=$(( ${passed[$1]:-0} + 1 )); }
state() { "$N" export --db "$1" 2>/dev/null | sha256sum | cut -c1-16; }
# A copy of a cache with its WAL and index snapshot, as another cache file.
clone() { rm -f "$2" "$2-wal" "$2-shm" "$2.nearby-index"
          cp "$1" "$2"; for s in -wal .nearby-index; do [[ -f $1$s ]] && cp "$1$s" "$2$s"; done; true; }
crashed() { [[ $1 -ge 128 ]] || grep -qE 'Fatal error|Stack dump|Segmentation|SUMMARY: ' "$2"; }
rand_float() { awk -v r="$RANDOM$RANDOM" -v max="$1" 'BEGIN { srand(r); printf "%.3f", rand() * max }'; }

echo "torture: seed $SEED, $PLACES-place import, $KILLS kills, $FLIPS byte flips; binary $N" >&2
"$N" generate --count 20000 --seed 7 --format jsonl >"$work/base.jsonl"
"$N" generate --count "$PLACES" >"$work/big.tsv"
"$N" import --db "$work/base.sqlite" "$work/base.jsonl" >/dev/null 2>&1 || { echo "torture: base import failed" >&2; exit 1; }
"$N" query --db "$work/base.sqlite" --lat 37.5 --lon 127 --radius 1 >/dev/null 2>&1  # writes the snapshot
old=$(state "$work/base.sqlite")
clone "$work/base.sqlite" "$work/new.sqlite"
start=$(date +%s.%N)
"$N" import --db "$work/new.sqlite" "$work/big.tsv" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
new=$(state "$work/new.sqlite")
echo "torture: states old $old, new $new; the full import takes ${took}s" >&2

# Same answer from the snapshot engine and the SQLite engine (a stale snapshot must not answer).
engines_agree() {
    local a b
    a=$("$N" query --db "$1" --lat 37.5665 --lon 126.978 --radius 3000 --limit 40 --engine snapshot 2>/dev/null) || return 1
    b=$("$N" query --db "$1" --lat 37.5665 --lon 126.978 --radius 3000 --limit 40 --engine sqlite 2>/dev/null) || return 1
    [[ $a == "$b" ]]
}

# 1. kill -9 during imports.
for ((i = 1; i <= KILLS; i++)); do
    db=$work/kill.sqlite
    clone "$work/base.sqlite" "$db"
    delay=$(rand_float "$(awk -v t="$took" 'BEGIN { print t * 1.2 }')")
    "$N" import --db "$db" "$work/big.tsv" >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    s=$(state "$db")
    if [[ $s != "$old" && $s != "$new" ]]; then fail kill "kill at ${delay}s: the cache holds a mixed state $s"; continue; fi
    "$N" check --db "$db" >"$work/out" 2>&1 || { fail kill "kill at ${delay}s: nearby check: $(head -c 300 "$work/out")"; continue; }
    engines_agree "$db" || { fail kill "kill at ${delay}s: the snapshot and SQLite engines disagree"; continue; }
    "$N" import --db "$db" "$work/big.tsv" >/dev/null 2>"$work/err" || { fail kill "kill at ${delay}s: the next import: $(cat "$work/err")"; continue; }
    [[ $(state "$db") == "$new" ]] || { fail kill "kill at ${delay}s: the next import did not reach the new state"; continue; }
    pass kill
    echo "kill $i at ${delay}s: $([[ $s == "$old" ]] && echo old || echo new) state" >&2
done

# 2. Readers and a second writer during one large import.
db=$work/busy.sqlite
clone "$work/base.sqlite" "$db"
head -1 "$work/base.jsonl" >"$work/same.jsonl"  # a record already there: importing it changes nothing
"$N" import --db "$db" "$work/big.tsv" >/dev/null 2>"$work/big.err" &
pid=$!
busy=0 overlapped=0 reads=0
round=0
while kill -0 "$pid" 2>/dev/null; do
    round=$((round + 1))
    "$N" import --db "$db" "$work/same.jsonl" >/dev/null 2>"$work/werr"; st=$?
    if [[ $st -eq 1 ]] && head -1 "$work/werr" | grep -q '^nearby import: .*: the cache is busy'; then busy=$((busy + 1)); pass writer
    elif [[ $st -eq 0 ]]; then overlapped=$((overlapped + 1)); pass writer
    else fail writer "second writer exited $st: $(head -c 300 "$work/werr")"; fi
    "$N" query --db "$db" --lat 37.5665 --lon 126.978 --radius 2000 --meta >/dev/null 2>"$work/rerr" \
        && pass readers || fail readers "query during the import: $(head -c 300 "$work/rerr")"
    reads=$((reads + 1))
    (( round % 4 == 1 )) || continue
    s=$("$N" export --db "$db" 2>"$work/rerr" | sha256sum | cut -c1-16); st=${PIPESTATUS[0]}
    reads=$((reads + 1))
    if [[ $st -ne 0 ]]; then fail readers "export during the import exited $st: $(head -c 300 "$work/rerr")"
    elif [[ $s != "$old" && $s != "$new" ]]; then fail readers "export during the import saw a mixed state"
    else pass readers; fi
done
wait "$pid" || fail writer "the large import failed: $(cat "$work/big.err")"
[[ $busy -ge 1 ]] || fail writer "the second writer never met the large import's write transaction"
[[ $(state "$db") == "$new" ]] || fail writer "after the import the cache is not the new state"
echo "during the import: $reads reads, second writer busy $busy times, succeeded $overlapped times" >&2

# 3. Damage. Each case: export (and check) the damaged copy and judge.
original=$work/original.out
"$N" export --db "$work/base.sqlite" >"$original"
judge() {  # kind, description, damaged db
    local kind=$1 what=$2 db=$3 st cst
    "$N" export --db "$db" >"$work/out" 2>"$work/err"; st=$?
    if crashed "$st" "$work/err"; then fail "$kind" "$what: export crashed ($st): $(head -c 300 "$work/err")"; return; fi
    if [[ $st -ne 0 ]]; then
        if [[ $(wc -l <"$work/err") -eq 1 ]] && grep -q '^nearby export: ' "$work/err"; then pass "$kind"
        else fail "$kind" "$what: export's error is not one line: $(head -c 300 "$work/err")"; fi
        return
    fi
    cmp -s "$work/out" "$original" && { pass "$kind"; return; }
    "$N" check --db "$db" >/dev/null 2>"$work/cerr"; cst=$?
    if crashed "$cst" "$work/cerr"; then fail "$kind" "$what: check crashed ($cst)"; return; fi
    [[ $cst -eq 1 ]] && { pass "$kind"; return; }
    fail "$kind" "$what: export printed changed data and nearby check found nothing"
}
plain() { clone "$work/base.sqlite" "$1"; rm -f "$1.nearby-index"; }
db=$work/damaged.sqlite
size=$(stat -c %s "$work/base.sqlite")
for ((i = 1; i <= FLIPS; i++)); do
    plain "$db"
    off=$(( (RANDOM * 32768 + RANDOM) % size )); x=$(( RANDOM % 255 + 1 ))
    b=$(od -An -tu1 -j"$off" -N1 "$db" | tr -d ' ')
    printf "\\$(printf %03o $(( b ^ x )))" | dd of="$db" bs=1 seek="$off" conv=notrunc status=none
    judge flip "byte $off xor $x" "$db"
done
for cut in 0 1 100 4096 $((size / 2)) $((size - 4096)) $((size - 1)); do
    plain "$db"; truncate -s "$cut" "$db"
    judge truncate "truncated to $cut bytes" "$db"
done
# Files that are not a cache: refused with one line, left exactly as they were.
not_cache() {  # description, path
    local before after st
    before=$(sha256sum "$2" 2>/dev/null)
    "$N" export --db "$2" >"$work/out" 2>"$work/err"; st=$?
    after=$(sha256sum "$2" 2>/dev/null)
    if crashed "$st" "$work/err"; then fail wrong-file "$1: crashed"
    elif [[ $st -eq 0 ]]; then fail wrong-file "$1: read as a cache"
    elif [[ $(wc -l <"$work/err") -ne 1 ]]; then fail wrong-file "$1: the error is not one line"
    elif [[ $before != "$after" ]]; then fail wrong-file "$1: the file was changed"
    else pass wrong-file; fi
}
printf 'id\tlat\tlon\n1\t37\t127\n' >"$work/text.tsv"; not_cache "a TSV file" "$work/text.tsv"
printf '\x89PNG\r\n\x1a\n%0500d' 0 >"$work/image.png"; not_cache "a PNG file" "$work/image.png"
head -c 65536 /dev/urandom >"$work/random.bin"; not_cache "random bytes" "$work/random.bin"
sqlite3 "$work/other.sqlite" "CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('hi');" \
    && not_cache "another application's SQLite file" "$work/other.sqlite"
"$N" generate --count 5 --format jsonl >"$work/places.jsonl" && not_cache "a JSON-lines file" "$work/places.jsonl"
mkdir -p "$work/folder"; not_cache "a folder" "$work/folder"
# A damaged index snapshot: rebuilt or refused, never used.
snap_size=$(stat -c %s "$work/base.sqlite.nearby-index" 2>/dev/null || echo 0)
[[ $snap_size -gt 0 ]] || fail snapshot "no index snapshot was written beside the base cache"
for ((i = 1; i <= FLIPS / 4 + 1 && snap_size > 0; i++)); do
    clone "$work/base.sqlite" "$db"
    off=$(( (RANDOM * 32768 + RANDOM) % snap_size )); x=$(( RANDOM % 255 + 1 ))
    b=$(od -An -tu1 -j"$off" -N1 "$db.nearby-index" | tr -d ' ')
    printf "\\$(printf %03o $(( b ^ x )))" | dd of="$db.nearby-index" bs=1 seek="$off" conv=notrunc status=none
    engines_agree "$db" && pass snapshot || fail snapshot "index snapshot byte $off xor $x: the engines disagree or failed"
done

echo
printf '%-12s %6s %6s\n' check passed failed
total_failed=0
for k in kill readers writer flip truncate wrong-file snapshot; do
    printf '%-12s %6d %6d\n' "$k" "${passed[$k]:-0}" "${failed[$k]:-0}"
    total_failed=$((total_failed + ${failed[$k]:-0}))
done
if [[ $total_failed -gt 0 ]]; then echo "torture: FAILED ($total_failed failures; seed $SEED)"; exit 1; fi
echo "torture: all checks passed (seed $SEED)"
