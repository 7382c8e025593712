#!/usr/bin/env bash
# Reproduces Qiao et al. (Pollux, OSDI'21), Figure 8a: average JCT against relative load for Pollux, Optimus+Oracle
# and Tiresias, the authors' published simulator runs against ours under --compat pollux. Prints the tables, rewrites
# README.md and fig8a.png. The 32 Pollux runs take about an hour on 2 cores (--loads 1.0: about 15 minutes).
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/experiment.sh" "$here/run.py" "$@"
