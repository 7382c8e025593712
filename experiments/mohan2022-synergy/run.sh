#!/usr/bin/env bash
# Reproduces Mohan et al. (Synergy): the goldens of the authors' simulator in --compat synergy, then the
# paper's studies in our default (exact-finish) round model. Prints the tables, rewrites README.md and PNGs.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/experiment.sh" "$here/run.py" "$@"
