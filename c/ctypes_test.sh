#!/bin/bash
# Runs ctypes_example.py (the C API through Python's ctypes) against the built libtessera.so.
#
#   ctypes_test.sh LIBTESSERA_SO CTYPES_EXAMPLE_PY [asan]
# With "asan" the library is sanitized and Python is not: the sanitizer runtime is preloaded
# (leak checking off: the interpreter's own allocations are not the library's leaks).
set -euo pipefail

so=$1 example=$2
if [[ "${3:-}" == asan ]]; then
  export LD_PRELOAD=$(clang-19 -print-file-name=libclang_rt.asan-x86_64.so)
  export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi
/usr/bin/python3 "$example" "$so"
