#!/usr/bin/env bash
# Runs the Python module's unittest suite (test_*.py beside this script) on the built module.
# A failed import of the module is an error of every test file, so the run fails.
# --asan: the module is built with ASan+UBSan; the interpreter is not, so the sanitizer's
# runtime is preloaded, and leak checking is off (the interpreter keeps its objects at exit).
# TESSERA_PYTHON picks the interpreter; it needs NumPy (Debian's /usr/bin/python3 by default).
set -euo pipefail
python="${TESSERA_PYTHON:-/usr/bin/python3}"
here="$(cd "$(dirname "$0")" && pwd)"
if [[ "${1:-}" == "--asan" ]]; then
  runtime="$(clang-19 -print-file-name=libclang_rt.asan-x86_64.so)"
  [[ -f "$runtime" ]] || { echo "ASan runtime not found: $runtime" >&2; exit 1; }
  export LD_PRELOAD="$runtime"
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
fi
[[ -f "$here/tessera.so" ]] || { echo "module not built: $here/tessera.so" >&2; exit 1; }
cd "$here"
export PYTHONPATH="$here"
# python3 -m unittest, plus a JUnit report for Bazel (junit_runner.py).
exec "$python" "$here/junit_runner.py"
