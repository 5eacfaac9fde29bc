#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera needs that are not installed yet (and only those).
# Idempotent: when everything is present it only checks, in well under a second.
#
#   tools/setup.sh            # the host build
#   tools/setup.sh --aarch64  # also the cross build: Debian's arm64 libraries (multiarch),
#                             # the aarch64 binutils and qemu-aarch64 (bazel --config=aarch64)
#   tools/setup.sh --peers    # also PyTorch's C++ library, the benches' ATen rows
#                             # (bench/aten_peer.h); about 1 GB with its dependencies
set -euo pipefail

PACKAGES=(
  bazel-bootstrap clang-19 libclang-rt-19-dev
  libabsl-dev libgtest-dev libbenchmark-dev libxsimd-dev libtbb-dev
  libdnnl-dev            # oneDNN 2.6.3: test oracle and benchmark peer only
  python3 gnuplot-nox    # test summary, performance charts
  python3-dev pybind11-dev python3-numpy   # the Python module (python/) and its tests
)

# The cross build's. libdnnl-dev cannot be installed for two architectures at once (their
# dnnl_config.h differ only in the GPU runtime), so the arm64 side gets the runtime library alone
# and the build uses the host's headers (bazel/multiarch.bzl).
AARCH64_PACKAGES=(
  binutils-aarch64-linux-gnu qemu-user-static
  libc6-dev:arm64 libstdc++-12-dev:arm64 libgcc-12-dev:arm64
  libabsl-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64 libbenchmark-dev:arm64 libtbb-dev:arm64
  libdnnl2:arm64
)

# ATen, a peer in the benches only: Debian's libtorch-dev (PyTorch 1.13).
PEER_PACKAGES=(libtorch-dev)

aarch64=0
peers=0
for arg in "$@"; do
  case "$arg" in
    --aarch64) aarch64=1 ;;
    --peers) peers=1 ;;
    *) echo "tools/setup.sh: unknown argument \"$arg\" (expected --aarch64 or --peers)" >&2
       exit 2 ;;
  esac
done

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

wanted=("${PACKAGES[@]}")
if [ "$aarch64" -eq 1 ]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "tessera setup: adding the arm64 architecture to dpkg" >&2
    $SUDO dpkg --add-architecture arm64
  fi
  wanted+=("${AARCH64_PACKAGES[@]}")
fi
[ "$peers" -eq 1 ] && wanted+=("${PEER_PACKAGES[@]}")

missing=()
for p in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "tessera setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
