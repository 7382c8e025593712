#!/usr/bin/env bash
# Installs the Debian 12 build dependencies (if missing) and builds ringmaster in Release with Ninja.
# Idempotent. Usage: scripts/setup.sh [build-dir] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
PKGS="cmake ninja-build g++ libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libfccp-dev
      libgtest-dev libbenchmark-dev libxgboost-dev coinor-libcbc-dev libqhull-dev liblapack-dev liblbfgsb-dev pkg-config time slurm-wlm munge
      python3-matplotlib python3-dev pybind11-dev python3-pybind11 python3-pandas"
missing=()
for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  # slurm-wlm and munge (the Slurm integration tests start their own daemons): keep the packages from starting
  # system services while they install, unless the machine already has a policy for that.
  norc=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null && $SUDO chmod +x /usr/sbin/policy-rc.d
    norc=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [ -n "$norc" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
fi
# RINGMASTER_WERROR=1 (CI): a compiler warning in src/ fails the build.
werror=(); [ "${RINGMASTER_WERROR:-0}" = 1 ] && werror=(-DRINGMASTER_WERROR=ON)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "${werror[@]}" "$@" >/dev/null
ninja -C "$BUILD" -j "$(nproc)"
scripts/install-python.sh "$BUILD" > /dev/null  # `import ringmaster` (docs/python.md)
