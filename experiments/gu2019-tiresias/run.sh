#!/usr/bin/env bash
# Reproduces Gu et al. (Tiresias, NSDI'19): every golden run of the authors' simulator under --compat tiresias, the
# paper's headline comparison on Philly-derived traces (their simulator's semantics and our engine). Prints the
# tables and rewrites README.md.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/experiment.sh" "$here/run.py" "$@"
