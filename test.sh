#!/usr/bin/env bash
# README command 2: install, build, and run the whole test suite (also what .ci/run calls).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh build
ctest --test-dir build --output-on-failure -j "$(nproc)"
