#!/bin/bash
# --run_under for --config=aarch64: runs an aarch64 ELF executable under qemu-aarch64-static and
# anything else (a test script: sh_test) directly, with TESSERA_RUN_AARCH64 naming the command
# the script prefixes to the aarch64 programs it builds itself.
#
#   qemu_run.sh bazel-bin/core/data_type_test --gtest_filter=DataType.*
#
# The emulated CPU is a Cortex-A72 (Armv8.0-A: Advanced SIMD, no SVE, no BF16), the floor that
# neon64 targets. qemu's default, "max", also offers SVE and BF16, which oneDNN's aarch64 build
# then takes (its jit:sve_512 kernels) instead of the Armv8.0 paths a neon64-only CPU runs.
set -euo pipefail

qemu=(/usr/bin/qemu-aarch64-static -cpu cortex-a72)
export TESSERA_RUN_AARCH64="${qemu[*]}"

# e_machine (bytes 18-19 of an ELF header) is 0xb7 0x00 for AArch64.
if [[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" == '177ELF' &&
      "$(od -An -tx1 -j18 -N2 "$1" | tr -d ' ')" == 'b700' ]]; then
  exec "${qemu[@]}" "$@"
fi
exec "$@"
