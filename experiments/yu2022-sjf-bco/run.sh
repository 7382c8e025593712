#!/usr/bin/env bash
# Reproduces Yu et al. 2022 (SJF-BCO): prints the tables, rewrites README.md and the PNGs here.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/experiment.sh" "$here/run.py" "$@"
