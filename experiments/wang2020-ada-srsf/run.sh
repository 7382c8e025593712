#!/usr/bin/env bash
# Reproduces Wang et al. 2020 (LWF-kappa, AdaDUAL, Ada-SRSF): prints the tables, rewrites README.md and the PNGs here.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/experiment.sh" "$here/run.py" "$@"
