#!/usr/bin/env bash
# The test command (README, .ci/run): the formatting check (`swift format lint` with .swift-format; fix
# with `swift format format --in-place --parallel -r $FORMATTED`), every test (`swift test`), then every
# fuzz target briefly on its committed corpus and regression inputs (scripts/fuzz.sh; FUZZ_SECONDS per
# target, default 5; an unoptimised fuzz build, since a few seconds a target replay the corpus rather than
# explore, and -O would cost CI about two more minutes of compiling).
#
#   bash scripts/test.sh                       what CI runs
#   FUZZ_SECONDS=0 bash scripts/test.sh        the tests only (0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
FORMATTED="Sources Tests Fuzz Benchmarks/Benchmarks Package.swift Benchmarks/Package.swift"
# shellcheck disable=SC2086
swift format lint --strict --parallel -r $FORMATTED
swift test
seconds=${FUZZ_SECONDS:-5}
if [[ $seconds != 0 ]]; then FUZZ_OPT=${FUZZ_OPT:--Onone} bash scripts/fuzz.sh "$seconds"; fi
