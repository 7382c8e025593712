#!/usr/bin/env bash
# README command 1: install, build, and run the main job on the bundled cluster and trace.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh build
build/ringmaster simulate --cluster tiny --trace builtin:demo --out results/demo "$@"
