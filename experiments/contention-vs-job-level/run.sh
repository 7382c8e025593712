#!/usr/bin/env bash
# Contention-aware task-model policies against job-level policies on the Philly list cut to 3,000 jobs on
# synergy128: table (README.md, results.csv). About 10 minutes on 2 cores.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/experiment.sh" "$here/run.py" "$@"
