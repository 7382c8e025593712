#!/usr/bin/env bash
# Every policy family on one Philly slice and one cluster at three loads: table (README.md, results.csv) and
# figure (jct.png). A few minutes on 2 cores.
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../../scripts/experiment.sh" "$here/run.py" "$@"
