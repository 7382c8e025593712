#!/usr/bin/env bash
# Reproduces Jayaram Subramanya et al. (Sia, SOSP'23), the headline comparison: average JCT of Sia, Pollux and Gavel
# on the artifact's Philly workloads (8 x 160 jobs, the 64-GPU cluster of T4, A100 and RTX 2080 Ti), the paper's
# claim against the authors' simulator (run here under the cvxpy shim: tests/data/sia), --compat sia and our engine.
# Prints the table and rewrites README.md. About 15 minutes on 2 cores (the Pollux runs dominate; --skip-pollux: 2).
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/experiment.sh" "$here/run.py" "$@"
