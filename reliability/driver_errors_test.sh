#!/usr/bin/env bash
# The driver's rows of docs/errors.md: tessera_bench given bad input reports it, never crashes.
# Invalid input (bad dims, an unknown option, data type, value or perf template field) is an error
# exit naming it before anything runs; a valid value Tessera does not support is a per-problem
# SKIPPED (or UNIMPLEMENTED / INVALID_ARGUMENTS from the library) with the reason; a problem oneDNN
# cannot express gets a "oneDNN not run" note.
# With TESSERA_PRINT_ERRORS=1 each passing case also prints "ROW<TAB>args<TAB>output line": that
# is what reliability/print_error_table.py turns into the driver table of docs/errors.md.
# Under --config=aarch64, TESSERA_RUN_AARCH64 (bazel/aarch64/qemu_run.sh) is the emulator the
# driver runs under.
set -u
bench="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"  # absolute: cases run in a scratch dir
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failed=0

run_case() {  # run_case <want exit: any|nonzero> "<substring>" args...
  local want_rc="$1" want="$2"; shift 2
  local out rc line
  out="$(cd "$tmp" && ${TESSERA_RUN_AARCH64:-} "$bench" "$@" 2>&1)"
  rc=$?
  if [ $rc -gt 128 ]; then echo "CRASH ($rc): $*"; failed=1; return; fi
  if [ "$want_rc" = nonzero ] && [ $rc -eq 0 ]; then
    echo "FAIL: tessera_bench $* -- exit 0, expected an error exit"; failed=1; return
  fi
  if [[ "$out" != *"$want"* ]]; then
    echo "FAIL: tessera_bench $* -- output lacks '$want':"; echo "$out" | head -3; failed=1
    return
  fi
  line="$(echo "$out" | grep -F -- "$want" | head -1 | sed -e 's/ __REPRO: .*//' -e 's/^ *//')"
  echo "ok: $* -> $line (exit $rc)"
  if [ -n "${TESSERA_PRINT_ERRORS:-}" ]; then
    printf 'ROW\t%s\t%s%s\n' "$*" "$line" "$([ $rc -ne 0 ] && echo " (exit $rc)")"
  fi
}
expect() { run_case any "$@"; }           # a per-problem verdict; the run goes on
expect_exit() { run_case nonzero "$@"; }  # the whole run stops with a non-zero exit
expect_ok() {  # expect_ok "<substring>" args...: exit 0 and the substring, no problem run
  local want="$1"; shift
  local out rc
  out="$(cd "$tmp" && ${TESSERA_RUN_AARCH64:-} "$bench" "$@" 2>&1)"
  rc=$?
  if [ $rc -ne 0 ] || [[ "$out" != *"$want"* ]] || [[ "$out" == *" passed, "* ]]; then
    echo "FAIL: tessera_bench $* -- exit $rc, wanted exit 0 with '$want' and no run:"
    echo "$out" | head -3; failed=1; return
  fi
  echo "ok: $* -> exit 0"
}

# ---- help and version: exit 0, nothing runs ----
expect_ok "usage: tessera_bench" --help
expect_ok "Reorder knobs:" --reorder --help 2x3
expect_ok "tessera_bench 0.1.0 (Tessera 0.1.0)" --version
expect_ok "peer: oneDNN 2." --version

# ---- problem descriptors (batch_parser.cc): error exit ----
expect_exit "dim '-3' is not a non-negative 64-bit integer" --reorder 2x-3
expect_exit "'-1x3x4x5' is not a problem descriptor: dim '-1'" --reorder -1x3x4x5
expect_exit "'_n\"foo\"' is not a problem descriptor: expected dims" --reorder '_n"foo"'
expect_exit "must be written _n\"NAME\" (quotes balanced)" --reorder '2x3_n"foo'
expect_exit "has 13 dims; at most 12 are supported" --reorder 1x1x1x1x1x1x1x1x1x1x1x1x1
# ---- options of the whole run (batch_parser.cc, report.cc): error exit ----
expect_exit "cannot open './nonexistent_file'" --reorder --batch=nonexistent_file
printf -- '--batch=cycle.txt\n' > "$tmp/cycle.txt"
expect_exit "batch files nest deeper than 16 levels (a cycle?)" --reorder --batch=cycle.txt
expect_exit "--batch needs a file" --reorder --batch=
expect_exit "--mode=Z is not supported (use C, P, CP, F, R, I or L)" --reorder --mode=Z 2x3
expect_exit "--compare=x is not supported (use onednn or none)" --reorder --compare=x 2x3
expect_exit "--cold-cache=x is not supported (use none or all)" --reorder --cold-cache=x 2x3
expect_exit "--max-ms-per-prb=-1 must be a non-negative integer" --reorder --max-ms-per-prb=-1 2x3
expect_exit "--fix-times-per-prb=x must be a non-negative integer" --reorder --fix-times-per-prb=x 2x3
expect_exit "--match=( is not a valid regular expression" --reorder '--match=(' 2x3
expect_exit "unknown option '--bogus=1' (tessera_bench --help lists the knobs)" --reorder --bogus=1 2x3
expect_exit "--axis is a softmax knob, not a reorder one" --reorder --axis=1 2x3
expect_exit "--sdt needs a value" --reorder --sdt 2x3
expect_exit "--mode=B (bitwise mode) is not supported" --reorder --mode=B 2x3
expect_exit "--start=x must be a non-negative integer" --reorder --start=x 2x3
expect_exit "--repeats-per-prb=0 must be an integer in [1, 1000000]" --reorder --repeats-per-prb=0 2x3
expect_exit "-vq: the verbosity must be an integer in [0, 99]" -vq --reorder 2x3
expect_exit "'all' is not a summary setting (failures or no-failures)" --summary=all --reorder 2x3
expect_exit "--ctx-exe=0 is not MAX_CONCURRENCY" --ctx-exe=0 --reorder 2x3
expect_exit "--ctx-init=4 is not supported: Tessera creates primitives on the calling thread" \
  --ctx-init=4 --reorder 2x3
expect_exit "--cpu-isa-hints=prefer_ymm is not supported" --cpu-isa-hints=prefer_ymm --reorder 2x3
expect_exit "--memory-kind=buffer is not supported: SYCL/OpenCL runtimes only" \
  --memory-kind=buffer --reorder 2x3
expect_exit "--canonical=maybe is not a boolean" --canonical=maybe --reorder 2x3
expect_exit "--engine=tpu is not an engine" --engine=tpu --reorder 2x3
expect_exit "--perf-template: %bogus% is not a field of the performance report" \
  --perf-template=%prb%,%bogus% --reorder 2x3
expect_exit "--perf-template: %-clocks% is not supported: clocks are not measured" \
  --perf-template=%-clocks% --reorder 2x3
expect_exit "--perf-template: %wtag% is not supported: a field of conv" --perf-template=%wtag% --reorder 2x3
expect_exit "--perf-template: '%-time': a '%' opens a field that is never closed" \
  --perf-template=%prb%,%-time --reorder 2x3
expect_exit "--perf-csv=/nonexistent_dir/x.csv: cannot open for writing" \
  --reorder --mode=P --fix-times-per-prb=1 --perf-csv=/nonexistent_dir/x.csv 2x3
# ---- knob values that are not valid input (resolve.cc, validate_problem): error exit ----
expect_exit "--sdt=f33: unknown data type" --reorder --sdt=f33 2x3
expect_exit "--ddt=int8: unknown data type" --softmax --ddt=int8 2x3
expect_exit "--stag=abq: not a format tag: format tag 'abq' is invalid" --reorder --stag=abq 2x3
expect_exit "--dtag=abq: not a format tag" --softmax --dtag=abq 2x3
expect_exit "--cross-engine=cpu: not a cross-engine kind" --reorder --cross-engine=cpu 2x3
expect_exit "--attr-scratchpad=foo: unknown mode" --reorder --attr-scratchpad=foo 2x3
expect_exit "--strides=1x2: expected SRC_STRIDES:DST_STRIDES" --reorder --strides=1x2 2x3
expect_exit "--strides=1xq:1x2: 'q' is not an integer" --reorder --strides=1xq:1x2 2x3
expect_exit "--runtime-dim-mask=x: not an integer mask" --reorder --runtime-dim-mask=x 2x3
expect_exit "--oflag=foo:1: expected FLAG:MASK" --reorder --oflag=foo:1 2x3
expect_exit "'src' has no policy (ARG:POLICY[:VALUE])" --reorder --attr-scales=src 2x3
expect_exit "'bogus' is not a policy" --reorder --attr-scales=src:bogus 2x3
expect_exit "value 'abc' is not a number" --reorder --attr-scales=src:common:abc 2x3
expect_exit "--attr-oscale=common:abc: 'abc' is not a number" --reorder --attr-oscale=common:abc 2x3
expect_exit "--attr-post-ops=sum:abc: 'abc' is not a number" --reorder --attr-post-ops=sum:abc 2x3
expect_exit "--attr-post-ops=sum:1:q: 'q' is not an integer" --reorder --attr-post-ops=sum:1:q 2x3
expect_exit "--attr-rounding-mode=dst:up: expected ARG:MODE" --reorder --attr-rounding-mode=dst:up 2x3
expect_exit "--attr-fpmath=f64: expected MATHMODE" --reorder --attr-fpmath=f64 2x3
expect_exit "--attr-acc-mode=fast: not an accumulation mode" --reorder --attr-acc-mode=fast 2x3
expect_exit "--attr-deterministic=maybe: not a boolean" --reorder --attr-deterministic=maybe 2x3
expect_exit "--attr-dropout=x: expected PROBABILITY" --reorder --attr-dropout=x 2x3
expect_exit "--dir=FWD_X: not a direction" --softmax --dir=FWD_X 2x3
expect_exit "--alg=foo: unknown softmax algorithm" --softmax --alg=foo 2x3
expect_exit "--axis=q: not an integer" --softmax --axis=q 2x3
expect_exit "--inplace=maybe: expected true or false" --softmax --inplace=maybe 2x3
expect_exit "--mb=-1: expected a non-negative integer" --softmax --mb=-1 2x3
# ---- valid knob values Tessera does not support (resolve.cc): SKIPPED, naming knob and value ----
expect "SKIPPED (--engine=gpu: Tessera is CPU-only)" --reorder --engine=gpu 2x3
expect "SKIPPED (--cross-engine=cpu2gpu: GPU-only knob" --reorder --cross-engine=cpu2gpu 2x3
expect "SKIPPED (--attr-rounding-mode=dst:stochastic: stochastic rounding applies to a reorder's dst only)" \
  --softmax --attr-rounding-mode=dst:stochastic 2x3
expect "SKIPPED (--attr-fpmath=bf16: only strict math" --reorder --attr-fpmath=bf16 2x3
expect "SKIPPED (--attr-acc-mode=f16: Tessera accumulates in f32 only)" --reorder --attr-acc-mode=f16 2x3
expect "SKIPPED (--attr-deterministic=true: not supported)" --reorder --attr-deterministic=true 2x3
expect "SKIPPED (--attr-dropout=0.5: not supported)" --reorder --attr-dropout=0.5 2x3
expect "SKIPPED (--runtime-dim-mask=-1: not a non-negative mask)" --reorder --runtime-dim-mask=-1 2x3
expect "SKIPPED (--oflag=zp_comp:1: compensation needs an s8 dst)" --reorder --oflag=zp_comp:1 2x3
expect "argument 'wei' is not supported (src and dst only)" --reorder --attr-scales=wei:common:2 2x3
expect "policy 'per_dim_9' is not supported" --reorder --attr-scales=src:per_dim_9:0.5 2x3
expect "value data type 's8' is not supported" --reorder --attr-scales=src:common:2:s8 2x3
expect "groups '1x0' are not positive integers" --reorder --attr-scales=src:per_dim_1:f32:1x0 2x3
expect "mask 8 names dim 3 but the problem has 2 dims" --reorder --attr-scales=src:per_dim_3:2 2x3
expect "mask 3 asks for more than 16777216 values" --reorder --attr-scales=src:per_dim_01:2 100000x100000
expect_exit "--attr-oscale=foo: 'foo' is not a policy" --reorder --attr-oscale=foo 2x3
expect "only POLICY[:SCALE] with common or per_dim_* is supported" --reorder --attr-oscale=per_ocic 2x3
expect "(--attr-oscale=per_dim_3: mask 8 names dim 3" --reorder --attr-oscale=per_dim_3 2x3
expect "reorder supports one sum post-op only" --reorder --attr-post-ops=relu 2x3
expect "SKIPPED (--dir=BWD_W: softmax has FWD_D, FWD_I and BWD_D)" --softmax --dir=BWD_W 2x3
expect "SKIPPED (--attr-post-ops=sum: softmax takes no sum post-op (oneDNN's softmax rejects it))" --softmax --attr-post-ops=sum 2x3
expect "SKIPPED (--attr-zero-points=src:common:1: softmax has no zero points)" \
  --softmax --attr-zero-points=src:common:1 2x3
# ---- creation (runner.cc): the library's message, per problem ----
expect "INVALID_ARGUMENTS (format tag 'abcd' is invalid: the tag's rank must equal" --reorder --stag=abcd 2x3
expect "INVALID_ARGUMENTS (memory_desc: strides[0] = 1 overlaps dim 1" --reorder --strides=1x1:3x1 2x3
expect "INVALID_ARGUMENTS (stochastic rounding of a f32 dst" --reorder --attr-rounding-mode=dst:stochastic 2x3
expect "INVALID_ARGUMENTS (format tag 'abcd' is invalid" --reorder --dtag=abcd 2x3
expect "SKIPPED (--attr-zero-points=src:common:1:f32: value data type 'f32' is not supported)" \
  --reorder --attr-zero-points=src:common:1:f32 2x3
expect "SKIPPED (--attr-zero-points=src:common:-1:u8: value -1 does not fit the zero points' type u8)" \
  --reorder --attr-zero-points=src:common:-1:u8 2x3
expect "INVALID_ARGUMENTS (src_scales group 2 on dim 1 (size 3) does not divide the dim)" \
  --reorder --attr-scales=src:per_tensor:f32:1x2 2x3
expect "INVALID_ARGUMENTS (--axis=5 is not a dim of the 2-d problem)" --softmax --axis=5 2x3
expect "INVALID_ARGUMENTS (format tag 'abcd' is invalid" --softmax --stag=abcd 2x3
expect "INVALID_ARGUMENTS (format tag 'abcd' is invalid" --softmax --dtag=abcd 2x3
expect "FAILED (--check-ref-impl=true: the reference implementation was chosen)" \
  --check-ref-impl=true --reorder --impl=ref 2x3
expect "INVALID_ARGUMENTS (softmax backward: diff_src type s8 is not supported" \
  --softmax --dir=BWD_D --sdt=s8 2x3
expect "SKIPPED (no implementation allowed by --impl/--skip-impl accepts the problem" \
  --reorder --impl=nonexistent 2x3
expect "the axis is dense" --softmax --impl=strided 2x3
# ---- oneDNN comparison (onednn_runner.cc): Tessera's result stands, oneDNN is not run ----
expect "oneDNN not run: oneDNN 2.6.3 has no f8_e5m2 data type" --reorder --compare=onednn --sdt=f8_e5m2 2x3
expect "oneDNN not run: --strides is not mapped to oneDNN by the driver" \
  --reorder --compare=onednn --strides=3x1:3x1 2x3
expect "oneDNN not run: oneDNN 2.6.3 has no dst scales" --reorder --compare=onednn --attr-scales=dst:common:2 2x3
expect "oneDNN not run: oneDNN 2.6.3's softmax needs equal src and dst types" \
  --softmax --compare=onednn --ddt=bf16 2x3
expect "oneDNN not run: softmax attributes are not mapped to oneDNN" \
  --softmax --compare=onednn --attr-scales=src:common:2 2x3
expect "oneDNN not run: oneDNN 2.6.3's softmax needs equal src and dst layouts" \
  --softmax --compare=onednn --dtag=ba 2x3
expect "oneDNN not run: oneDNN 2.6.3 has no inf_as_zero softmax" \
  --softmax --compare=onednn --alg=softmax_accurate_inf_as_zero 2x3

# A --perf-csv write that fails (a full device) stops the run rather than losing rows silently.
expect_exit "--perf-csv=/dev/full: write failed" --reorder --mode=P --fix-times-per-prb=1 --perf-csv=/dev/full 2x3
exit $failed
