#!/bin/bash
# Uses libtessera.so the way a project outside Bazel does: installs the library, the header and
# tessera.pc under a prefix, compiles consumer_example.c with the flags `pkg-config --cflags
# --libs tessera` gives, runs it, and checks that the library exports only tessera_ symbols.
#
#   consumer_test.sh LIBTESSERA_SO TESSERA_H TESSERA_PC EXAMPLE_C [extra compiler flags...]
set -euo pipefail

so=$1 header=$2 pc=$3 example=$4
shift 4
cc=${CC:-clang-19}
work=${TEST_TMPDIR:-$(mktemp -d)}
prefix=$work/prefix

mkdir -p "$prefix/include/tessera/c" "$prefix/lib/pkgconfig"
cp "$header" "$prefix/include/tessera/c/tessera.h"
cp "$so" "$prefix/lib/libtessera.so"
cp "$pc" "$prefix/lib/pkgconfig/tessera.pc"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --define-variable=prefix="$prefix" --cflags --libs tessera)
version=$(pkg-config --modversion tessera)
echo "pkg-config: $flags (version $version)"

"$cc" -std=c11 -Wall -Wextra -pedantic -Werror "$@" "$example" -o "$work/consumer" $flags
# TESSERA_RUN_AARCH64 (bazel/aarch64/qemu_run.sh, --config=aarch64): the emulator to run it.
out=$(LD_LIBRARY_PATH=$prefix/lib ${TESSERA_RUN_AARCH64:-} "$work/consumer")
echo "consumer: $out"
expected="$version 1 4 2 5 3 6"
if [[ "$out" != "$expected" ]]; then
  echo "FAIL: expected \"$expected\"" >&2
  exit 1
fi

# Exported (global or weak, defined) symbols: the C API, plus the libstdc++ template instances
# the linker keeps visible because libstdc++.so defines them too.
others=$(readelf --dyn-syms -W "$so" |
  awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && $8 != "" { print $8 }' |
  grep -v -E '^tessera_|^_ZN?K?St|^_ZNSt|^_ZNKSt' || true)
if [[ -n "$others" ]]; then
  echo "FAIL: libtessera.so exports symbols outside the C API:" >&2
  echo "$others" | head -20 >&2
  exit 1
fi
# Every function the header declares, and nothing else named tessera_, is exported.
declared=$(grep -oE '\btessera_[a-z0-9_]+\(' "$header" | tr -d '(' | sort -u)
exported=$(readelf --dyn-syms -W "$so" |
  awk '$7 != "UND" && $8 ~ /^tessera_/ { print $8 }' | sort -u)
if [[ "$declared" != "$exported" ]]; then
  echo "FAIL: exported tessera_ symbols differ from the header's functions:" >&2
  diff <(echo "$declared") <(echo "$exported") >&2 || true
  exit 1
fi
echo "libtessera.so exports the header's $(echo "$declared" | wc -l) functions"
echo PASS
