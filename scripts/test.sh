#!/usr/bin/env bash
# The test command (README, .ci/run): every test (`swift test`), then every fuzz target briefly on its
# committed corpus and regression inputs (scripts/fuzz.sh; FUZZ_SECONDS per target, default 10).
#
#   bash scripts/test.sh                       what CI runs
#   FUZZ_SECONDS=0 bash scripts/test.sh        the tests only (0 skips fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
swift test
seconds=${FUZZ_SECONDS:-10}
if [[ $seconds != 0 ]]; then bash scripts/fuzz.sh "$seconds"; fi
