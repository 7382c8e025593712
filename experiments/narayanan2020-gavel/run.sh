#!/usr/bin/env bash
# Reproduces Narayanan et al. (Gavel, OSDI'20): every golden run of Gavel's simulator under --compat gavel, the
# paper's headline comparisons (heterogeneity-aware vs agnostic) on its physical-cluster traces and cluster, under
# compat and on our engine. Prints the tables and rewrites README.md.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/experiment.sh" "$here/run.py" "$@"
