#!/usr/bin/env bash
# The driver's rows of docs/errors.md: tessera_bench given bad input reports it (INVALID_ARGUMENTS
# or SKIPPED with the reason naming the bad knob/value, or an error exit), never crashes.
set -u
bench="$1"
failed=0
expect() {  # expect "<substring>" args...
  local want="$1"; shift
  local out
  out="$("$bench" "$@" 2>&1)"
  local rc=$?
  if [ $rc -gt 128 ]; then echo "CRASH ($rc): $*"; failed=1; return; fi
  if [[ "$out" != *"$want"* ]]; then
    echo "FAIL: tessera_bench $* -- output lacks '$want':"; echo "$out" | head -3; failed=1
  else
    echo "ok: $* -> $(echo "$out" | grep -F -- "$want" | head -1)"
  fi
}

expect "dim '-3' is not a non-negative 64-bit integer" --reorder 2x-3
expect "SKIPPED (--sdt=f33: data type not supported by Tessera)" --reorder --sdt=f33 2x3
expect "format tag 'abq' is invalid" --reorder --stag=abq 2x3
expect "--axis=5 is not a dim of the 2-d problem" --softmax --axis=5 2x3
expect "--bogus=1: knob not supported by Tessera's driver" --reorder --bogus=1 2x3
expect "cannot open './nonexistent_file'" --reorder --batch=nonexistent_file
expect "policy 'per_dim_9' is not supported" --reorder --attr-scales=src:per_dim_9:0.5 2x3
exit $failed
