#!/usr/bin/env bash
# Runs one of benchdnn's real batches (read from ../shared/benchdnn/inputs next to the repository,
# never copied into it) through tessera_bench --mode=C and requires zero FAILED.
# Usage: real_batch_test.sh TESSERA_BENCH DRIVER BATCH   (e.g. ... reorder test_reorder_smoke)
set -euo pipefail
bench="$1"; driver="$2"; batch="$3"

# The repository root: follow a source file of this package out of the sandbox.
here="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
root="$(cd "$here/../.." && pwd)"
inputs="${TESSERA_BENCHDNN_INPUTS:-$root/../shared/benchdnn/inputs}"
file="$inputs/$driver/$batch"
if [[ ! -f "$file" ]]; then
  echo "SKIPPED: $file is absent (benchdnn's batches are read from ../shared/benchdnn/inputs)"
  exit 0
fi

out="${TEST_UNDECLARED_OUTPUTS_DIR:-${TMPDIR:-/tmp}}/$batch.log"
status=0
"$bench" --mode=C "--$driver" "--batch=$file" > "$out" 2>&1 || status=$?
tail -n 40 "$out"
last="$(tail -n 1 "$out")"
if [[ ! "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
  echo "FAIL: tessera_bench did not finish with 'N passed, N failed' (exit $status)"
  exit 1
fi
failed="${BASH_REMATCH[2]}"
if [[ "$failed" != 0 || "$status" != 0 ]]; then
  echo "FAIL: $failed problem(s) FAILED (exit $status):"
  grep -E '^[0-9]+:FAILED' "$out" | head -n 20
  exit 1
fi
echo "OK: $batch: zero FAILED"
