#!/usr/bin/env bash
# Reproduces Luo et al. (A-SRPT, our reconstruction): prints the tables, rewrites README.md and the PNGs here.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/experiment.sh" "$here/run.py" "$@"
