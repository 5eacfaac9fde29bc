#!/usr/bin/env bash
# Runs benchdnn's real batches through tessera_bench --mode=C and fails unless, for every batch:
#   - the batch file exists (a missing input is a failure, never a skip);
#   - the driver ends with its "N passed, N failed" line, after its "tests:N ..." summary, and
#     the problem lines it printed agree with both (at least one problem);
#   - no problem FAILED and the driver exited 0;
#   - the passed count is at least the batch's floor in conformance_floor.txt (written by
#     bench/driver/conformance.py), and above zero.
#
# Usage: real_batches_test.sh TESSERA_BENCH FLOOR_FILE DRIVER/BATCH...
#   e.g. real_batches_test.sh bench/tessera_bench bench/driver/conformance_floor.txt \
#            reorder/test_reorder_smoke softmax/test_softmax_ci
#
# The batches are read from $TESSERA_BENCHDNN_INPUTS, else from ../shared/benchdnn/inputs next to
# the repository root (found by following this script's source file out of the runfiles; the
# target is tagged no-sandbox so that the path is reachable). They are never copied into the
# repository. Under --config=aarch64, TESSERA_RUN_AARCH64 (bazel/aarch64/qemu_run.sh) is the
# emulator the driver runs under.
set -uo pipefail

if (( $# < 3 )); then
  echo "usage: $0 TESSERA_BENCH FLOOR_FILE DRIVER/BATCH..." >&2
  exit 2
fi
bench="$1"; floor_file="$2"; shift 2

here="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
root="$(cd "$here/../.." && pwd)"
inputs="${TESSERA_BENCHDNN_INPUTS:-$root/../shared/benchdnn/inputs}"
logs="${TEST_UNDECLARED_OUTPUTS_DIR:-${TMPDIR:-/tmp}}"
echo "inputs: $inputs"
echo "floor:  $floor_file"

failures=()
fail() {  # BATCH MESSAGE...
  local batch="$1"; shift
  echo "FAIL: $batch: $*"
  failures+=("$batch: $*")
}

# The floor of DRIVER BATCH, or nothing when the file has no row for it.
floor_of() {
  awk -v d="$1" -v b="$2" '$1 == d && $2 == b && $3 ~ /^[0-9]+$/ { print $3; exit }' "$floor_file"
}

if [[ ! -s "$floor_file" ]]; then
  echo "FAIL: the floor file $floor_file is missing or empty"
  exit 1
fi

for spec in "$@"; do
  driver="${spec%%/*}"; batch="${spec#*/}"
  file="$inputs/$driver/$batch"
  echo
  echo "=== $driver/$batch"
  if [[ ! -f "$file" ]]; then
    fail "$spec" "input $file is missing (set TESSERA_BENCHDNN_INPUTS, or provide" \
                 "../shared/benchdnn/inputs next to the repository)"
    continue
  fi
  floor="$(floor_of "$driver" "$batch")"
  if [[ -z "$floor" ]]; then
    fail "$spec" "no 'driver batch passed' row for it in $floor_file"
    continue
  fi

  log="$logs/${driver}_${batch}.log"
  start=$SECONDS
  status=0
  ${TESSERA_RUN_AARCH64:-} "$bench" --mode=C "--$driver" "--batch=$file" > "$log" 2>&1 || status=$?
  took=$((SECONDS - start))

  last="$(tail -n 1 "$log")"
  if [[ ! "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    tail -n 20 "$log"
    fail "$spec" "tessera_bench did not finish with 'N passed, N failed' (exit $status)"
    continue
  fi
  passed="${BASH_REMATCH[1]}"; failed="${BASH_REMATCH[2]}"
  summary="$(grep -E '^tests:[0-9]+ passed:' "$log" | tail -n 1)"
  if [[ ! "$summary" =~ ^tests:([0-9]+)\ passed:([0-9]+)\  ]]; then
    fail "$spec" "no 'tests:N passed:N ...' summary line"
    continue
  fi
  total="${BASH_REMATCH[1]}"
  lines="$(grep -cE '^[0-9]+:[A-Z_]+( |$)' "$log")"
  passed_lines="$(grep -cE '^[0-9]+:PASSED( |$)' "$log")"
  failed_lines="$(grep -cE '^[0-9]+:FAILED( |$)' "$log")"
  echo "$total problems, $passed passed, $failed failed (floor $floor, exit $status, ${took} s)"

  if (( total == 0 || lines == 0 )); then
    fail "$spec" "no problems ran"
  elif (( lines != total || passed_lines != passed || failed_lines != failed )); then
    fail "$spec" "$lines problem lines ($passed_lines PASSED, $failed_lines FAILED) disagree" \
                 "with the summary ($total problems, $passed passed, $failed failed)"
  fi
  if (( failed != 0 )); then
    grep -E '^[0-9]+:FAILED' "$log" | head -n 20
    fail "$spec" "$failed problem(s) FAILED"
  elif (( status != 0 )); then
    fail "$spec" "tessera_bench exited $status"
  fi
  if (( passed == 0 )); then
    fail "$spec" "no problem PASSED"
  elif (( passed < floor )); then
    fail "$spec" "$passed passed, below the floor of $floor in $floor_file"
  elif (( passed > floor )); then
    echo "note: $passed passed, above the floor of $floor: bench/driver/conformance.py raises it"
  fi
done

echo
if (( ${#failures[@]} > 0 )); then
  echo "${#failures[@]} failure(s):"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
echo "OK: $# batch(es), zero FAILED, every passed count at or above its floor"
