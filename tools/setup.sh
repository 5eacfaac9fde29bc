#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera needs that are not installed yet (and only those).
# Idempotent: when everything is present it only checks, in well under a second.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap clang-19 libclang-rt-19-dev
  libabsl-dev libgtest-dev libbenchmark-dev libxsimd-dev libtbb-dev
  libdnnl-dev            # oneDNN 2.6.3: test oracle and benchmark peer only
  python3 gnuplot-nox    # test summary, performance charts
  python3-dev pybind11-dev python3-numpy   # the Python module (python/) and its tests
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "tessera setup: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
